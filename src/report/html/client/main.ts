/// <reference lib="dom" />
/**
 * The report page's browser script (bundled with uPlot by esbuild at build time): draws every
 * chart from the JSON the server embedded, and records on each chart's element what it drew
 * (series and points) so a test can check the picture against the run's data.
 */
import uPlot from 'uplot';
import {
  numbersSummary,
  numbersTable,
  PAGE_DATA_ID,
  xToPercentile,
  type ChartSpec,
  type IntervalRow,
  type LiveSection,
  type PageData,
} from '../model.js';
import { hasInterval, timeSeriesCharts } from '../time-charts.js';
import { bandLabelLines } from './band-labels.js';

const PALETTE: readonly string[] = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function formatNumber(v: number): string {
  return Math.abs(v) >= 1000
    ? v.toLocaleString('en-US', { maximumFractionDigits: 0 })
    : String(Number(v.toPrecision(3)));
}

/** A drawn chart; `spec` is replaced by live updates, and the hooks read it from here. */
interface Drawn {
  plot: uPlot;
  spec: ChartSpec;
}

/**
 * Words of `text` on lines of at most `perLine` characters; a longer word (a run id) is broken
 * after its hyphens.
 */
function wrap(text: string, perLine: number): string {
  const lines: string[] = [];
  const words = text
    .split(' ')
    .flatMap((w) => (w.length <= perLine ? [w] : (w.match(/[^-]*-?/g) ?? [w]).filter(Boolean)));
  for (const [i, word] of words.entries()) {
    // The pieces of a broken word join without a space.
    const glue = i > 0 && words[i - 1]!.endsWith('-') ? '' : ' ';
    const last = lines.length - 1;
    if (last >= 0 && lines[last]!.length + glue.length + word.length <= perLine) lines[last] += glue + word;
    else lines.push(word);
  }
  return lines.join('\n');
}

function options(current: { spec: ChartSpec }, width: number): uPlot.Options {
  const spec = current.spec;
  const fg = cssVar('--fg', '#1b1f24');
  const grid = cssVar('--line', '#d0d7de');
  const categories = spec.x.categories;
  const axisStyle = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const xAxis: uPlot.Axis = { ...axisStyle, label: spec.x.label };
  const scales: uPlot.Scales = { x: { time: false } };
  if (categories !== undefined) {
    const n = categories.length;
    scales.x = { time: false, range: () => [-0.5, n - 0.5] };
    xAxis.splits = () => categories.map((_, i) => i);
  } else if (spec.x.percentile) {
    // One tick per decade of the tail: 50%, 90%, 99%, … 99.999%.
    const ticks = [Math.log10(2), 1, 2, 3, 4, 5];
    scales.x = { time: false, range: () => [Math.log10(2), 5] };
    xAxis.splits = () => ticks;
    xAxis.values = (_u, splits) => splits.map((v) => `${Number(xToPercentile(v).toPrecision(6))}%`);
  } else if (spec.bands !== undefined && spec.bands.length > 0) {
    // From the start of the first shaded phase, so a warm-up before the first point shows.
    scales.x = {
      time: false,
      range: (_u, min, max) => [Math.min(min, ...(current.spec.bands ?? []).map((b) => b.from)), max],
    };
  }
  if (spec.kind !== 'line') {
    // Bars and per-setting points start at zero, so their heights compare honestly.
    // (A new object per scale: uPlot keeps each scale's state in it.)
    const fromZero = (): uPlot.Scale => ({
      auto: true,
      range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1],
    });
    scales.y = fromZero();
    if (spec.y2) scales.y2 = fromZero();
  }
  if (categories !== undefined) {
    // Long names (`vm1 @ work_mem=8MB (run-20261201-185726)`) wrapped onto lines under their own
    // slot, rather than slanted across their neighbours'.
    const perLine = Math.max(8, Math.floor((width - 140) / categories.length / 8.5));
    const wrapped = categories.map((c) => wrap(c, perLine));
    const lines = Math.max(1, ...wrapped.map((w) => w.split('\n').length));
    xAxis.values = (_u, splits) => splits.map((v) => wrapped[v] ?? '');
    xAxis.size = 34 + 15 * lines;
  }
  const axes: uPlot.Axis[] = [xAxis, { ...axisStyle, label: spec.y.label, scale: 'y', size: 60 }];
  if (spec.y2) {
    scales.y2 ??= { auto: true };
    axes.push({ ...axisStyle, label: spec.y2.label, scale: 'y2', side: 1, size: 60, grid: { show: false } });
  }
  const bars = spec.kind === 'bars' ? uPlot.paths.bars : undefined;
  const series: uPlot.Series[] = [
    { label: spec.x.label, value: (_u, v) => (v == null ? '–' : (categories?.[v] ?? formatNumber(v))) },
    ...spec.series.map((s, i): uPlot.Series => {
      const color = PALETTE[i % PALETTE.length]!;
      return {
        label: s.label,
        scale: s.axis ?? 'y',
        stroke: color,
        width: 2,
        // A second unit's line is dashed, so two lines that happen to overlap stay apart.
        dash: s.axis === 'y2' && !bars ? [8, 4] : undefined,
        fill: bars ? color + 'cc' : undefined,
        // Bars need no dots (they sat off the bars' centres); sparse lines and per-setting points do.
        points: { show: !bars && (spec.kind !== 'line' || spec.x.values.length < 30) },
        paths: bars ? bars({ size: [0.35, 80], align: i % 2 === 0 ? -1 : 1 }) : undefined,
        value: (_u, v) => (v == null ? '–' : formatNumber(v)),
      };
    }),
  ];
  return {
    width,
    height: 300,
    scales,
    axes,
    series,
    legend: { live: true },
    hooks: {
      drawClear: [(u) => drawBands(u, current.spec)],
      drawAxes: [(u) => drawLevels(u, current.spec)],
      draw: [(u) => drawMarks(u, current.spec, fg)],
    },
  };
}

/** Warm-up and preconditioning shaded behind the lines, named at the top. */
function drawBands(u: uPlot, spec: ChartSpec): void {
  const ctx = u.ctx;
  const lineOf = bandLabelLines();
  for (const band of spec.bands ?? []) {
    // Clipped to the plot: a warm-up that began before the first point must not cover the axis.
    const left = Math.max(u.bbox.left, u.valToPos(band.from, 'x', true));
    const right = Math.min(u.bbox.left + u.bbox.width, u.valToPos(band.to, 'x', true));
    if (right <= left) continue;
    ctx.save();
    ctx.fillStyle = 'rgba(128, 128, 128, 0.18)';
    ctx.fillRect(left, u.bbox.top, Math.max(1, right - left), u.bbox.height);
    ctx.fillStyle = cssVar('--muted', '#57606a');
    ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    // uPlot leaves its axes' alignment on the context: a redraw would otherwise right-align this.
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    const line = lineOf(left, ctx.measureText(band.label).width + 8 * devicePixelRatio);
    ctx.fillText(band.label, left + 4 * devicePixelRatio, u.bbox.top + (14 + 14 * line) * devicePixelRatio);
    ctx.restore();
  }
}

/** Confidence intervals as shaded horizontal bands over the measured window, named at their right end. */
function drawLevels(u: uPlot, spec: ChartSpec): void {
  const ctx = u.ctx;
  for (const level of spec.levels ?? []) {
    const left = Math.max(u.bbox.left, u.valToPos(level.x0, 'x', true));
    const right = Math.min(u.bbox.left + u.bbox.width, u.valToPos(level.x1, 'x', true));
    const top = Math.max(u.bbox.top, u.valToPos(level.to, 'y', true));
    const bottom = Math.min(u.bbox.top + u.bbox.height, u.valToPos(level.from, 'y', true));
    if (right <= left || bottom <= top) continue;
    ctx.save();
    ctx.fillStyle = 'rgba(9, 105, 218, 0.15)';
    ctx.fillRect(left, top, right - left, Math.max(devicePixelRatio, bottom - top));
    ctx.fillStyle = cssVar('--muted', '#57606a');
    ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    ctx.fillText(level.label, right - 4 * devicePixelRatio, top - 2 * devicePixelRatio);
    ctx.restore();
  }
}

/** Vertical marks (the knee) with their names. */
function drawMarks(u: uPlot, spec: ChartSpec, color: string): void {
  const ctx = u.ctx;
  for (const mark of spec.marks ?? []) {
    const x = u.valToPos(mark.x, 'x', true);
    ctx.save();
    ctx.strokeStyle = color;
    ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
    ctx.lineWidth = devicePixelRatio;
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.fillStyle = color;
    ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText(mark.label, x + 4 * devicePixelRatio, u.bbox.top + 28 * devicePixelRatio);
    ctx.restore();
  }
}

/** The page's drawn charts by id, redrawn as live intervals arrive. */
type Plots = Map<string, Drawn>;

const alignedData = (spec: ChartSpec): uPlot.AlignedData => [
  spec.x.values,
  ...spec.series.map((s) => s.values),
];

/** What a test reads to check the picture against the data: series and points drawn. */
function record(el: HTMLElement, plot: uPlot): void {
  el.dataset.series = String(plot.data.length - 1);
  el.dataset.points = String(plot.data[0]?.length ?? 0);
}

function draw(plots: Plots, spec: ChartSpec): void {
  const el = document.querySelector<HTMLElement>(`[data-chart="${spec.id}"]`);
  if (el === null) return;
  const width = Math.max(320, el.clientWidth || 900);
  const drawn = { spec } as Drawn;
  drawn.plot = new uPlot(options(drawn, width), alignedData(spec), el);
  plots.set(spec.id, drawn);
  record(el, drawn.plot);
}

function readData(): PageData {
  const text = document.getElementById(PAGE_DATA_ID)?.textContent ?? '{"charts":[]}';
  return JSON.parse(text) as PageData;
}

/**
 * A chart a live update brought (the first disk figures, a new type): its figure goes after the
 * chart before it in `order`, else first among the section's charts.
 */
function addFigure(spec: ChartSpec, anchor: string, order: readonly ChartSpec[]): void {
  const section = document.getElementById(anchor);
  if (section === null) return;
  const figure = document.createElement('figure');
  figure.id = spec.id;
  figure.className = 'chart-figure';
  const caption = document.createElement('figcaption');
  const link = document.createElement('a');
  link.href = `#${spec.id}`;
  link.textContent = spec.title;
  caption.append(link);
  const chart = document.createElement('div');
  chart.className = 'chart';
  chart.dataset.chart = spec.id;
  figure.append(caption, chart);
  const before = order
    .slice(0, order.indexOf(spec))
    .reverse()
    .map((s) => document.getElementById(s.id))
    .find((el) => el !== null);
  if (before) before.after(figure);
  else {
    const first = section.querySelector('figure');
    if (first) first.before(figure);
    else section.append(figure);
  }
}

const sameSeries = (a: ChartSpec, b: ChartSpec): boolean =>
  a.series.length === b.series.length && a.series.every((s, i) => s.label === b.series[i]!.label);

/** The numbers beside a chart, redone from its spec as the page's own were (kept open if open). */
function renderNumbers(spec: ChartSpec): void {
  const figure = document.getElementById(spec.id);
  if (figure === null) return;
  let details = figure.querySelector('details.numbers');
  if (details === null) {
    details = document.createElement('details');
    details.className = 'numbers';
    figure.append(details);
  }
  const { head, rows } = numbersTable(spec);
  const summary = document.createElement('summary');
  summary.textContent = numbersSummary(spec);
  const table = document.createElement('table');
  const headRow = table.createTHead().insertRow();
  for (const h of head) headRow.append(Object.assign(document.createElement('th'), { textContent: h }));
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    for (const v of r) tr.insertCell().textContent = v;
  }
  details.replaceChildren(summary, table);
}

/** Redraws a live section's charts over time from its rows, through the server's own functions. */
function redraw(plots: Plots, section: LiveSection): void {
  const { head, monitor } = timeSeriesCharts(section.anchor, section);
  const order = [...head, ...monitor];
  for (const spec of order) {
    const drawn = plots.get(spec.id);
    const el = document.querySelector<HTMLElement>(`[data-chart="${spec.id}"]`);
    if (drawn !== undefined && el !== null && sameSeries(drawn.spec, spec)) {
      drawn.spec = spec;
      drawn.plot.setData(alignedData(spec));
      record(el, drawn.plot);
    } else {
      // New series (a type's first transaction, another disk): drawn afresh.
      drawn?.plot.destroy();
      plots.delete(spec.id);
      if (el === null) addFigure(spec, section.anchor, order);
      draw(plots, spec);
    }
    renderNumbers(spec);
  }
}

/**
 * A live dashboard: each interval pushed is added to its run's rows and every chart over time is
 * redrawn from them; at the end the final report replaces the page (it arrives whole, so the page
 * needs nothing more from txbench).
 */
function listen(plots: Plots, eventsPath: string, sections: readonly LiveSection[]): void {
  const events = new EventSource(eventsPath);
  let updates = 0;
  events.addEventListener('interval', (e) => {
    const row = JSON.parse((e as MessageEvent<string>).data) as IntervalRow;
    document.body.dataset.updates = String(++updates);
    // The live page shows the one run in progress.
    const section = sections[0];
    if (section === undefined) return;
    // An interval the page was drawn with already (written to the file before the page loaded).
    if (hasInterval(section.rows, row)) return;
    section.rows.push(row);
    redraw(plots, section);
  });
  events.addEventListener('final', (e) => {
    events.close();
    const html = JSON.parse((e as MessageEvent<string>).data) as string;
    document.open();
    document.write(html);
    document.close();
  });
}

function main(): void {
  const data = readData();
  const plots: Plots = new Map();
  for (const spec of data.charts) draw(plots, spec);
  if (data.live) listen(plots, data.live.eventsPath, data.live.sections);
  document.body.dataset.charts = String(data.charts.length);
  // The numbers beside each chart are in a toggle: open them all for print.
  window.addEventListener('beforeprint', () => {
    document.querySelectorAll('details').forEach((d) => (d.open = true));
  });
}

main();

/// <reference lib="dom" />
/**
 * The report page's browser script (bundled with uPlot by esbuild at build time): draws every
 * chart from the JSON the server embedded, and records on each chart's element what it drew
 * (series and points) so a test can check the picture against the run's data.
 */
import uPlot from 'uplot';
import { PAGE_DATA_ID, xToPercentile, type ChartSpec, type PageData } from '../model.js';

const PALETTE = [
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

function options(spec: ChartSpec, width: number): uPlot.Options {
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
    xAxis.values = (_u, splits) => splits.map((v) => categories[v] ?? '');
  } else if (spec.x.percentile) {
    // One tick per decade of the tail: 50%, 90%, 99%, … 99.999%.
    const ticks = [Math.log10(2), 1, 2, 3, 4, 5];
    scales.x = { time: false, range: () => [Math.log10(2), 5] };
    xAxis.splits = () => ticks;
    xAxis.values = (_u, splits) => splits.map((v) => `${Number(xToPercentile(v).toPrecision(6))}%`);
  } else if (spec.bands !== undefined && spec.bands.length > 0) {
    // From the start of the first shaded phase, so a warm-up before the first point shows.
    const start = Math.min(...spec.bands.map((b) => b.from));
    scales.x = { time: false, range: (_u, min, max) => [Math.min(min, start), max] };
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
  if (categories !== undefined && categories.some((c) => c.length > 12)) {
    xAxis.rotate = -15;
    xAxis.size = 90;
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
        points: { show: spec.kind !== 'line' || spec.x.values.length < 30 },
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
    hooks: { drawClear: [(u) => drawBands(u, spec)], draw: [(u) => drawMarks(u, spec, fg)] },
  };
}

/** Warm-up and preconditioning shaded behind the lines, named at the top. */
function drawBands(u: uPlot, spec: ChartSpec): void {
  const ctx = u.ctx;
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
    ctx.fillText(band.label, left + 4 * devicePixelRatio, u.bbox.top + 14 * devicePixelRatio);
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
    ctx.fillText(mark.label, x + 4 * devicePixelRatio, u.bbox.top + 28 * devicePixelRatio);
    ctx.restore();
  }
}

const plots = new Map<string, { plot: uPlot; spec: ChartSpec }>();

function draw(spec: ChartSpec): void {
  const el = document.querySelector<HTMLElement>(`[data-chart="${spec.id}"]`);
  if (el === null) return;
  const width = Math.max(320, el.clientWidth || 900);
  const data: uPlot.AlignedData = [spec.x.values, ...spec.series.map((s) => s.values)];
  const plot = new uPlot(options(spec, width), data, el);
  plots.set(spec.id, { plot, spec });
  el.dataset.series = String(plot.data.length - 1);
  el.dataset.points = String(plot.data[0]?.length ?? 0);
}

function readData(): PageData {
  const text = document.getElementById(PAGE_DATA_ID)?.textContent ?? '{"charts":[]}';
  return JSON.parse(text) as PageData;
}

interface LiveInterval {
  atS: number;
  tps: number;
  target?: string;
}

/**
 * A live dashboard: each interval is added to the throughput chart as it comes; at the end the
 * final report replaces the page (it arrives whole, so the page needs nothing more from txbench).
 */
function listen(eventsPath: string): void {
  const events = new EventSource(eventsPath);
  let updates = 0;
  events.addEventListener('interval', (e) => {
    const interval = JSON.parse((e as MessageEvent<string>).data) as LiveInterval;
    document.body.dataset.updates = String(++updates);
    const tps = [...plots.values()].find((p) => p.spec.id.endsWith('-tps') && p.spec.series.length === 1);
    if (tps === undefined || interval.target !== undefined) return;
    const [x = [], y = []] = tps.plot.data;
    tps.plot.setData([
      [...x, interval.atS],
      [...(y as (number | null)[]), interval.tps],
    ]);
    const el = document.querySelector<HTMLElement>(`[data-chart="${tps.spec.id}"]`);
    if (el) el.dataset.points = String(x.length + 1);
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
  data.charts.forEach(draw);
  if (data.live) listen(data.live.eventsPath);
  document.body.dataset.charts = String(data.charts.length);
  // The numbers beside each chart are in a toggle: open them all for print.
  window.addEventListener('beforeprint', () => {
    document.querySelectorAll('details').forEach((d) => (d.open = true));
  });
}

main();

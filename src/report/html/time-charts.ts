/**
 * The report's charts over time, as pure functions of the interval rows. The server draws a run's
 * page with them, and the live page's script redraws with them as each interval arrives, so the
 * live charts and the final report cannot disagree. Nothing here may import Node modules or the
 * HDR histogram: it is bundled into the page.
 */
import type { ChartSeries, ChartSpec, IntervalDevice, IntervalRow, TimeSeriesSource } from './model.js';

/**
 * The intervals drawn over time. A sliver of an interval cut off by a phase change (the end of the
 * window, the drain: a few milliseconds) is kept in the files, but its rate and its CPU over so
 * short a time say nothing and would draw a spike, as they would on the progress lines: an
 * interval shorter than a tenth of the longest, or a drain interval under a second, is left out.
 */
export function chartedIntervals<T extends IntervalRow>(rows: readonly T[]): T[] {
  const longest = Math.max(0, ...rows.map((r) => r.seconds));
  return oneClock(rows).filter((r) => !(r.phase === 'drain' && r.seconds < 1) && r.seconds >= longest / 10);
}

/**
 * Each target's intervals on one clock. A run with a precondition runs its engine twice (the
 * preconditioning, then warm-up and window), and each engine counts its intervals' `atS` from its
 * own start: drawn as written, the second line would run back over the first (a sum drawn twice)
 * and the warm-up band would lie on the preconditioning's. A target's interval that ends before
 * the one written before it starts a new engine run, which is drawn from where the last one ended.
 * Rows already on one clock come back as they are.
 */
export function oneClock<T extends IntervalRow>(rows: readonly T[]): T[] {
  const clocks = new Map<string | undefined, { offset: number; lastAtS: number }>();
  return rows.map((row) => {
    const clock = clocks.get(row.target) ?? { offset: 0, lastAtS: 0 };
    clocks.set(row.target, clock);
    if (row.atS < clock.lastAtS) clock.offset += clock.lastAtS;
    clock.lastAtS = row.atS;
    return clock.offset === 0 ? row : { ...row, atS: Number((row.atS + clock.offset).toFixed(3)) };
  });
}

/**
 * Whether the live page has this interval already: a page drawn from the files is sent the last
 * few intervals again when it connects. (By identity, not by time: a run's second engine run
 * starts its clock again.)
 */
export function hasInterval(rows: readonly IntervalRow[], row: IntervalRow): boolean {
  return rows.some(
    (r) => r.target === row.target && r.phase === row.phase && r.atS === row.atS && r.seconds === row.seconds,
  );
}

/** Adjacent intervals of the given phases, as shaded ranges [start, end] in seconds. */
export function phaseBands(rows: readonly IntervalRow[], phases: Record<string, string>): ChartSpec['bands'] {
  const bands: NonNullable<ChartSpec['bands']> = [];
  for (const row of rows) {
    const label = phases[row.phase];
    if (label === undefined) continue;
    const from = Number((row.atS - row.seconds).toFixed(3));
    const last = bands[bands.length - 1];
    // atS and seconds are each rounded to the millisecond in the files: edges may differ by 1 ms.
    if (last !== undefined && last.label === label && Math.abs(last.to - from) < 0.0015) last.to = row.atS;
    else bands.push({ from, to: row.atS, label });
  }
  return bands;
}

const SHADED = { warmup: 'warm-up', precondition: 'preconditioning' };
const TIME_AXIS = 'time since start (s)';

export function throughputChart(id: string, rows: readonly IntervalRow[]): ChartSpec {
  return {
    id,
    title: 'Throughput over time',
    kind: 'line',
    x: { label: TIME_AXIS, values: rows.map((r) => r.atS) },
    y: { label: 'transactions per second' },
    series: [{ label: 'TPS', values: rows.map((r) => r.tps) }],
    bands: phaseBands(rows, SHADED),
  };
}

/** The types that completed something in some interval, in the order first seen. */
export function typesOverTime(rows: readonly IntervalRow[]): string[] {
  return [...new Set(rows.flatMap((r) => Object.keys(r.perType ?? {})))].filter((t) =>
    rows.some((r) => (r.perType?.[t]?.count ?? 0) > 0),
  );
}

type TypeFigure = 'avgMs' | 'p50Ms' | 'p90Ms' | 'p95Ms' | 'p99Ms';

/** The percentiles drawn over time, and what files older than them have instead. */
const PERCENTILE_FIGURES: readonly [TypeFigure, string][] = [
  ['p50Ms', 'p50'],
  ['p95Ms', 'p95'],
  ['p99Ms', 'p99'],
];
const LEGACY_FIGURES: readonly [TypeFigure, string][] = [
  ['avgMs', 'avg'],
  ['p90Ms', 'p90'],
];

/**
 * Response time over time, one chart per transaction type (each on its own scale: Delivery's p99
 * would flatten Order-Status's p50 on a shared one): p50, p95 and p99 of each interval. Files
 * written before those were recorded have each interval's average and 90th percentile, which is
 * what is drawn for them, and the title says so.
 */
export function responseCharts(
  idPrefix: string,
  rows: readonly IntervalRow[],
  names: Record<string, string>,
): ChartSpec[] {
  const percentiles = rows.some((r) => Object.values(r.perType ?? {}).some((t) => t.p50Ms !== undefined));
  const figures = percentiles ? PERCENTILE_FIGURES : LEGACY_FIGURES;
  const what = percentiles
    ? 'p50, p95 and p99 of each interval'
    : 'average and p90 of each interval; this run predates interval p50/p95/p99';
  return typesOverTime(rows).map((type) => {
    const value = (r: IntervalRow, f: TypeFigure): number | null => {
      const t = r.perType?.[type];
      return t !== undefined && t.count > 0 ? (t[f] ?? null) : null;
    };
    const series: ChartSeries[] = figures.map(([f, label]) => ({
      label,
      values: rows.map((r) => value(r, f)),
    }));
    return {
      id: `${idPrefix}-${type}`,
      title: `${names[type] ?? type} response time over time (${what})`,
      kind: 'line' as const,
      x: { label: TIME_AXIS, values: rows.map((r) => r.atS) },
      y: { label: 'response time (ms)' },
      series,
      bands: phaseBands(rows, SHADED),
    };
  });
}

type DeviceFigure = 'iops' | 'mbps' | 'latency' | 'queue';

const DEVICE_CHARTS: Record<DeviceFigure, { title: string; y: string }> = {
  iops: { title: 'Device I/O operations per second', y: 'IOPS' },
  mbps: { title: 'Device throughput', y: 'MB/s' },
  latency: { title: 'Device latency per I/O', y: 'ms per I/O' },
  queue: { title: 'Device queue depth', y: 'average requests in flight' },
};

/** The disks seen in any interval, by name with their role. */
export function devicesIn(rows: readonly IntervalRow[]): { name: string; role: string }[] {
  const seen = new Map<string, string>();
  for (const r of rows) for (const d of r.devices ?? []) if (!seen.has(d.name)) seen.set(d.name, d.role);
  return [...seen].map(([name, role]) => ({ name, role }));
}

/** `: label` after a chart's title when several targets each have one. */
const of = (target: string | undefined): string => (target === undefined ? '' : `: ${target}`);

/** One chart per device figure: read and write lines per disk (queue depth: one per disk). */
export function deviceCharts(idPrefix: string, rows: readonly IntervalRow[], target?: string): ChartSpec[] {
  const devices = devicesIn(rows);
  if (devices.length === 0) return [];
  const value = (r: IntervalRow, name: string, f: (d: IntervalDevice) => number | null): number | null => {
    const d = r.devices?.find((x) => x.name === name);
    return d === undefined ? null : f(d);
  };
  const pick: Record<DeviceFigure, [string, (d: IntervalDevice) => number | null][]> = {
    iops: [
      ['read', (d) => d.readIops],
      ['write', (d) => d.writeIops],
    ],
    mbps: [
      ['read', (d) => d.readMBps],
      ['write', (d) => d.writeMBps],
    ],
    latency: [
      ['read', (d) => d.readLatencyMs],
      ['write', (d) => d.writeLatencyMs],
    ],
    queue: [['queue', (d) => d.queueDepth]],
  };
  return (Object.keys(DEVICE_CHARTS) as DeviceFigure[]).map((figure) => ({
    id: `${idPrefix}-${figure}`,
    title: `${DEVICE_CHARTS[figure].title}${of(target)}`,
    kind: 'line' as const,
    x: { label: TIME_AXIS, values: rows.map((r) => r.atS) },
    y: { label: DEVICE_CHARTS[figure].y },
    series: devices.flatMap(({ name, role }) =>
      pick[figure].map(([what, f]) => ({
        label: figure === 'queue' ? `${name} (${role})` : `${name} (${role}) ${what}`,
        values: rows.map((r) => value(r, name, f)),
      })),
    ),
    bands: phaseBands(rows, SHADED),
  }));
}

/** Host CPU by kind (% of all CPUs) and txbench's own (% of one core, right axis). */
export function hostCpuChart(
  id: string,
  rows: readonly IntervalRow[],
  target?: string,
): ChartSpec | undefined {
  if (!rows.some((r) => r.host != null)) return undefined;
  const f = (g: (h: NonNullable<IntervalRow['host']>) => number | null) =>
    rows.map((r) => (r.host ? g(r.host) : null));
  return {
    id,
    title: `Host CPU${of(target)}`,
    kind: 'line',
    x: { label: TIME_AXIS, values: rows.map((r) => r.atS) },
    y: { label: '% of all CPUs' },
    y2: { label: 'txbench, % of one core' },
    series: [
      { label: 'user', values: f((h) => h.cpuUserPct) },
      { label: 'system', values: f((h) => h.cpuSystemPct) },
      { label: 'iowait', values: f((h) => h.cpuIowaitPct) },
      { label: 'steal', values: f((h) => h.cpuStealPct) },
      { label: 'txbench', values: f((h) => h.txbenchCpuPct), axis: 'y2' },
    ],
    bands: phaseBands(rows, SHADED),
  };
}

/**
 * Several targets' throughput, one line per target and their sum. Targets start together and
 * share the interval, so the n-th intervals line up; x is their mean end time. Steps and sweep
 * values run one after another: their lines share the time since each one's own start, and a sum
 * would mean nothing.
 */
export function targetsThroughputChart(
  id: string,
  rows: readonly IntervalRow[],
  labels: readonly string[],
  options: { title?: string; sum?: boolean } = {},
): ChartSpec {
  const withSum = options.sum ?? true;
  const byTarget = labels.map((label) => rows.filter((r) => r.target === label));
  const length = Math.max(0, ...byTarget.map((t) => t.length));
  const x: number[] = [];
  const sum: (number | null)[] = [];
  for (let i = 0; i < length; i++) {
    const at = byTarget.map((t) => t[i]).filter((r): r is IntervalRow => r !== undefined);
    x.push(Number((at.reduce((a, r) => a + r.atS, 0) / at.length).toFixed(3)));
    sum.push(at.length === labels.length ? Number(at.reduce((a, r) => a + r.tps, 0).toFixed(2)) : null);
  }
  return {
    id,
    title: options.title ?? 'Throughput over time per target, and their sum',
    kind: 'line',
    x: { label: TIME_AXIS, values: x },
    y: { label: 'transactions per second' },
    series: [
      ...byTarget.map((t, i) => ({ label: labels[i]!, values: x.map((_, j) => t[j]?.tps ?? null) })),
      ...(withSum ? [{ label: 'sum', values: sum }] : []),
    ],
    bands: phaseBands(byTarget[0] ?? [], SHADED),
  };
}

/** The labels of the targets (or steps) in the rows, in the order first seen. */
export function labelsIn(rows: readonly IntervalRow[]): string[] {
  return [...new Set(rows.flatMap((r) => (r.target === undefined ? [] : [r.target])))];
}

/**
 * Every chart over time of one section: `head` (throughput and response time) goes before the
 * percentile distributions, `monitor` (devices and host CPU) after. With several targets each
 * target has its own device and CPU charts (they may be different machines).
 */
export function timeSeriesCharts(
  anchor: string,
  source: TimeSeriesSource,
): { head: ChartSpec[]; monitor: ChartSpec[] } {
  const rows = chartedIntervals(source.rows);
  const labels = source.labels.length > 0 ? source.labels : labelsIn(rows);
  switch (source.kind) {
    case 'run':
      return {
        head: [
          throughputChart(`${anchor}-tps`, rows),
          ...responseCharts(`${anchor}-response`, rows, source.names),
        ],
        monitor: monitorCharts(anchor, rows),
      };
    case 'targets': {
      if (rows.length === 0) return { head: [], monitor: [] };
      return {
        head: [targetsThroughputChart(`${anchor}-tps`, rows, labels)],
        monitor: labels.flatMap((label, i) =>
          monitorCharts(
            `${anchor}-t${i + 1}`,
            rows.filter((r) => r.target === label),
            label,
          ),
        ),
      };
    }
    case 'steps':
    case 'sweep': {
      if (rows.length === 0) return { head: [], monitor: [] };
      const what = source.kind === 'steps' ? 'user count' : 'setting value';
      return {
        head: [
          targetsThroughputChart(`${anchor}-over-time`, rows, labels, {
            title: `Throughput over time per ${what} (each from its own start)`,
            sum: false,
          }),
        ],
        monitor: [],
      };
    }
  }
}

function monitorCharts(idPrefix: string, rows: readonly IntervalRow[], target?: string): ChartSpec[] {
  const cpu = hostCpuChart(`${idPrefix}-cpu`, rows, target);
  return [...deviceCharts(`${idPrefix}-device`, rows, target), ...(cpu ? [cpu] : [])];
}

/**
 * The HTML report's charts as data: pure functions from what a run directory holds to ChartSpecs.
 * Every chart here draws only what was measured; a figure absent in an interval is a gap (null).
 */
import { decodeHistogram } from '../../metrics/histogram.js';
import type { IntervalDevice, IntervalRow } from './load.js';
import { percentileToX, type ChartSeries, type ChartSpec } from './model.js';

/** Percentiles drawn for each type's distribution: log-spaced from 50% to 99.999%. */
export const DISTRIBUTION_PERCENTILES: readonly number[] = (() => {
  const out: number[] = [];
  // 1/(1-p) from 2 to 100,000, ten points per decade.
  for (let k = 0; k <= 47; k++) {
    const x = 2 * 10 ** (k / 10);
    if (x > 100_000 * 1.0001) break;
    out.push(Number((100 - 100 / x).toFixed(6)));
  }
  if (out[out.length - 1] !== 99.999) out.push(99.999);
  return out;
})();

/**
 * The intervals drawn over time: the sliver of an interval cut off by the end of the window (the
 * drain, well under a second) is kept in the files but its rate over a few milliseconds says
 * nothing, as on the progress lines.
 */
export function chartedIntervals<T extends IntervalRow>(rows: readonly T[]): T[] {
  return rows.filter((r) => !(r.phase === 'drain' && r.seconds < 1));
}

/** Adjacent intervals of the given phases, as shaded ranges [start, end] in seconds. */
export function phaseBands(rows: readonly IntervalRow[], phases: Record<string, string>): ChartSpec['bands'] {
  const bands: NonNullable<ChartSpec['bands']> = [];
  for (const row of rows) {
    const label = phases[row.phase];
    if (label === undefined) continue;
    const from = row.atS - row.seconds;
    const last = bands[bands.length - 1];
    if (last !== undefined && last.label === label && Math.abs(last.to - from) < 1e-6) last.to = row.atS;
    else bands.push({ from, to: row.atS, label });
  }
  return bands;
}

const SHADED = { warmup: 'warm-up', precondition: 'preconditioning' };

export function throughputChart(id: string, rows: readonly IntervalRow[]): ChartSpec {
  return {
    id,
    title: 'Throughput over time',
    kind: 'line',
    x: { label: 'time since start (s)', values: rows.map((r) => r.atS) },
    y: { label: 'transactions per second' },
    series: [{ label: 'TPS', values: rows.map((r) => r.tps) }],
    bands: phaseBands(rows, SHADED),
  };
}

/**
 * Response time over time per type. The intervals keep each type's average and 90th percentile
 * (not p50/p95/p99: those exist only over the whole window), so those two are what is drawn.
 */
export function responseChart(
  id: string,
  rows: readonly IntervalRow[],
  names: Record<string, string>,
): ChartSpec {
  const types = [...new Set(rows.flatMap((r) => Object.keys(r.perType ?? {})))].filter((t) =>
    rows.some((r) => (r.perType?.[t]?.count ?? 0) > 0),
  );
  const series: ChartSeries[] = [];
  for (const type of types) {
    const name = names[type] ?? type;
    const figure = (r: IntervalRow, f: 'avgMs' | 'p90Ms'): number | null => {
      const t = r.perType?.[type];
      return t !== undefined && t.count > 0 ? t[f] : null;
    };
    series.push({ label: `${name} avg`, values: rows.map((r) => figure(r, 'avgMs')) });
    series.push({ label: `${name} p90`, values: rows.map((r) => figure(r, 'p90Ms')) });
  }
  return {
    id,
    title: 'Response time over time, per transaction type (interval average and 90th percentile)',
    kind: 'line',
    x: { label: 'time since start (s)', values: rows.map((r) => r.atS) },
    y: { label: 'response time (ms)' },
    series,
    bands: phaseBands(rows, SHADED),
  };
}

/** Each type's response time at DISTRIBUTION_PERCENTILES, from its encoded HDR histogram. */
export function distributionChart(
  id: string,
  histograms: Record<string, string>,
  names: Record<string, string>,
): ChartSpec {
  const series: ChartSeries[] = [];
  for (const [type, encoded] of Object.entries(histograms)) {
    const h = decodeHistogram(encoded);
    if (h.totalCount === 0) continue;
    // HDR reports a bucket's upper edge, which can exceed the largest value recorded.
    const at = (p: number): number => Math.min(h.getValueAtPercentile(p), h.maxValue) / 1000;
    series.push({ label: names[type] ?? type, values: DISTRIBUTION_PERCENTILES.map(at) });
  }
  return {
    id,
    title: 'Response time distribution per transaction type (measured window, HDR histogram)',
    kind: 'line',
    x: {
      label: 'percentile (log scale)',
      values: DISTRIBUTION_PERCENTILES.map(percentileToX),
      percentile: true,
    },
    y: { label: 'response time (ms)' },
    series,
  };
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

/** One chart per device figure: read and write lines per disk (queue depth: one per disk). */
export function deviceCharts(idPrefix: string, rows: readonly IntervalRow[]): ChartSpec[] {
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
    title: DEVICE_CHARTS[figure].title,
    kind: 'line' as const,
    x: { label: 'time since start (s)', values: rows.map((r) => r.atS) },
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
export function hostCpuChart(id: string, rows: readonly IntervalRow[]): ChartSpec | undefined {
  if (!rows.some((r) => r.host != null)) return undefined;
  const f = (g: (h: NonNullable<IntervalRow['host']>) => number | null) =>
    rows.map((r) => (r.host ? g(r.host) : null));
  return {
    id,
    title: 'Host CPU',
    kind: 'line',
    x: { label: 'time since start (s)', values: rows.map((r) => r.atS) },
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
 * share the interval, so the n-th intervals line up; x is their mean end time.
 */
export function targetsThroughputChart(
  id: string,
  rows: readonly IntervalRow[],
  labels: readonly string[],
): ChartSpec {
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
    title: 'Throughput over time per target, and their sum',
    kind: 'line',
    x: { label: 'time since start (s)', values: x },
    y: { label: 'transactions per second' },
    series: [
      ...byTarget.map((t, i) => ({ label: labels[i]!, values: x.map((_, j) => t[j]?.tps ?? null) })),
      { label: 'sum', values: sum },
    ],
    bands: phaseBands(byTarget[0] ?? [], SHADED),
  };
}

/** A measured figure per user count (steps): TPS and average response, the knee marked. */
export function stepsChart(
  id: string,
  steps: readonly { users: number; tps: number; avgMs: number }[],
  knee: number | undefined,
): ChartSpec {
  return {
    id,
    title: 'Throughput and average response against users',
    kind: 'line',
    x: { label: 'users (terminals)', values: steps.map((s) => s.users) },
    y: { label: 'transactions per second' },
    y2: { label: 'average response (ms)' },
    series: [
      { label: 'TPS', values: steps.map((s) => s.tps) },
      { label: 'avg response ms', values: steps.map((s) => s.avgMs), axis: 'y2' },
    ],
    marks: knee === undefined ? [] : [{ x: knee, label: `knee: ${knee} users` }],
  };
}

/** Figures per value of a swept setting: one chart of TPS and response, one of device MB/s. */
export function sweepCharts(
  idPrefix: string,
  setting: string,
  values: readonly { value: string; tps: number; avgMs: number; deviceMBps: number | null }[],
): ChartSpec[] {
  const x = { label: setting, values: values.map((_, i) => i), categories: values.map((v) => v.value) };
  const charts: ChartSpec[] = [
    {
      id: `${idPrefix}-tps`,
      title: `Throughput and average response per ${setting}`,
      kind: 'categories',
      x,
      y: { label: 'transactions per second' },
      y2: { label: 'average response (ms)' },
      series: [
        { label: 'TPS', values: values.map((v) => v.tps) },
        { label: 'avg response ms', values: values.map((v) => v.avgMs), axis: 'y2' },
      ],
    },
  ];
  if (values.some((v) => v.deviceMBps !== null)) {
    charts.push({
      id: `${idPrefix}-mbps`,
      title: `Device throughput per ${setting} (read + write, all disks)`,
      kind: 'categories',
      x,
      y: { label: 'MB/s' },
      series: [{ label: 'device MB/s', values: values.map((v) => v.deviceMBps) }],
    });
  }
  return charts;
}

/** The reviewers' comparison: label | TPS | avg response ms, as bars. */
export function comparisonChart(
  id: string,
  rows: readonly { label: string; tps: number; avgMs: number }[],
): ChartSpec {
  return {
    id,
    title: 'Comparison: TPS and average response per run',
    kind: 'bars',
    x: { label: 'run', values: rows.map((_, i) => i), categories: rows.map((r) => r.label) },
    y: { label: 'transactions per second' },
    y2: { label: 'average response (ms)' },
    series: [
      { label: 'TPS', values: rows.map((r) => r.tps) },
      { label: 'avg response ms', values: rows.map((r) => r.avgMs), axis: 'y2' },
    ],
  };
}

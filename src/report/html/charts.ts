/**
 * The HTML report's charts as data: pure functions from what a run directory holds to ChartSpecs.
 * Every chart here draws only what was measured; a figure absent in an interval is a gap (null).
 * The charts over time are in time-charts.ts (the live page's script draws them too).
 */
import { decodeHistogram } from '../../metrics/histogram.js';
import { percentileToX, type ChartSeries, type ChartSpec } from './model.js';

export * from './time-charts.js';

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

/**
 * An engine interval as the run's files and outputs hold it: each type's figures by key, the
 * workload's interval figures, and all types' response times together.
 */
import type { IntervalStats } from '../engine/engine-result.js';
import type { TransactionSpec } from '../engine/types.js';
import { latencyMs, newHistogram, type Histogram } from '../metrics/histogram.js';
import type { TypeInterval } from '../results/run-events.js';
import type { PreparedRun } from '../workloads/workload.js';
import type { IntervalRecord } from '../results/interval.js';

export function intervalRecord(
  stats: IntervalStats,
  transactions: readonly TransactionSpec[],
  prepared: PreparedRun,
  label?: 'precondition',
): IntervalRecord {
  const perType: IntervalRecord['perType'] = {};
  let count = 0;
  transactions.forEach((t, i) => {
    const s = stats.perType[i]!;
    perType[t.key] = {
      count: s.count,
      errors: s.errors,
      avgMs: s.avgMs,
      p50Ms: s.p50Ms,
      p90Ms: s.p90Ms,
      p95Ms: s.p95Ms,
      p99Ms: s.p99Ms,
    };
    count += s.count;
  });
  const figures: Record<string, number> = {};
  for (const f of prepared.intervalFigures?.(
    stats.perType.map((s) => s.count),
    stats.seconds,
  ) ?? [])
    figures[f.key] = f.value;
  return {
    atS: Math.round(stats.atS * 1000) / 1000,
    phase: label && stats.phase === 'measure' ? label : stats.phase,
    seconds: Math.round(stats.seconds * 1000) / 1000,
    tps: Math.round((count / stats.seconds) * 100) / 100,
    ...figures,
    perType,
    responseMs: overallLatency(stats.histograms),
    errorsByClass: stats.errorsByClass,
  };
}

/**
 * The interval's counts and response-time histograms by transaction key, for the outputs that
 * want them whole (the metrics endpoint). The histograms are copies: the engine resets its own
 * once the interval is emitted, and an output may handle the event later.
 */
export function typeIntervals(
  stats: IntervalStats,
  transactions: readonly TransactionSpec[],
): Record<string, TypeInterval> {
  const out: Record<string, TypeInterval> = {};
  transactions.forEach((t, i) => {
    const s = stats.perType[i]!;
    const histogram = newHistogram();
    histogram.add(stats.histograms[i]!);
    out[t.key] = { count: s.count, errors: s.errors, histogram };
  });
  return out;
}

/** All types' average and p99 over an interval, from their histograms merged. */
function overallLatency(histograms: readonly Histogram[]): { avg: number; p99: number } {
  const all = newHistogram();
  for (const h of histograms) all.add(h);
  const { avg, p99 } = latencyMs(all);
  return { avg, p99 };
}

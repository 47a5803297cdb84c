/**
 * The tail of a device's latency over the measured window, from its per-second averages.
 *
 * Each second's average latency stands for the I/Os completed in it, so a percentile weighs each
 * second by its I/O count: a second with one slow write on an idle disk is one I/O, not as much of
 * the tail as a second of ten thousand. A p99 is only said when the sample supports one: at least
 * MIN_SECONDS_FOR_P99 seconds with I/O, and the 99th percentile of the I/Os falling below the
 * slowest second. Otherwise the nearest-rank "p99" would be the slowest second itself (on any window
 * of under 100 seconds, or where that second alone holds 1% of the I/Os), so the figure given is
 * the maximum, and named so.
 */
import { round } from './figures.js';

/** One second's average latency and how many I/Os it is the average of. */
export interface LatencySecond {
  ms: number;
  ios: number;
}

/**
 * Below 100 samples the nearest rank of p99 is the last one: the maximum. 100 seconds is the
 * fewest for which a 99th percentile is not the maximum by construction.
 */
export const MIN_SECONDS_FOR_P99 = 100;

export interface LatencyTail {
  /** I/O-weighted median of the per-second latencies (ms); null when no second had I/O. */
  p50: number | null;
  /** I/O-weighted 99th percentile (ms); null when no second had I/O or too few to support one. */
  p99: number | null;
  /** The slowest second's latency (ms); null when no second had I/O. */
  max: number | null;
  /** Seconds with I/O that the figures rest on. */
  seconds: number;
}

export function latencyTail(seconds: readonly LatencySecond[]): LatencyTail {
  const sample = seconds.filter((s) => s.ios > 0).sort((a, b) => a.ms - b.ms);
  if (sample.length === 0) return { p50: null, p99: null, max: null, seconds: 0 };
  const last = sample.length - 1;
  const p99Rank = weightedRank(sample, 99);
  return {
    p50: round(sample[weightedRank(sample, 50)]!.ms, 3),
    p99: sample.length >= MIN_SECONDS_FOR_P99 && p99Rank < last ? round(sample[p99Rank]!.ms, 3) : null,
    max: round(sample[last]!.ms, 3),
    seconds: sample.length,
  };
}

/**
 * The index in `sorted` (ascending latency) of the weighted nearest-rank percentile: the first
 * second at which the I/Os so far reach p% of all of them.
 */
function weightedRank(sorted: readonly LatencySecond[], p: number): number {
  const total = sorted.reduce((sum, s) => sum + s.ios, 0);
  const target = (p / 100) * total;
  let cumulative = 0;
  for (let i = 0; i < sorted.length; i++) {
    cumulative += sorted[i]!.ios;
    if (cumulative >= target) return i;
  }
  return sorted.length - 1;
}

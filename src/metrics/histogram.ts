import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** Response times are recorded in microseconds, from 1 µs to one hour, at 3 significant digits. */
export function newHistogram(): Histogram {
  return hdr.build({
    bitBucketSize: 32,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

export interface LatencyMs {
  avg: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/**
 * `h.mean`, the same number by the same sums in the same order, without hdr's recorded-values
 * iterator: that builds an object per non-empty bucket and recomputes each bucket's value range
 * several times over, milliseconds per histogram, taken per type on every interval of a run.
 */
export function meanOf(h: Histogram): number {
  if (!(h instanceof hdr.JsHistogram)) return h.mean;
  const total = h.totalCount;
  if (total === 0) return 0;
  let seen = 0;
  let sum = 0;
  for (let i = 0; i < h.countsArrayLength && seen < total; i++) {
    const count = h.getCountAtIndex(i);
    if (count === 0) continue;
    seen += count;
    sum += h.medianEquivalentValue(h.highestEquivalentValue(h.valueFromIndex(i))) * count;
  }
  return sum / total;
}

/** Summary in milliseconds (all zeros for an empty histogram). */
export function latencyMs(h: Histogram): LatencyMs {
  if (h.totalCount === 0) return { avg: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  // HDR reports a bucket's upper edge, which can exceed the largest value recorded.
  const at = (p: number): number => round3(Math.min(h.getValueAtPercentile(p), h.maxValue) / 1000);
  return {
    avg: round3(meanOf(h) / 1000),
    p50: at(50),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    max: round3(h.maxValue / 1000),
  };
}

export function recordUs(h: Histogram, us: number): void {
  const value = us < 1 ? 1 : us > 3_600_000_000 ? 3_600_000_000 : Math.round(us);
  if (h instanceof hdr.JsHistogram && h.unitMagnitude === 0) recordWhole(h, value);
  else h.recordValue(value);
}

/**
 * hdr's `recordValue` of a whole number of at most 32 bits in a histogram with a unit of 1, with
 * its counts index found by integer arithmetic: hdr finds it with a log2 and two powers, most of
 * what a record costs, and the engine records three values per transaction. The index is hdr's
 * own (`countsArrayIndex`): bucket max(⌊log2 v⌋ - subBucketHalfCountMagnitude, 0), sub-bucket
 * v >> bucket, at bucket × subBucketHalfCount + sub-bucket.
 */
function recordWhole(h: hdr.JsHistogram, value: number): void {
  const bucket = Math.max(31 - Math.clz32(value) - h.subBucketHalfCountMagnitude, 0);
  const index = bucket * h.subBucketHalfCount + (value >>> bucket);
  // Past the counts (not for the engine's values, within newHistogram's range): hdr's own way.
  if (index >= h.countsArrayLength) return h.recordValue(value);
  h.incrementCountAtIndex(index);
  h.updateMinAndMax(value);
  h.incrementTotalCount();
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(encoded: string): Histogram {
  return hdr.decodeFromCompressedBase64(encoded, 32, false);
}

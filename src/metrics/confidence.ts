/**
 * Confidence intervals for the headline figures: Student's t interval of a mean, and the batch
 * means method for a time series whose successive values are correlated (a run's intervals).
 * Pure, so the arithmetic is unit-tested.
 *
 * Batch means (Law & Kelton, "Simulation Modeling and Analysis", ch. 9.5): a run's per-interval
 * figures are not independent (a checkpoint or a slow second spans neighbouring intervals), so the
 * plain standard error of their mean is too small. Adjacent intervals are grouped into batches,
 * doubling the batch length until the lag-1 autocorrelation of the batch means is small; the
 * batch means are then treated as independent and a t interval is taken over them. The price is
 * fewer degrees of freedom, so a short window gets an honest, wide interval.
 */

/** Two-sided 95% quantiles of Student's t distribution, t(0.975, df) for df = 1…30. */
const T975: readonly number[] = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** t(0.975, df): the table up to 30, then the Cornish-Fisher expansion (within 0.001 of the exact value). */
export function tQuantile975(df: number): number {
  if (!(df >= 1)) return Number.POSITIVE_INFINITY;
  const d = Math.floor(df);
  if (d <= T975.length) return T975[d - 1]!;
  const z = 1.959964;
  const z3 = z ** 3;
  const z5 = z ** 5;
  return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d);
}

/** A mean and the half width of its 95% confidence interval: the figure is `mean ± halfWidth`. */
export interface Interval95 {
  mean: number;
  /** null when it cannot be estimated (fewer than two values). */
  halfWidth: number | null;
  /** How many (nearly) independent values the interval rests on. */
  n: number;
}

export function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length > 0 ? sum / values.length : Number.NaN;
}

/** Sample variance (n − 1 in the denominator); NaN below two values. */
export function variance(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) ** 2;
  return ss / (values.length - 1);
}

/** Student's t 95% interval of the mean of independent values (e.g. one figure over `--repeat` runs). */
export function meanInterval(values: readonly number[]): Interval95 {
  const n = values.length;
  const m = mean(values);
  if (n < 2) return { mean: m, halfWidth: null, n };
  return { mean: m, halfWidth: tQuantile975(n - 1) * Math.sqrt(variance(values) / n), n };
}

/** Lag-1 autocorrelation of a series; 0 for a constant or too-short series. */
export function lag1Autocorrelation(values: readonly number[]): number {
  const n = values.length;
  if (n < 3) return 0;
  const m = mean(values);
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const d = values[i]! - m;
    den += d * d;
    if (i + 1 < n) num += d * (values[i + 1]! - m);
  }
  return den > 0 ? num / den : 0;
}

/** Means of consecutive batches of `size` values; a last, incomplete batch is left out. */
export function batchMeansOf(values: readonly number[], size: number): number[] {
  const out: number[] = [];
  for (let start = 0; start + size <= values.length; start += size) {
    out.push(mean(values.slice(start, start + size)));
  }
  return out;
}

export interface BatchMeansInterval extends Interval95 {
  /** Intervals per batch that was chosen. */
  batchSize: number;
  /** Lag-1 autocorrelation of the chosen batch means. */
  lag1: number;
}

/** Below this lag-1 autocorrelation, batch means are taken as nearly independent. */
export const INDEPENDENT_LAG1 = 0.2;
/** Fewest batches an interval is taken over: fewer leaves too few degrees of freedom to mean much. */
export const MIN_BATCHES = 5;

/**
 * The 95% interval of a series' mean by batch means: the batch size doubles from one interval
 * while the batch means' lag-1 autocorrelation is at or above {@link INDEPENDENT_LAG1} and at
 * least {@link MIN_BATCHES} batches remain. `mean` is the mean of every value, not only of the
 * whole batches. halfWidth is null below MIN_BATCHES values: too few to say anything.
 */
export function batchMeansInterval(values: readonly number[]): BatchMeansInterval {
  const overall = mean(values);
  if (values.length < MIN_BATCHES) {
    return { mean: overall, halfWidth: null, n: values.length, batchSize: 1, lag1: 0 };
  }
  let size = 1;
  let batches = batchMeansOf(values, size);
  let lag1 = lag1Autocorrelation(batches);
  while (lag1 >= INDEPENDENT_LAG1 && Math.floor(values.length / (size * 2)) >= MIN_BATCHES) {
    size *= 2;
    batches = batchMeansOf(values, size);
    lag1 = lag1Autocorrelation(batches);
  }
  const k = batches.length;
  const halfWidth = tQuantile975(k - 1) * Math.sqrt(variance(batches) / k);
  return { mean: overall, halfWidth, n: k, batchSize: size, lag1 };
}

/**
 * What a run's New-Order rate may be called: the one place that decides whether a figure is tpmC.
 *
 * TPC-C's tpmC is New-Orders per minute under the spec's keying and think times (think-scale 1)
 * and a mix that meets the spec's minimums. Any other run measures the same count per minute, but
 * calling it tpmC would claim far more than it is: an unpaced run on 4 warehouses can show 50,000
 * New-Orders a minute where a paced one tops out near 12.86 per warehouse (HammerDB says NOPM for
 * the same reason). run.json keeps the field `tpmC` for every run; only the words people read change.
 */

/** The two things that make a New-Order rate tpmC; a missing field means unknown (not paced) or false. */
export interface RateConditions {
  thinkScale?: number | undefined;
  /** The user accepted a mix below the spec's minimums (`--allow-nonstandard-mix`). */
  nonstandardMix?: boolean | undefined;
}

/** Keying and think times as the spec has them. */
export function isPaced(c: RateConditions): boolean {
  return c.thinkScale === 1;
}

/** The figure is tpmC: paced, and the mix meets the spec's minimums. */
export function countsAsTpmC(c: RateConditions): boolean {
  return isPaced(c) && c.nonstandardMix !== true;
}

/** `tpmC`, or `New-Orders/min (unpaced)`, `(non-standard mix)` or both: what the figure is. */
export function newOrderRateLabel(c: RateConditions): string {
  if (countsAsTpmC(c)) return 'tpmC';
  const why = [isPaced(c) ? '' : 'unpaced', c.nonstandardMix === true ? 'non-standard mix' : ''];
  return `New-Orders/min (${why.filter(Boolean).join(', ')})`;
}

/** Every label newOrderRateLabel gives, tpmC first: the order of their columns in a table. */
export const NEW_ORDER_RATE_LABELS: readonly string[] = [
  { thinkScale: 1 },
  { thinkScale: 0 },
  { thinkScale: 1, nonstandardMix: true },
  { thinkScale: 0, nonstandardMix: true },
].map(newOrderRateLabel);

/** One label for figures from runs that may differ: theirs when they agree, else the plain name. */
export function commonRateLabel(conditions: readonly RateConditions[]): string {
  const labels = new Set(conditions.map(newOrderRateLabel));
  return labels.size === 1 ? [...labels][0]! : 'New-Orders/min';
}

/** `completed`, or `completed, non-standard mix`: a run's status with the mark every report shows. */
export function statusWithMix(status: string, c: RateConditions): string {
  return c.nonstandardMix === true ? `${status}, non-standard mix` : status;
}

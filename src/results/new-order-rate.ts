/**
 * What a run's New-Order rate may be called: the one place that decides whether a figure is tpmC.
 *
 * TPC-C's tpmC is New-Orders per minute under the spec's keying and think times (think-scale 1)
 * and a mix that meets the spec's minimums. Any other run measures the same count per minute, but
 * calling it tpmC would claim far more than it is: an unpaced run on 4 warehouses can show 50,000
 * New-Orders a minute where a paced one tops out near 12.86 per warehouse (HammerDB says NOPM for
 * the same reason). A run at a scaled think time (`--think-scale 0.25`) is paced, but at a quarter
 * of the spec's waits, so it is named so: neither tpmC nor unpaced. run.json keeps the field `tpmC`
 * for every run; only the words people read change.
 */

/** The two things that make a New-Order rate tpmC; a missing field means unknown (never tpmC) or false. */
export interface RateConditions {
  thinkScale?: number | undefined;
  /** The user accepted a mix below the spec's minimums (`--allow-nonstandard-mix`). */
  nonstandardMix?: boolean | undefined;
}

/** The figure is tpmC: the spec's keying and think times, and a mix meeting the spec's minimums. */
export function countsAsTpmC(c: RateConditions): boolean {
  return c.thinkScale === 1 && c.nonstandardMix !== true;
}

/** How the terminals waited, in words: `` (the spec's times), `paced ×0.25`, `unpaced`. */
function pacingWords(thinkScale: number | undefined): string {
  if (thinkScale === undefined) return 'pacing not recorded';
  if (thinkScale === 1) return '';
  return thinkScale === 0 ? 'unpaced' : `paced ×${thinkScale}`;
}

/**
 * A spec's figure as it may be called under these conditions: `specLabel` (tpmC) when it is one,
 * else its unit and why not: `New-Orders/min (paced ×0.25)`, `(unpaced)`, `(non-standard mix)`.
 */
export function qualifiedRateLabel(specLabel: string, unit: string, c: RateConditions): string {
  if (countsAsTpmC(c)) return specLabel;
  const why = [pacingWords(c.thinkScale), c.nonstandardMix === true ? 'non-standard mix' : ''];
  return `${unit} (${why.filter(Boolean).join(', ')})`;
}

/** `tpmC`, or `New-Orders/min (paced ×0.25)`, `(unpaced)`, `(non-standard mix)`: what the figure is. */
export function newOrderRateLabel(c: RateConditions): string {
  return qualifiedRateLabel('tpmC', 'New-Orders/min', c);
}

/**
 * The distinct labels of these conditions in the order of their columns in a table: tpmC first,
 * then paced at scaled times (the longest waits first), then unpaced, then the same with a
 * non-standard mix.
 */
export function rateLabelsInOrder(conditions: readonly RateConditions[]): string[] {
  const rank = (c: RateConditions): [number, number] => {
    const s = c.thinkScale;
    const pacing = s === 1 ? 0 : s === undefined ? 3 : s === 0 ? 2 : 1 + 1 / (1 + s);
    return [c.nonstandardMix === true ? 1 : 0, pacing];
  };
  const byLabel = new Map<string, [number, number]>();
  for (const c of conditions) byLabel.set(newOrderRateLabel(c), rank(c));
  return [...byLabel].sort(([, a], [, b]) => a[0] - b[0] || a[1] - b[1]).map(([label]) => label);
}

/** One label for figures from runs that may differ: theirs when they agree, else the plain name. */
export function commonRateLabel(conditions: readonly RateConditions[]): string {
  const labels = new Set(conditions.map(newOrderRateLabel));
  return labels.size === 1 ? [...labels][0]! : 'New-Orders/min';
}

/** `completed`, or `completed, non-standard mix`: a run's status with the mark every report shows. */
export function statusWithMix(status: string, c: RateConditions): string {
  return c.nonstandardMix === true ? `${status}, non-standard mix` : status;
}

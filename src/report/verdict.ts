/**
 * Whether two runs differ beyond their noise, figure by figure, as criterion.rs and hyperfine say
 * it for micro-benchmarks: the difference with its 95% interval and a verdict.
 *
 * Each row is set against one baseline row. The difference is `row − baseline` of the window
 * figures; its half width combines the two runs' half widths (each from its own window's batch
 * means, summary.ci95) as independent errors: sqrt(h1² + h2²), the Welch-style combination without
 * Welch's degrees-of-freedom correction (each half width already carries its own t quantile). An
 * interval that holds zero is "no difference detected"; otherwise the sign and whether more is
 * better decide "faster" or "slower". A run without a half width (older run.json, too few
 * intervals) gives "n/a", never an error.
 */

export type Verdict = 'faster' | 'slower' | 'no difference detected' | 'n/a';

/** One figure of one run: the value and its 95% half width (null when unknown). */
export interface Noisy {
  value: number | null;
  halfWidth: number | null;
}

export interface Difference {
  /** row − baseline; null when either value is missing. */
  delta: number | null;
  /** The half width of the difference's 95% interval; null when either run lacks one. */
  halfWidth: number | null;
  verdict: Verdict;
}

/**
 * `higherIsFaster`: true for rates (TPS, New-Orders per minute), false for response times (a
 * lower one is faster).
 */
export function difference(row: Noisy, baseline: Noisy, higherIsFaster: boolean): Difference {
  if (row.value === null || baseline.value === null) return { delta: null, halfWidth: null, verdict: 'n/a' };
  const delta = row.value - baseline.value;
  if (row.halfWidth === null || baseline.halfWidth === null)
    return { delta, halfWidth: null, verdict: 'n/a' };
  const halfWidth = Math.sqrt(row.halfWidth ** 2 + baseline.halfWidth ** 2);
  if (Math.abs(delta) <= halfWidth) return { delta, halfWidth, verdict: 'no difference detected' };
  return { delta, halfWidth, verdict: delta > 0 === higherIsFaster ? 'faster' : 'slower' };
}

/**
 * The one line over a table whose rows differ only by noise on some figures: the figures on which
 * every row's verdict is "no difference detected" (undefined when there are none, or one row).
 */
export function noNoiseLine(
  figures: readonly { name: string; verdicts: readonly Verdict[] }[],
): string | undefined {
  const quiet = figures.filter(
    (f) => f.verdicts.length > 0 && f.verdicts.every((v) => v === 'no difference detected'),
  );
  if (quiet.length === 0) return undefined;
  const names = quiet.map((f) => f.name);
  const list =
    names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
  return `No difference beyond noise between these runs on ${list}`;
}

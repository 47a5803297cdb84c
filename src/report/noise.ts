/**
 * A figure and its noise printed together (`TPS 1,638.20 ± 41.03`), from run.json's
 * `summary.ci95` (metrics/window-noise.ts): the half width of the 95% confidence interval beside
 * the window's figure. Where the interval could not be estimated (fewer than five intervals, or a
 * run.json from before ci95) the figure stands alone, and the summary says why once.
 */
import type { FigureInterval, WindowNoise } from '../metrics/window-noise.js';

export type { FigureInterval, WindowNoise };

/** `value ± halfWidth`, each by `format`; the bare value when there is no half width. */
export function withNoise(
  value: number,
  ci: FigureInterval | null | undefined,
  format: (x: number) => string,
): string {
  const h = ci?.halfWidth;
  return h === null || h === undefined ? format(value) : `${format(value)} ± ${format(h)}`;
}

/** What the summary says once when its figures carry no ±: too few intervals (or none recorded). */
export function noiseNote(ci95: WindowNoise | undefined): string | undefined {
  if (ci95 === undefined) return undefined;
  return ci95.tps?.halfWidth === null || ci95.tps === null ? '(too few intervals for ±)' : undefined;
}

/** What the ± means, in one line under the figures. */
export function noiseLegend(ci95: WindowNoise | undefined): string | undefined {
  const tps = ci95?.tps;
  if (tps === null || tps === undefined || tps.halfWidth === null) return undefined;
  return (
    `± is the 95% confidence interval from the window's ${ci95!.intervals} intervals (batch means, ` +
    `${tps.n} batches of ${tps.batchSize}); it covers this window's noise, not run-to-run differences (--repeat)`
  );
}

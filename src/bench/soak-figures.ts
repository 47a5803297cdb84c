/**
 * The soak's arithmetic, apart from the run so that it can be tested: least-squares slopes, the
 * noise of a series (coefficient of variation), and the targets each figure is held to.
 */

/** Least-squares slope of y over x (per unit of x); 0 with fewer than two points. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.x - mx) * (p.y - my);
    den += (p.x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Standard deviation over the mean (0 for a series without spread or mean). */
export function noise(xs: readonly number[]): number {
  const m = mean(xs);
  if (xs.length < 2 || m === 0) return 0;
  const variance = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
  return Math.sqrt(variance) / Math.abs(m);
}

export interface Verdict {
  name: string;
  figure: string;
  target: string;
  pass: boolean;
}

/** Memory: MB per 10 minutes, fitted over the samples after the settling time. */
export function memoryVerdict(name: string, mbPer10Min: number, limit = 1): Verdict {
  return {
    name,
    figure: `${mbPer10Min.toFixed(2)} MB per 10 min`,
    target: `< ${limit} MB per 10 min`,
    pass: mbPer10Min < limit,
  };
}

/**
 * A series that must not drift: the fitted change over the whole span, against the series' own
 * noise (twice its spread) or `floor`, whichever is larger.
 */
export function driftVerdict(
  name: string,
  series: readonly { x: number; y: number }[],
  unit: string,
  floor: number,
): Verdict {
  const ys = series.map((p) => p.y);
  const span = series.length < 2 ? 0 : series[series.length - 1]!.x - series[0]!.x;
  const drift = slope(series) * span;
  const allowed = Math.max(floor, 2 * noise(ys) * Math.abs(mean(ys)));
  return {
    name,
    figure: `drift ${drift >= 0 ? '+' : ''}${drift.toFixed(2)} ${unit} over the run (mean ${mean(ys).toFixed(2)}, noise ${(100 * noise(ys)).toFixed(1)}%)`,
    target: `|drift| <= ${allowed.toFixed(2)} ${unit} (2 x noise, at least ${floor})`,
    pass: Math.abs(drift) <= allowed,
  };
}

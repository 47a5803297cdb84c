import type { Rng } from '../random/rng.js';

/**
 * Negative-exponential think time of clause 5.2.5.4: -ln(r) * mean, truncated at 10 * mean.
 * Returns milliseconds.
 */
export function thinkTimeMs(rng: Rng, meanMs: number): number {
  if (meanMs <= 0) return 0;
  // 1 - float() is in (0, 1], so the logarithm is finite.
  const t = -Math.log(1 - rng.float()) * meanMs;
  return t > 10 * meanMs ? 10 * meanMs : t;
}

/** Mean of the truncated distribution, for the closed-loop law N / (Z + R). */
export function truncatedThinkMeanMs(meanMs: number): number {
  // E[min(X, 10m)] for X ~ Exp(mean m) = m * (1 - e^-10).
  return meanMs * (1 - Math.exp(-10));
}

import { describe, expect, it } from 'vitest';
import { thinkTimeMs, truncatedThinkMeanMs } from '../../src/engine/pacing.js';
import { Rng } from '../../src/random/rng.js';

const DRAWS = 200_000;

function draws(seed: number, meanMs: number, n = DRAWS): Float64Array {
  const rng = new Rng(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = thinkTimeMs(rng, meanMs);
  return out;
}

describe('truncatedThinkMeanMs', () => {
  it('is mean * (1 - e^-10)', () => {
    expect(truncatedThinkMeanMs(12_000)).toBeCloseTo(12_000 * (1 - Math.exp(-10)), 9);
    expect(truncatedThinkMeanMs(12_000)).toBeCloseTo(11_999.455, 2);
    expect(truncatedThinkMeanMs(0)).toBe(0);
  });
});

describe('thinkTimeMs (clause 5.2.5.4)', () => {
  const mean = 12_000;
  const sample = draws(2024, mean);

  it('has the truncated mean over 200k draws (within 1%)', () => {
    let sum = 0;
    for (const t of sample) sum += t;
    const avg = sum / sample.length;
    // Standard error is mean / sqrt(200k), about 0.22%.
    expect(Math.abs(avg / truncatedThinkMeanMs(mean) - 1)).toBeLessThan(0.01);
  });

  it('never exceeds 10x the mean, and does reach the cap (P = e^-10 per draw)', () => {
    let max = 0;
    let capped = 0;
    for (const t of sample) {
      if (t > max) max = t;
      if (t === 10 * mean) capped++;
    }
    expect(max).toBeLessThanOrEqual(10 * mean);
    // Expected 200k * e^-10 = 9 draws at the cap.
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThan(30);
  });

  it('is never negative (nor NaN)', () => {
    for (const t of sample) {
      if (!(t >= 0)) expect.fail(`negative or NaN think time ${t}`);
    }
  });

  it('is negative-exponential: median about mean*ln2, quartiles and tail shares as the exponential', () => {
    const sorted = Float64Array.from(sample).sort();
    const quantile = (q: number): number => sorted[Math.floor(q * (sorted.length - 1))]!;
    expect(quantile(0.5) / (mean * Math.LN2)).toBeGreaterThan(0.97);
    expect(quantile(0.5) / (mean * Math.LN2)).toBeLessThan(1.03);
    // q-quantile of Exp(mean) is -mean * ln(1 - q).
    for (const q of [0.1, 0.25, 0.75, 0.9, 0.99]) {
      const expected = -mean * Math.log(1 - q);
      expect(Math.abs(quantile(q) / expected - 1)).toBeLessThan(0.05);
    }
    // P(X > mean) = e^-1 = 36.8%.
    const above = sample.filter((t) => t > mean).length / sample.length;
    expect(Math.abs(above - Math.exp(-1))).toBeLessThan(0.005);
    // Standard deviation of Exp(mean) is the mean (the cap barely changes it).
    let sum = 0;
    let sq = 0;
    for (const t of sample) {
      sum += t;
      sq += t * t;
    }
    const sd = Math.sqrt(sq / sample.length - (sum / sample.length) ** 2);
    expect(Math.abs(sd / mean - 1)).toBeLessThan(0.02);
  });

  it('scales linearly with the mean for the same random draws', () => {
    const a = draws(77, 5_000, 1000);
    const b = draws(77, 10_000, 1000);
    for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(2 * a[i]!, 6);
  });

  it('is deterministic for a fixed seed', () => {
    expect(Array.from(draws(5, 1000, 100))).toEqual(Array.from(draws(5, 1000, 100)));
  });

  it('a mean of 0 (think-scale 0) or below gives 0 and draws no random number', () => {
    const rng = new Rng(1);
    const reference = new Rng(1);
    for (let i = 0; i < 100; i++) expect(thinkTimeMs(rng, 0)).toBe(0);
    expect(thinkTimeMs(rng, -5)).toBe(0);
    // The generator was not advanced: a terminal's inputs do not depend on whether it thinks.
    expect(rng.next32()).toBe(reference.next32());
  });

  it('small means stay proportionate (1 ms mean)', () => {
    const s = draws(9, 1, 50_000);
    let sum = 0;
    let max = 0;
    for (const t of s) {
      sum += t;
      if (t > max) max = t;
    }
    expect(max).toBeLessThanOrEqual(10);
    expect(Math.abs(sum / s.length - truncatedThinkMeanMs(1))).toBeLessThan(0.02);
  });
});

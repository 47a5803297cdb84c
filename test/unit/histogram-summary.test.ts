/**
 * The interval summaries' cheaper reads of a histogram give exactly hdr's own figures: the mean
 * without its iterator, and the sum of several histograms in one reused scratch histogram.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeHistogram,
  encodeHistogram,
  latencyMs,
  meanOf,
  newHistogram,
  recordUs,
  sumInScratch,
  type Histogram,
} from '../../src/metrics/histogram.js';
import { Rng } from '../../src/random/rng.js';

/** Response times of several shapes: tight, long-tailed, with outliers of minutes, and tiny. */
function filled(rng: Rng, shape: number, n: number): Histogram {
  const h = newHistogram();
  for (let i = 0; i < n; i++) {
    const u = rng.float();
    const us =
      shape === 0
        ? 200 + 50 * u
        : shape === 1
          ? -Math.log(1 - u) * 3000
          : shape === 2
            ? u < 0.001
              ? 60_000_000 * u * 1000
              : 800 + u * 400
            : u * 3;
    recordUs(h, us);
  }
  return h;
}

describe('meanOf', () => {
  it('is exactly hdr’s mean, for histograms of every shape and size, and for decoded ones', () => {
    const rng = new Rng(7);
    for (let shape = 0; shape < 4; shape++) {
      for (const n of [1, 2, 17, 1000, 50_000]) {
        const h = filled(rng, shape, n);
        expect(meanOf(h)).toBe(h.mean);
        const decoded = decodeHistogram(encodeHistogram(h));
        expect(meanOf(decoded)).toBe(decoded.mean);
      }
    }
  });

  it('is 0 for an empty histogram, and the value itself for one value', () => {
    expect(meanOf(newHistogram())).toBe(0);
    const h = newHistogram();
    recordUs(h, 1234);
    expect(meanOf(h)).toBe(h.mean);
  });
});

describe('sumInScratch', () => {
  it('gives the figures of a fresh histogram holding them all, call after call', () => {
    const rng = new Rng(11);
    for (let round = 0; round < 5; round++) {
      const parts = [0, 1, 2, 3].map((shape) => filled(rng, shape, 200 + round * 500));
      const sum = sumInScratch(parts.slice(0, 1 + (round % 4)));
      const expected = newHistogram();
      for (const h of parts.slice(0, 1 + (round % 4))) expected.add(h);
      expect(latencyMs(sum)).toEqual(latencyMs(expected));
      expect(sum.totalCount).toBe(expected.totalCount);
      expect(sum.maxValue).toBe(expected.maxValue);
      expect(sum.minNonZeroValue).toBe(expected.minNonZeroValue);
      expect(sum.mean).toBe(expected.mean);
    }
    expect(sumInScratch([]).totalCount).toBe(0);
  });
});

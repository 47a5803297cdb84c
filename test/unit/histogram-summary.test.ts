/**
 * The interval summaries' cheaper mean of a histogram gives exactly hdr's own figure, without its
 * iterator.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeHistogram,
  encodeHistogram,
  meanOf,
  newHistogram,
  recordUs,
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

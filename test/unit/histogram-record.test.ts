/**
 * `recordUs` finds hdr's counts index by integer arithmetic: what it records is what hdr's own
 * `recordValue` records, value for value, over the whole range the engine records.
 */
import * as hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram, recordUs } from '../../src/metrics/histogram.js';
import { Rng } from '../../src/random/rng.js';

/** The value `recordUs` keeps of `us`: clamped to 1 µs … 1 hour, rounded. */
const kept = (us: number): number => (us < 1 ? 1 : us > 3_600_000_000 ? 3_600_000_000 : Math.round(us));

/** Values at and around every power of two, the range's ends, fractions and out-of-range ones. */
function edges(): number[] {
  const out = [0, -5, 0.2, 0.5, 0.7, 1, 1.49, 1.5, 2.5, 3_599_999_999.6, 3_600_000_000, 5e9, 1e12];
  for (let k = 0; k < 32; k++) for (const d of [-1, 0, 1]) out.push(2 ** k + d);
  return out;
}

function twins(values: readonly number[]): { fast: hdr.Histogram; own: hdr.Histogram } {
  const fast = newHistogram();
  const own = newHistogram();
  for (const us of values) {
    recordUs(fast, us);
    own.recordValue(kept(us));
  }
  return { fast, own };
}

function expectSame(fast: hdr.Histogram, own: hdr.Histogram): void {
  expect(fast.totalCount).toBe(own.totalCount);
  expect(fast.maxValue).toBe(own.maxValue);
  expect(fast.minNonZeroValue).toBe(own.minNonZeroValue);
  const a = fast as hdr.JsHistogram;
  const b = own as hdr.JsHistogram;
  for (let i = 0; i < b.countsArrayLength; i++) {
    if (a.getCountAtIndex(i) !== b.getCountAtIndex(i)) {
      expect.fail(
        `index ${i} (value ${b.valueFromIndex(i)}): ${a.getCountAtIndex(i)} != ${b.getCountAtIndex(i)}`,
      );
    }
  }
  expect(encodeHistogram(fast)).toBe(encodeHistogram(own));
}

describe('recordUs', () => {
  it("records every edge value where hdr's recordValue does", () => {
    const { fast, own } = twins(edges());
    expectSame(fast, own);
  });

  it("records response times of every magnitude where hdr's recordValue does", () => {
    const rng = new Rng(7);
    // Log-uniform over 1 µs … 1 h, and a bulk around a millisecond.
    const values = Array.from({ length: 200_000 }, (_, i) =>
      i % 2 === 0 ? Math.exp(rng.float() * Math.log(3.6e9)) : 800 + rng.float() * 400,
    );
    const { fast, own } = twins(values);
    expectSame(fast, own);
  });

  it('each value lands in the one bucket hdr counts it in', () => {
    for (const us of edges()) {
      const h = newHistogram();
      recordUs(h, us);
      const v = kept(us);
      expect(h.totalCount).toBe(1);
      // hdr's own index for the value holds the one count.
      expect((h as hdr.JsHistogram).getCountAtIndex((h as hdr.JsHistogram).countsArrayIndex(v))).toBe(1);
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  batchMeansInterval,
  batchMeansOf,
  lag1Autocorrelation,
  meanInterval,
  tQuantile975,
  variance,
} from '../../src/metrics/confidence.js';
import { Rng } from '../../src/random/rng.js';

describe('tQuantile975', () => {
  it('is the table value up to 30 degrees of freedom and approaches 1.96', () => {
    expect(tQuantile975(1)).toBe(12.706);
    expect(tQuantile975(9)).toBe(2.262);
    expect(tQuantile975(40)).toBeCloseTo(2.021, 3);
    expect(tQuantile975(120)).toBeCloseTo(1.98, 3);
    expect(tQuantile975(0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('meanInterval', () => {
  it('is the t interval of the mean', () => {
    const i = meanInterval([10, 12, 14]);
    expect(i.mean).toBe(12);
    expect(variance([10, 12, 14])).toBe(4);
    expect(i.halfWidth).toBeCloseTo(4.303 * Math.sqrt(4 / 3), 9);
    expect(i.n).toBe(3);
  });

  it('has no width below two values', () => {
    expect(meanInterval([5]).halfWidth).toBeNull();
  });
});

describe('batch means', () => {
  it('batches leave out an incomplete last batch', () => {
    expect(batchMeansOf([1, 2, 3, 4, 5], 2)).toEqual([1.5, 3.5]);
  });

  it('keeps single intervals for an independent series, and covers its mean', () => {
    const rng = new Rng(7);
    const values = Array.from({ length: 60 }, () => 1000 + 50 * (rng.float() - 0.5));
    const i = batchMeansInterval(values);
    expect(i.batchSize).toBe(1);
    expect(i.n).toBe(60);
    expect(Math.abs(i.mean - 1000)).toBeLessThan(i.halfWidth!);
  });

  it('grows the batches of a correlated series until their means are nearly independent', () => {
    // AR(1) with coefficient 0.8: each interval carries most of the one before (a slow checkpoint).
    const rng = new Rng(12);
    const values: number[] = [];
    let x = 0;
    for (let k = 0; k < 200; k++) {
      x = 0.8 * x + 100 * (rng.float() - 0.5);
      values.push(1000 + x);
    }
    expect(lag1Autocorrelation(values)).toBeGreaterThan(0.6);
    const i = batchMeansInterval(values);
    expect(i.batchSize).toBeGreaterThan(1);
    expect(i.lag1).toBeLessThan(0.2);
    // Wider than the naive interval that takes the 200 values as independent.
    expect(i.halfWidth!).toBeGreaterThan(meanInterval(values).halfWidth! * 1.5);
  });

  it('says nothing about fewer than five intervals', () => {
    expect(batchMeansInterval([1, 2, 3]).halfWidth).toBeNull();
  });
});

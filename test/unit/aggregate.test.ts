import { describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram, recordUs } from '../../src/metrics/histogram.js';
import { aggregate, kneeOf } from '../../src/run/aggregate.js';
import type { RunReport } from '../../src/run/tpcc-run.js';

/** A report with just the fields aggregate reads; every transaction took `ms` milliseconds. */
function report(tps: number, tpmC: number, nopm: number | null, ms: number, count: number): RunReport {
  const h = newHistogram();
  for (let i = 0; i < count; i++) recordUs(h, ms * 1000);
  return {
    summary: { tps, tpmC, nopm, tpm: 100, windowSeconds: 60, transactions: count, errors: 1 },
    histograms: { newOrder: encodeHistogram(h) },
  } as unknown as RunReport;
}

describe('aggregate', () => {
  it('sums TPS, tpmC, NOPM, TPM and errors, and the sum equals the targets added up', () => {
    const a = report(3153.44, 80_000, 79_000, 10, 100);
    const b = report(3154.37, 81_000, 80_100, 30, 300);
    const s = aggregate([a, b]);
    expect(s.tps).toBeCloseTo(3153.44 + 3154.37, 6);
    expect(s.tpmC).toBe(161_000);
    expect(s.nopm).toBe(159_100);
    expect(s.tpm).toBe(200);
    expect(s.errors).toBe(2);
    expect(s.transactions).toBe(400);
  });

  it('response time is over every transaction of every target, not an average of averages', () => {
    const s = aggregate([report(1, 1, 1, 10, 100), report(1, 1, 1, 30, 300)]);
    // (100 x 10 + 300 x 30) / 400 = 25 ms; the mean of the two means would be 20.
    expect(s.responseMs.avg).toBeCloseTo(25, 1);
    expect(s.responseMs.max).toBeCloseTo(30, 1);
  });

  it('reports the spread of TPS across targets', () => {
    const s = aggregate([report(100, 1, 1, 1, 1), report(150, 1, 1, 1, 1), report(120, 1, 1, 1, 1)]);
    expect(s.spread).toEqual({ minTps: 100, maxTps: 150, maxOverMin: 1.5 });
  });

  it('NOPM is n/a when any target could not say', () => {
    expect(aggregate([report(1, 1, null, 1, 1), report(1, 1, 5, 1, 1)]).nopm).toBeNull();
  });
});

describe('kneeOf', () => {
  it('is the last step before throughput grows less than half as fast as the users', () => {
    // 1 -> 20 users: x20 users, x18 TPS (scales); 20 -> 50: x2.5 users, x1.2 TPS (does not).
    expect(
      kneeOf([
        { users: 1, tps: 10 },
        { users: 20, tps: 180 },
        { users: 50, tps: 216 },
        { users: 100, tps: 220 },
      ]),
    ).toBe(20);
  });

  it('is undefined while every step still scales', () => {
    expect(
      kneeOf([
        { users: 1, tps: 10 },
        { users: 2, tps: 19 },
        { users: 4, tps: 36 },
      ]),
    ).toBeUndefined();
  });
});

/**
 * Merging worker threads' figures (engine/merge.ts): exact sums, histograms added so percentiles
 * come from the whole sample, drain reports and outages combined; and how many workers a run gets.
 */
import { describe, expect, it } from 'vitest';
import type { DrainReport, EngineResult, TypeStats } from '../../src/engine/engine-result.js';
import { mergeDrain } from '../../src/engine/drain.js';
import {
  mergeIntervalParts,
  mergeOutages,
  mergeResults,
  mergeStatus,
  sumCounters,
} from '../../src/engine/merge.js';
import type { Outage } from '../../src/engine/outages.js';
import { emptyErrorCounts } from '../../src/engine/types.js';
import { decodeInterval, decodeResult, encodeResult } from '../../src/engine/wire.js';
import { encodeHistogram, newHistogram, recordUs, type Histogram } from '../../src/metrics/histogram.js';
import { chooseWorkers } from '../../src/run/workers.js';

function histogramOf(values: readonly number[]): Histogram {
  const h = newHistogram();
  for (const v of values) recordUs(h, v);
  return h;
}

const range = (from: number, to: number, step = 1): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
};

describe('mergeIntervalParts', () => {
  it('adds counts and histograms; percentiles are those of all the values together, not averages', () => {
    const fast = range(100, 1_000, 10); // 91 values, 0.1–1 ms
    const slow = range(50_000, 60_000, 1_000); // 11 values, 50–60 ms
    const parts = [
      {
        perType: [
          { count: fast.length, errors: 1 },
          { count: 0, errors: 0 },
        ],
        histograms: [histogramOf(fast), newHistogram()],
        errorsByClass: { ...emptyErrorCounts(), conflict: 1 },
      },
      {
        perType: [
          { count: slow.length, errors: 2 },
          { count: 3, errors: 0 },
        ],
        histograms: [histogramOf(slow), histogramOf([5, 6, 7])],
        errorsByClass: { ...emptyErrorCounts(), connection: 2 },
      },
    ];
    const merged = mergeIntervalParts(parts, 2);
    const whole = histogramOf([...fast, ...slow]);
    expect(merged.perType[0]!.count).toBe(102);
    expect(merged.perType[0]!.errors).toBe(3);
    expect(merged.histograms[0]!.totalCount).toBe(102);
    expect(merged.perType[0]!.p99Ms).toBe(Math.min(whole.getValueAtPercentile(99), whole.maxValue) / 1000);
    expect(merged.perType[0]!.p50Ms).toBe(Math.min(whole.getValueAtPercentile(50), whole.maxValue) / 1000);
    // The slow part's tail sets p99: averaging the two parts' p99 would halve it.
    expect(merged.perType[0]!.p99Ms).toBeGreaterThan(50);
    expect(merged.perType[1]!.count).toBe(3);
    expect(merged.errorsByClass).toEqual({ ...emptyErrorCounts(), conflict: 1, connection: 2 });
  });

  it('survives the trip through the wire encoding', () => {
    const h = histogramOf([1, 2, 3, 1000]);
    const part = decodeInterval({
      perType: [{ count: 4, errors: 0 }],
      histograms: [encodeHistogram(h)],
      errorsByClass: emptyErrorCounts(),
    });
    expect(part.histograms[0]!.totalCount).toBe(4);
    expect(part.histograms[0]!.maxValue).toBe(h.maxValue);
  });
});

describe('mergeDrain', () => {
  it('sums what was left, keeps the oldest age and names the terminals of both', () => {
    const a: DrainReport = {
      limitMs: 30_000,
      queued: 2,
      inFlight: 1,
      abandoned: 3,
      oldestAgeMs: 40,
      terminals: [7],
    };
    const b: DrainReport = {
      limitMs: 30_000,
      queued: 1,
      inFlight: 2,
      abandoned: 3,
      oldestAgeMs: 90,
      terminals: [12, 3],
    };
    const none: DrainReport = { limitMs: 30_000, queued: 0, inFlight: 0, abandoned: 0, oldestAgeMs: null };
    expect(mergeDrain([a, b, none])).toEqual({
      limitMs: 30_000,
      queued: 3,
      inFlight: 3,
      abandoned: 6,
      oldestAgeMs: 90,
      terminals: [3, 7, 12],
    });
    expect(mergeDrain([none, none])).toEqual(none);
  });
});

function outage(startS: number, endS: number | null, failed: number, durationS?: number): Outage {
  return {
    startS,
    endS,
    durationS: durationS ?? (endS === null ? 1 : endS - startS),
    startedAt: new Date(1_700_000_000_000 + startS * 1000).toISOString(),
    cause: 'connection',
    failed,
    failedByClass: { ...emptyErrorCounts(), connection: failed },
    recovered: endS !== null,
  };
}

describe('mergeOutages', () => {
  it('joins overlapping stretches across workers and keeps separate ones apart', () => {
    const merged = mergeOutages([
      { outages: [outage(10, 13, 4), outage(30, 31, 1)], offsetS: 0 },
      // This worker's clock started 0.5 s later: its 11.5–14.5 is the run's 12–15.
      { outages: [outage(11.5, 14.5, 6)], offsetS: 0.5 },
    ]);
    expect(merged).toHaveLength(2);
    expect(merged[0]).toMatchObject({ startS: 10, endS: 15, durationS: 5, failed: 10, recovered: true });
    expect(merged[0]!.failedByClass.connection).toBe(10);
    expect(merged[1]).toMatchObject({ startS: 30, endS: 31, failed: 1 });
  });

  it('an outage one worker never recovered from leaves the joined one unrecovered', () => {
    const merged = mergeOutages([
      { outages: [outage(5, 8, 2)], offsetS: 0 },
      { outages: [outage(6, null, 3, 20)], offsetS: 0 },
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ startS: 5, endS: null, durationS: 21, failed: 5, recovered: false });
  });
});

describe('mergeStatus, sumCounters', () => {
  it('the gravest ending wins', () => {
    expect(mergeStatus(['completed', 'completed'])).toBe('completed');
    expect(mergeStatus(['completed', 'incomplete-drain'])).toBe('incomplete-drain');
    expect(mergeStatus(['interrupted', 'incomplete-drain'])).toBe('interrupted');
    expect(mergeStatus(['interrupted', 'failed'])).toBe('failed');
  });

  it('sums by key', () => {
    expect(
      sumCounters(
        [
          { a: 1, b: 2 },
          { a: 3, b: 4 },
        ],
        { a: 0, b: 0 },
      ),
    ).toEqual({ a: 4, b: 6 });
  });
});

describe('mergeResults', () => {
  const typeStats = (values: number[], errors: number): TypeStats => ({
    count: values.length,
    errors,
    retries: 1,
    histogram: histogramOf(values),
  });
  const result = (values: number[], lateness: number[], status: EngineResult<{ n: number }>['status']) =>
    ({
      status,
      windowSeconds: 9.9,
      measured: true,
      perType: [typeStats(values, 1)],
      errorsByClass: { ...emptyErrorCounts(), other: 1 },
      counters: { n: values.length },
      lateness: histogramOf(lateness),
      drain: { limitMs: 1000, queued: 1, inFlight: 0, abandoned: 1, oldestAgeMs: 5 },
      edges: { dueBefore: 2, drained: values.length },
      outages: [],
      failure: status === 'failed' ? 'lost the database connection' : undefined,
    }) satisfies EngineResult<{ n: number }>;

  it("is the sum of the parts, over the coordinator's window, after the wire", () => {
    const parts = [result([100, 200, 300], [10, 20], 'completed'), result([400, 500], [30], 'failed')].map(
      (r) => decodeResult(encodeResult(r)),
    );
    const merged = mergeResults(parts, 1, { n: 0 }, 10, [0, 0]);
    expect(merged.status).toBe('failed');
    expect(merged.failure).toBe('lost the database connection');
    expect(merged.windowSeconds).toBe(10);
    expect(merged.perType[0]).toMatchObject({ count: 5, errors: 2, retries: 2 });
    expect(merged.perType[0]!.histogram.totalCount).toBe(5);
    expect(merged.perType[0]!.histogram.maxValue).toBe(histogramOf([500]).maxValue);
    expect(merged.lateness.totalCount).toBe(3);
    expect(merged.counters).toEqual({ n: 5 });
    expect(merged.errorsByClass.other).toBe(2);
    expect(merged.drain.queued).toBe(2);
    expect(merged.edges).toEqual({ dueBefore: 4, drained: 5 });
  });
});

describe('chooseWorkers', () => {
  it('one worker for small runs, one per 1,000 terminals up to the cores for big ones', () => {
    expect(chooseWorkers(undefined, 10, true, 8).workers).toBe(1);
    expect(chooseWorkers(undefined, 999, true, 8).workers).toBe(1);
    expect(chooseWorkers(undefined, 2_500, true, 8).workers).toBe(2);
    expect(chooseWorkers(undefined, 100_000, true, 8).workers).toBe(8);
    expect(chooseWorkers(undefined, 100_000, false, 8).workers).toBe(1);
  });

  it('as asked, never more than the terminals; above the cores with a warning', () => {
    expect(chooseWorkers(3, 10, true, 8)).toEqual({ workers: 3 });
    expect(chooseWorkers(6, 4, true, 8).workers).toBe(4);
    const over = chooseWorkers(4, 100, true, 2);
    expect(over.workers).toBe(4);
    expect(over.warning).toMatch(/more than the 2 cores/);
  });

  it('refuses more than one for a database with one writer', () => {
    expect(() => chooseWorkers(2, 10, false, 8)).toThrow(/one writer at a time.*drop --workers/);
    expect(chooseWorkers(1, 10, false, 8).workers).toBe(1);
  });
});

describe('a slice whose histogram does not hold its transactions', () => {
  it('fails the merge, naming the slice, rather than leave its response times out of the percentiles', () => {
    const whole = {
      perType: [{ count: 3, errors: 0 }],
      histograms: [histogramOf([5, 6, 7])],
      errorsByClass: emptyErrorCounts(),
    };
    const short = { ...whole, histograms: [histogramOf([5])] };
    const missing = { ...whole, histograms: [] };
    expect(() => mergeIntervalParts([whole, short], 1)).toThrow(
      /slice 2's histogram of transaction type 1 holds 1 response times for 3 transactions/,
    );
    expect(() => mergeIntervalParts([missing, whole], 1)).toThrow(
      /slice 1's .* holds 0 response times for 3/,
    );
    expect(mergeIntervalParts([whole, whole], 1).histograms[0]!.totalCount).toBe(6);
  });

  it('in the results too', () => {
    const result = (count: number, values: number[]): EngineResult<Record<string, number>> => ({
      status: 'completed',
      windowSeconds: 1,
      measured: true,
      edges: { dueBefore: 0, drained: 0 },
      perType: [{ count, errors: 0, retries: 0, histogram: histogramOf(values) }],
      errorsByClass: emptyErrorCounts(),
      counters: {},
      lateness: newHistogram(),
      drain: { limitMs: 1, queued: 0, inFlight: 0, abandoned: 0, oldestAgeMs: null },
      outages: [],
      failure: undefined,
    });
    expect(() => mergeResults([result(2, [5, 6]), result(2, [])], 1, {}, 1, [0, 0])).toThrow(
      /slice 2's histogram of transaction type 1 holds 0 response times for 2 transactions/,
    );
    expect(mergeResults([result(2, [5, 6]), result(1, [7])], 1, {}, 1, [0, 0]).perType[0]!.count).toBe(3);
  });
});

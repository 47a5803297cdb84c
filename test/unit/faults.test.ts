/** The reconnect backoff policy and the outage bookkeeping, as plain functions of their inputs. */
import { describe, expect, it } from 'vitest';
import { OutageTracker, SERVER_SETTLE_MS } from '../../src/engine/outages.js';
import { formatOutage } from '../../src/report/outage-line.js';
import { backoffMs, DEFAULT_BACKOFF } from '../../src/workloads/backoff.js';

describe('backoffMs', () => {
  const policy = { baseMs: 100, capMs: 5000 };

  it('grows exponentially between half and all of base * 2^attempt', () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const full = 100 * 2 ** attempt;
      expect(backoffMs(attempt, policy, 0)).toBe(full / 2);
      expect(backoffMs(attempt, policy, 0.999999)).toBeCloseTo(full, 0);
      expect(backoffMs(attempt, policy, 0.5)).toBe(full * 0.75);
    }
  });

  it('never exceeds the cap, however many attempts', () => {
    for (const attempt of [6, 10, 50, 1000, Number.MAX_SAFE_INTEGER]) {
      expect(backoffMs(attempt, policy, 0.999999)).toBeLessThanOrEqual(5000);
      expect(backoffMs(attempt, policy, 0)).toBe(2500);
    }
  });

  it('spreads slots that lose their connection together (jitter)', () => {
    const delays = [0.1, 0.4, 0.7, 0.9].map((r) => backoffMs(3, DEFAULT_BACKOFF, r));
    expect(new Set(delays).size).toBe(4);
  });
});

describe('OutageTracker', () => {
  const origin = 1000;
  const wall = Date.parse('2026-01-01T00:00:00.000Z');

  it('opens at the first connection or timeout failure and closes at the next success', () => {
    const t = new OutageTracker(origin, wall);
    t.failure(origin + 500, 'deadlock'); // not an outage
    expect(t.open).toBe(false);
    t.success(origin + 600);
    t.failure(origin + 2000, 'connection');
    t.failure(origin + 2100, 'connection');
    t.failure(origin + 2200, 'timeout');
    t.failure(origin + 2300, 'deadlock'); // during an outage every failure counts
    expect(t.open).toBe(true);
    t.success(origin + 14_400);
    expect(t.open).toBe(false);
    t.success(origin + 15_000);
    const [o, ...rest] = t.outages(origin + 20_000);
    expect(rest).toEqual([]);
    expect(o).toMatchObject({
      startS: 2,
      endS: 14.4,
      durationS: 12.4,
      startedAt: '2026-01-01T00:00:02.000Z',
      cause: 'connection',
      failed: 4,
      recovered: true,
    });
    expect(o!.failedByClass).toMatchObject({ connection: 2, timeout: 1, deadlock: 1, other: 0 });
  });

  it('keeps several outages apart, and reports one still open as not recovered up to now', () => {
    const t = new OutageTracker(origin, wall);
    t.failure(origin + 1000, 'timeout');
    t.success(origin + 3000);
    t.failure(origin + 5000, 'connection');
    const list = t.outages(origin + 8500);
    expect(list.map((o) => [o.startS, o.endS, o.durationS, o.cause, o.recovered])).toEqual([
      [1, 3, 2, 'timeout', true],
      [5, null, 3.5, 'connection', false],
    ]);
  });

  it('tells each outage as it opens and as it ends, as its list has it; one still open has no end', () => {
    const told: [string, number, number | null, number][] = [];
    const t = new OutageTracker(origin, wall, (edge, o) => told.push([edge, o.startS, o.endS, o.failed]));
    t.failure(origin + 1000, 'timeout');
    t.failure(origin + 1500, 'deadlock');
    expect(told).toEqual([['start', 1, null, 1]]);
    t.success(origin + 3000);
    // A disk-full server: over only once its successes have lasted SERVER_SETTLE_MS.
    t.failure(origin + 4000, 'other', undefined, true);
    t.success(origin + 5000);
    expect(told).toHaveLength(3);
    t.success(origin + 5000 + SERVER_SETTLE_MS);
    t.failure(origin + 30_000, 'connection');
    const list = t.outages(origin + 31_000);
    expect(told).toEqual([
      ['start', 1, null, 1],
      ['end', 1, 3, 2],
      ['start', 4, null, 1],
      ['end', 4, 5, 1],
      ['start', 30, null, 1],
    ]);
    expect(list.map((o) => [o.startS, o.endS, o.failed])).toEqual([
      [1, 3, 2],
      [4, 5, 1],
      [30, null, 1],
    ]);
  });

  it('reads as one line in the text report', () => {
    const t = new OutageTracker(origin, wall);
    t.failure(origin + 2_467_000, 'connection');
    for (let i = 1; i < 3118; i++) t.failure(origin + 2_467_000 + i, 'connection');
    t.success(origin + 2_479_400);
    expect(formatOutage('vm2', t.outages(origin + 2_500_000)[0]!)).toBe(
      'target vm2: database unreachable 12.4 s at 00:41:07, 3,118 transactions failed, reconnected',
    );
  });
});

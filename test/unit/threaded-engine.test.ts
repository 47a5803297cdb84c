/**
 * The coordinator over worker threads (run/threaded-engine.ts) with the bench's stand-in workers
 * (no database): the phases a run path sees, merged intervals that add up to the workers', the
 * window the coordinator kept, and stopping before and during a run. Built code (dist/, from
 * `npm run build`): a worker thread starts from a compiled module.
 */
import { describe, expect, it } from 'vitest';
import type { IntervalStats, Phase } from '../../dist/engine/engine-result.js';
import { RunWorkers } from '../../dist/run/threaded-engine.js';
import { TPCC_DECK, TPCC_TRANSACTIONS } from '../../dist/workloads/tpcc/profile.js';

const STAND_IN = new URL('../../dist/bench/stand-in-worker.js', import.meta.url);

const config = (overrides: Partial<{ warmupMs: number; durationMs: number; intervalMs: number }> = {}) => ({
  transactions: TPCC_TRANSACTIONS,
  deck: TPCC_DECK,
  thinkScale: 0,
  warmupMs: 200,
  durationMs: 600,
  rampMs: 0,
  intervalMs: 150,
  drainMs: 2_000,
  seed: 3,
  ...overrides,
});

async function withWorkers<T>(workers: number, body: (pool: RunWorkers) => Promise<T>): Promise<T> {
  const pool = await RunWorkers.start({ totalTerminals: 10, serviceMs: 2, cpuUs: 0 }, workers, 6, STAND_IN);
  try {
    return await body(pool);
  } finally {
    await pool.close();
  }
}

describe('ThreadedEngine over stand-in workers', () => {
  it('slices the terminals and connections, and runs warm-up, window and drain as one engine', async () => {
    await withWorkers(2, async (pool) => {
      expect(pool.slices).toEqual([
        { first: 0, count: 5, connections: 3 },
        { first: 5, count: 5, connections: 3 },
      ]);
      const engine = pool.engine(config(), () => ({}));
      const phases: Phase[] = [];
      // The histograms are valid only during the event: keep their counts.
      const intervals: { phase: Phase; seconds: number; counts: number[]; held: number[] }[] = [];
      engine.on('phase', (p) => phases.push(p));
      engine.on('interval', (s: IntervalStats) =>
        intervals.push({
          phase: s.phase,
          seconds: s.seconds,
          counts: s.perType.map((t) => t.count),
          held: s.histograms.map((h) => h.totalCount),
        }),
      );
      const result = await engine.run();
      expect(phases).toEqual(['warmup', 'measure', 'drain', 'done']);
      expect(result.status).toBe('completed');
      expect(result.windowSeconds).toBeGreaterThanOrEqual(0.59);
      const window = result.perType.reduce((a, t) => a + t.count, 0);
      expect(window).toBeGreaterThan(0);
      for (const t of result.perType) expect(t.histogram.totalCount).toBe(t.count);
      expect(pool.transactions().reduce((a, b) => a + b, 0)).toBe(window);
      // Each merged interval's histogram holds its count; the measured ones span the window.
      for (const iv of intervals) expect(iv.held).toEqual(iv.counts);
      const measured = intervals.filter((i) => i.phase === 'measure');
      expect(measured.length).toBeGreaterThanOrEqual(3);
      expect(measured.reduce((a, i) => a + i.seconds, 0)).toBeCloseTo(result.windowSeconds, 5);
      expect(intervals.map((i) => i.phase)).toContain('warmup');
    });
  });

  it('a second round reuses the workers; stop() during a round keeps what every worker measured', async () => {
    await withWorkers(2, async (pool) => {
      const first = await pool.engine(config({ warmupMs: 0, durationMs: 200 }), () => ({})).run();
      expect(first.status).toBe('completed');
      const engine = pool.engine(config({ warmupMs: 0, durationMs: 60_000 }), () => ({}));
      setTimeout(() => engine.stop('interrupted', 'interrupted by the user'), 300);
      const result = await engine.run();
      expect(result.status).toBe('interrupted');
      expect(result.windowSeconds).toBeLessThan(30);
      for (const n of pool.transactions()) expect(n).toBeGreaterThan(0);
    });
  });

  it('stop() before run() ends at once, measuring nothing', async () => {
    await withWorkers(2, async (pool) => {
      const engine = pool.engine(config(), () => ({}));
      engine.stop('interrupted');
      const result = await engine.run();
      expect(result.status).toBe('interrupted');
      expect(result.measured).toBe(false);
    });
  });
});

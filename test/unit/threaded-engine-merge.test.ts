/**
 * The coordinator over worker threads (run/threaded-engine.ts) fed its workers' messages in a
 * chosen order, through a stand-in for the threads: what each worker cut goes into the merged
 * interval of its own phase however the workers' messages interleave, so the measured intervals
 * add up to the window exactly; and the workers' outages reach its listeners as they happen,
 * joined as run.json joins them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { intervalTypeStats, type EngineResult, type Phase } from '../../src/engine/engine-result.js';
import type { Outage, OutageEdge } from '../../src/engine/outages.js';
import { emptyErrorCounts, type Counters } from '../../src/engine/types.js';
import { encodeInterval, encodeResult } from '../../src/engine/wire.js';
import { newHistogram, recordUs, type Histogram } from '../../src/metrics/histogram.js';
import type { FromRunWorker, ToRunWorker, WorkerEngineConfig } from '../../src/run/run-worker-protocol.js';
import { ThreadedEngine, type Round, type WorkerPool } from '../../src/run/threaded-engine.js';
import { TPCC_DECK, TPCC_TRANSACTIONS } from '../../src/workloads/tpcc/profile.js';

/** Two workers that do nothing of themselves: the test answers for them. */
class StandInPool implements WorkerPool {
  readonly size = 2;
  readonly received: ToRunWorker[] = [];
  attach(_round: Round): void {}
  detach(_round: Round): void {}
  send(message: ToRunWorker): void {
    this.received.push(message);
  }
  /** The sequence number of the last command of `type` sent. */
  seqOf(type: 'open' | 'tick' | 'close'): number {
    const found = this.received.filter((m) => m.type === type).pop();
    if (found === undefined || !('seq' in found)) throw new Error(`no ${type} command was sent`);
    return found.seq;
  }
}

// The window opens at once and the test closes it; an interval is cut each (fake) second.
const config: WorkerEngineConfig = {
  transactions: TPCC_TRANSACTIONS,
  deck: TPCC_DECK,
  thinkScale: 0,
  warmupMs: 0,
  durationMs: Infinity,
  rampMs: 0,
  intervalMs: 1_000,
  drainMs: 1_000,
  seed: 1,
};
const TYPES = TPCC_TRANSACTIONS.length;

function histogramOf(count: number): Histogram {
  const h = newHistogram();
  for (let i = 0; i < count; i++) recordUs(h, 1_000 + i);
  return h;
}

/** An interval a worker's engine cut in `phase`, holding `count` New-Orders. */
function interval(phase: Phase, count: number): FromRunWorker {
  const histograms = Array.from({ length: TYPES }, (_, t) => histogramOf(t === 0 ? count : 0));
  const perType = histograms.map((h) => intervalTypeStats(h.totalCount, 0, h));
  const stats = { atS: 0, phase, seconds: 1, perType, histograms, errorsByClass: emptyErrorCounts() };
  return { type: 'interval', phase, interval: encodeInterval(stats) };
}

/** A worker's result: `count` New-Orders in its window; its engine started at `startedAtWallMs`. */
function result(count: number, outages: Outage[] = [], startedAtWallMs = 0): FromRunWorker {
  const r: EngineResult<Counters> = {
    status: 'completed',
    windowSeconds: 1,
    measured: true,
    perType: Array.from({ length: TYPES }, (_, t) => {
      const n = t === 0 ? count : 0;
      return { count: n, errors: 0, retries: 0, histogram: histogramOf(n) };
    }),
    errorsByClass: emptyErrorCounts(),
    counters: {},
    lateness: newHistogram(),
    drain: { limitMs: 1_000, queued: 0, inFlight: 0, abandoned: 0, oldestAgeMs: null },
    edges: { dueBefore: 0, drained: 0 },
    outages,
  };
  return {
    type: 'result',
    result: encodeResult(r),
    startedAtWallMs,
    faults: { reconnects: 0, reconnectFailures: 0, cancelled: 0, abandoned: 0 },
    tallies: {},
  };
}

const ack = (seq: number): FromRunWorker => ({ type: 'ack', seq });

interface Seen {
  intervals: { phase: Phase; count: number }[];
  outages: { edge: OutageEdge; outage: Outage }[];
}

function watch(engine: ThreadedEngine<Counters>): Seen {
  const seen: Seen = { intervals: [], outages: [] };
  engine.on('interval', (s) =>
    seen.intervals.push({ phase: s.phase, count: s.perType.reduce((a, t) => a + t.count, 0) }),
  );
  engine.on('outage', (edge, outage) => seen.outages.push({ edge, outage }));
  return seen;
}

const countIn = (seen: Seen, phase: Phase): number =>
  seen.intervals.filter((i) => i.phase === phase).reduce((a, i) => a + i.count, 0);

// The coordinator's clock and timers: it cuts intervals on a timer and times them.
beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'],
  });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ThreadedEngine: what each worker cut lands in the interval of its phase', () => {
  it('a worker that drains and ends before the other acknowledges the close: its drain stays out of the window', async () => {
    const pool = new StandInPool();
    const engine = new ThreadedEngine<Counters>(pool, config, () => ({}));
    const seen = watch(engine);
    const running = engine.run();
    vi.advanceTimersByTime(500);
    engine.endWindow();
    const close = pool.seqOf('close');
    // Worker 1 cuts the window's last interval and acknowledges; its one transaction still
    // running ends in the drain, so its engine cuts the drain's interval and sends its result...
    engine.onMessage(0, interval('measure', 3));
    engine.onMessage(0, ack(close));
    vi.advanceTimersByTime(100);
    engine.onMessage(0, interval('drain', 1));
    engine.onMessage(0, result(3));
    // ...all before worker 2 answers the close at all.
    engine.onMessage(1, interval('measure', 2));
    engine.onMessage(1, ack(close));
    engine.onMessage(1, result(2));
    const merged = await running;
    const window = merged.perType.reduce((a, t) => a + t.count, 0);
    expect(window).toBe(5);
    expect(countIn(seen, 'measure')).toBe(window);
    expect(countIn(seen, 'drain')).toBe(1);
  });

  it('a worker that closed its own window (a lost connection): its drain waits for the drain', async () => {
    const pool = new StandInPool();
    const engine = new ThreadedEngine<Counters>(pool, config, () => ({}));
    const seen = watch(engine);
    const running = engine.run();
    vi.advanceTimersByTime(500);
    // Worker 1's engine closes its window itself, drains one transaction and ends.
    engine.onMessage(0, interval('measure', 4));
    engine.onMessage(0, interval('drain', 1));
    engine.onMessage(0, { type: 'stopped', status: 'failed' });
    const close = pool.seqOf('close');
    vi.advanceTimersByTime(100);
    engine.onMessage(0, result(4));
    engine.onMessage(0, ack(close));
    engine.onMessage(1, interval('measure', 2));
    engine.onMessage(1, ack(close));
    engine.onMessage(1, result(2));
    const merged = await running;
    const window = merged.perType.reduce((a, t) => a + t.count, 0);
    expect(window).toBe(6);
    expect(countIn(seen, 'measure')).toBe(window);
    expect(countIn(seen, 'drain')).toBe(1);
  });

  it('ticks cut while the workers answer out of step still add up to the window', async () => {
    const pool = new StandInPool();
    const engine = new ThreadedEngine<Counters>(pool, config, () => ({}));
    const seen = watch(engine);
    const running = engine.run();
    vi.advanceTimersByTime(1_000);
    const first = pool.seqOf('tick');
    vi.advanceTimersByTime(500);
    engine.endWindow();
    // Worker 1 answers both commands before worker 2 answers the first.
    const close = pool.seqOf('close');
    engine.onMessage(0, interval('measure', 2));
    engine.onMessage(0, ack(first));
    engine.onMessage(0, interval('measure', 3));
    engine.onMessage(0, ack(close));
    engine.onMessage(1, interval('measure', 1));
    engine.onMessage(1, ack(first));
    engine.onMessage(1, interval('measure', 4));
    engine.onMessage(1, ack(close));
    engine.onMessage(0, result(5));
    engine.onMessage(1, result(5));
    await running;
    expect(seen.intervals.filter((i) => i.phase === 'measure').map((i) => i.count)).toEqual([3, 7]);
  });
});

/** A lost database from `startS` to `endS` (null: still out) on a worker engine's clock. */
function outage(startS: number, endS: number | null, failed: number): Outage {
  return {
    startS,
    endS,
    durationS: endS === null ? 0 : endS - startS,
    startedAt: new Date(1_800_000_000_000 + startS * 1000).toISOString(),
    cause: 'connection',
    failed,
    failedByClass: { ...emptyErrorCounts(), connection: failed },
    recovered: endS !== null,
    error: 'ECONNRESET connection reset',
  };
}

describe('ThreadedEngine: outages as they happen', () => {
  it("the run is out from one worker's outage starting to the last one's ending, told as it goes, joined as in the result", async () => {
    const pool = new StandInPool();
    const engine = new ThreadedEngine<Counters>(pool, config, () => ({}));
    const seen = watch(engine);
    const origin = Date.now();
    const running = engine.run();
    // Worker 1's engine started 0.1 s after the coordinator, worker 2's with it.
    const at = [origin + 100, origin];
    const told = (index: number, edge: OutageEdge, o: Outage): void =>
      engine.onMessage(index, { type: 'outage', edge, outage: o, startedAtWallMs: at[index]! });
    told(0, 'start', outage(1, null, 1));
    expect(seen.outages.map((o) => [o.edge, o.outage.startS])).toEqual([['start', 1.1]]);
    told(1, 'start', outage(1.5, null, 1));
    told(0, 'end', outage(1, 2, 3));
    // Worker 2 is still cut off: the run is still out.
    expect(seen.outages).toHaveLength(1);
    told(1, 'end', outage(1.5, 3, 2));
    expect(seen.outages.map((o) => o.edge)).toEqual(['start', 'end']);
    const ended = seen.outages[1]!.outage;
    expect(ended).toMatchObject({ startS: 1.1, endS: 3, durationS: 1.9, failed: 5, recovered: true });

    vi.advanceTimersByTime(500);
    engine.endWindow();
    const close = pool.seqOf('close');
    for (const index of [0, 1]) engine.onMessage(index, ack(close));
    engine.onMessage(0, result(0, [outage(1, 2, 3)], at[0]));
    engine.onMessage(1, result(0, [outage(1.5, 3, 2)], at[1]));
    const merged = await running;
    expect(merged.outages).toEqual([ended]);
  });
});

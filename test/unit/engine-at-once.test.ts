/**
 * Handing a terminal its next transaction at once when its last one ends (think-scale 0): from the
 * callback that ended it, not on a turn of the event loop of its own, yet never starving timers
 * and never recursing through an executor that ends a transaction inside the call that started it.
 */
import { describe, expect, it } from 'vitest';
import { AT_ONCE_PER_TURN, DueQueue } from '../../src/engine/due-queue.js';
import { Engine } from '../../src/engine/engine.js';
import type { EngineConfig } from '../../src/engine/engine-config.js';
import type { Counters, ErrorClass, Executor, TerminalContext } from '../../src/engine/types.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe('DueQueue.atOnce', () => {
  it('submits at once up to AT_ONCE_PER_TURN times between two turns of the event loop, then on the next turn', async () => {
    const submitted: number[] = [];
    const queue = new DueQueue(64, (id) => submitted.push(id));
    for (const id of upTo(AT_ONCE_PER_TURN + 3)) queue.atOnce(id);
    expect(submitted).toEqual(upTo(AT_ONCE_PER_TURN));
    await nextTurn();
    expect(submitted).toEqual(upTo(AT_ONCE_PER_TURN + 3));
    // The turn gave the allowance back.
    queue.atOnce(60);
    expect(submitted.at(-1)).toBe(60);
  });

  it('does not overtake a terminal already waiting on the ready ring', async () => {
    const submitted: number[] = [];
    const queue = new DueQueue(8, (id) => submitted.push(id));
    queue.soon(5);
    queue.atOnce(6);
    expect(submitted).toEqual([]);
    await nextTurn();
    expect(submitted).toEqual([5, 6]);
  });
});

type Ok = { ok: number };

/** Starts each run below makes before its window is closed. */
const STARTS = 5 * (AT_ONCE_PER_TURN + 1);

/** How each transaction ends in the executor below, relative to the call that started it. */
type Ending = 'synchronously' | 'in a microtask' | 'on a later turn';

/**
 * A callback-route executor on one slot that records, for every start, whether it came from
 * inside the engine's `done` of the transaction before, and how deeply starts were nested.
 */
class CallbackStandIn implements Executor<Ok> {
  readonly connections = 1;
  /** Per start: whether it was made from inside the previous transaction's `done`. */
  readonly insideDone: boolean[] = [];
  depth = 0;
  maxDepth = 0;
  private inDone = false;
  /** Starts since the event loop last turned (a setImmediate ticker resets it), and the most. */
  private sinceTurn = 0;
  maxSinceTurn = 0;
  private ticking = true;
  /** Called once, on a turn of its own, after STARTS starts: the run ends then, however loaded the machine. */
  onEnough: () => void = () => undefined;

  constructor(private readonly ending: Ending) {
    const tick = (): void => {
      this.sinceTurn = 0;
      if (this.ticking) setImmediate(tick);
    };
    setImmediate(tick);
  }

  stopTicking(): void {
    this.ticking = false;
  }

  execute(): Promise<number> {
    throw new Error('the engine should use start');
  }

  start(
    _slot: number,
    _type: number,
    _terminal: TerminalContext,
    counters: Ok,
    done: (retries: number) => void,
  ): void {
    this.insideDone.push(this.inDone);
    if (this.insideDone.length === STARTS) setImmediate(this.onEnough);
    this.maxDepth = Math.max(this.maxDepth, ++this.depth);
    this.maxSinceTurn = Math.max(this.maxSinceTurn, ++this.sinceTurn);
    const end = (): void => {
      counters.ok++;
      this.inDone = true;
      try {
        done(0);
      } finally {
        this.inDone = false;
      }
    };
    try {
      // A loop that never turns would hang vitest itself: past this many, end nothing more.
      if (this.sinceTurn > 10_000) return;
      if (this.ending === 'synchronously') end();
      else if (this.ending === 'in a microtask') queueMicrotask(end);
      else setImmediate(end);
    } finally {
      this.depth--;
    }
  }

  classify(): ErrorClass {
    return 'other';
  }
}

async function run(ending: Ending): Promise<{ ex: CallbackStandIn; transactions: number }> {
  const config: EngineConfig = {
    terminals: 1,
    transactions: [{ key: 'a', name: 'A', keyingS: 0, thinkMeanS: 0 }],
    deck: [1],
    thinkScale: 0,
    warmupMs: 0,
    // Ended after STARTS starts (onEnough); the duration is only a backstop.
    durationMs: 60_000,
    rampMs: 0,
    intervalMs: 1000,
    drainMs: 500,
    seed: 1,
  };
  const ex = new CallbackStandIn(ending);
  const engine = new Engine<Counters & Ok>(config, ex, () => ({ ok: 0 }));
  ex.onEnough = () => engine.endWindow();
  const result = await engine.run();
  ex.stopTicking();
  expect(result.status).toBe('completed');
  return { ex, transactions: result.perType[0]!.count };
}

/** The lengths of the runs of consecutive `true`. */
function runsOfTrue(flags: readonly boolean[]): number[] {
  const runs: number[] = [];
  let n = 0;
  for (const f of flags) {
    if (f) n++;
    else if (n > 0) {
      runs.push(n);
      n = 0;
    }
  }
  if (n > 0) runs.push(n);
  return runs;
}

describe('Engine: the next transaction at think-scale 0', () => {
  it('starts from inside the callback that ended the last one (I/O), taking a turn of the event loop only every AT_ONCE_PER_TURN + 1', async () => {
    const { ex, transactions } = await run('on a later turn');
    expect(transactions).toBeGreaterThanOrEqual(STARTS - 1);
    const runs = runsOfTrue(ex.insideDone);
    expect(Math.max(...runs)).toBe(AT_ONCE_PER_TURN);
    // Every full run of hand-overs is followed by exactly one start on a turn of its own.
    expect(ex.insideDone.filter((inside) => !inside).length).toBeLessThanOrEqual(runs.length + 1);
  });

  it('a transaction ended inside the call that started it never recurses through the executor', async () => {
    const { ex, transactions } = await run('synchronously');
    expect(transactions).toBeGreaterThanOrEqual(STARTS - 1);
    expect(ex.maxDepth).toBe(1);
    expect(ex.insideDone.every((inside) => !inside)).toBe(true);
  });

  it('transactions ended in microtasks let the event loop turn at least every AT_ONCE_PER_TURN + 1 starts', async () => {
    const { ex, transactions } = await run('in a microtask');
    expect(transactions).toBeGreaterThanOrEqual(STARTS - 1);
    expect(ex.maxSinceTurn).toBeLessThanOrEqual(AT_ONCE_PER_TURN + 1);
  });
});

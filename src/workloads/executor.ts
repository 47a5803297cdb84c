/**
 * The one executor for every workload and database: it runs a workload's transaction bodies on
 * the connection slots of a dialect's `Connections` (dialects/connections.ts), the engine handing
 * it (slot, type, terminal). Dispatch, retries, lost connections and SQLite's one-at-a-time turns
 * are written here once, not per workload and per database.
 *
 * - Retries: an attempt that fails with a retryable error (conflict, deadlock, lock timeout) is
 *   tried again, up to MAX_RETRIES, after the slot is recovered (rolled back), with the
 *   terminal's generator rewound and the tallies zeroed, so every attempt draws the same inputs.
 * - A slot whose connection died is never written to again (a dead connection gives only more
 *   errors, and postgres.js 3.4.9 crashes on writes to a dead reserved one, porsager/postgres#1208):
 *   each later call fails at once with the driver's own connection-lost code.
 * - `serial` connections (SQLite's one shared connection): transactions run one at a time, each
 *   starting in its own turn of the event loop, never inside the engine's callback (the engine
 *   starts the next transaction from the completion of the last, which would starve timers).
 */
import type { Connections } from '../dialects/connections.js';
import {
  RetriesExhaustedError,
  type Counters,
  type ErrorClass,
  type Executor,
  type TerminalContext,
} from '../engine/types.js';
import type { Rng } from '../random/rng.js';
import type { TransactionContext, TransactionSet } from './workload.js';

export const MAX_RETRIES = 5;

/** One slot's context, reused for every transaction on it. */
class SlotContext<S, C extends Counters> implements TransactionContext<S, C> {
  rng!: Rng;
  state!: S;
  terminal = -1;
  counters!: C;
  attempt = 0;

  constructor(
    readonly session: TransactionContext['session'],
    readonly conn: unknown,
  ) {}
}

interface Job {
  slot: number;
  type: number;
  resolve: (retries: number) => void;
  reject: (err: unknown) => void;
}

export class WorkloadExecutor<S, C extends Counters> implements Executor<C> {
  private readonly conns: Connections;
  private readonly contexts: SlotContext<S, C>[];
  private readonly lost: boolean[];
  /** Each slot's generator state before its transaction's first attempt: 4 words per slot. */
  private readonly rngStates: Int32Array;
  private counterKeys: string[] | undefined;
  /** Serial mode: waiting jobs (a ring: no Array.shift on a long queue) and whether one runs. */
  private readonly queue: (Job | undefined)[];
  private queueHead = 0;
  private queueCount = 0;
  private running = false;

  constructor(
    private readonly set: TransactionSet<S, C>,
    /** Each terminal's state, by terminal id. */
    private readonly states: readonly S[],
  ) {
    this.conns = set.connections;
    const slots = this.conns.slots;
    this.contexts = Array.from(
      { length: slots },
      (_, slot) => new SlotContext<S, C>(this.conns.session(slot), this.conns.handle(slot)),
    );
    this.lost = new Array<boolean>(slots).fill(false);
    this.rngStates = new Int32Array(slots * 4);
    this.queue = new Array<Job | undefined>(this.conns.serial ? slots : 0);
  }

  get connections(): number {
    return this.conns.slots;
  }

  classify(err: unknown): ErrorClass {
    return this.conns.classify(err);
  }

  execute(slot: number, type: number, terminal: TerminalContext, counters: C): Promise<number> {
    const ctx = this.contexts[slot]!;
    ctx.rng = terminal.rng;
    ctx.terminal = terminal.id;
    ctx.state = this.states[terminal.id]!;
    ctx.counters = counters;
    if (!this.conns.serial) return this.attempts(slot, type);
    return new Promise((resolve, reject) => {
      this.queue[(this.queueHead + this.queueCount) % this.queue.length] = { slot, type, resolve, reject };
      this.queueCount++;
      if (!this.running) {
        this.running = true;
        setImmediate(this.runNext);
      }
    });
  }

  async close(): Promise<void> {
    try {
      await this.set.close?.();
    } finally {
      await this.conns.close();
    }
  }

  private readonly runNext = (): void => {
    if (this.queueCount === 0) {
      this.running = false;
      return;
    }
    const job = this.queue[this.queueHead]!;
    this.queue[this.queueHead] = undefined;
    this.queueHead = (this.queueHead + 1) % this.queue.length;
    this.queueCount--;
    this.attempts(job.slot, job.type).then(
      (retries) => {
        job.resolve(retries);
        setImmediate(this.runNext);
      },
      (err: unknown) => {
        job.reject(err);
        setImmediate(this.runNext);
      },
    );
  };

  /** Runs attempts until one succeeds, a non-retryable error, or MAX_RETRIES; resolves with the retries. */
  private async attempts(slot: number, type: number): Promise<number> {
    if (this.lost[slot]) {
      throw Object.assign(new Error('connection was lost earlier'), { code: this.conns.lostCode });
    }
    const ctx = this.contexts[slot]!;
    ctx.rng.saveState(this.rngStates, slot * 4);
    for (let attempt = 0; ; attempt++) {
      ctx.attempt = attempt;
      try {
        await this.set.run(type, ctx);
        return attempt;
      } catch (err) {
        const cls = this.conns.classify(err);
        await this.conns.recover(slot, cls).catch(() => undefined);
        if (this.conns.isRetryable(cls) && attempt < MAX_RETRIES) {
          ctx.rng.restoreState(this.rngStates, slot * 4);
          this.zero(ctx.counters);
          continue;
        }
        if (cls === 'connection') this.lost[slot] = true;
        throw attempt > 0 ? new RetriesExhaustedError(attempt, err, cls) : err;
      }
    }
  }

  private zero(counters: C): void {
    this.counterKeys ??= Object.keys(counters);
    for (const k of this.counterKeys) (counters as Record<string, number>)[k] = 0;
  }
}

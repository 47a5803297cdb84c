/**
 * The one executor for every workload and database: it runs a workload's transaction bodies on
 * the connection slots of a dialect's `Connections` (dialects/connections.ts), the engine handing
 * it (slot, type, terminal). Dispatch, retries, lost connections, reconnects, the transaction
 * timeout and SQLite's one-at-a-time turns are written here once, not per workload and database.
 *
 * - Retries: an attempt that fails with a retryable error (conflict, deadlock, lock timeout) is
 *   tried again, up to MAX_RETRIES, after the slot is recovered (rolled back), with the
 *   terminal's generator rewound and the tallies zeroed, so every attempt draws the same inputs.
 * - A slot whose connection died is never written to again (a dead connection gives only more
 *   errors, and postgres.js 3.4.9 crashes on writes to a dead reserved one, porsager/postgres#1208).
 *   With `reconnect` (--on-error continue) its connection is replaced in the background, with
 *   capped, jittered exponential backoff (backoff.ts); without it (--on-error stop) each later
 *   call fails at once with the driver's own connection-lost code and the engine ends the run.
 * - While a slot reconnects, the transaction the engine hands it waits for the new connection
 *   (bounded by the transaction timeout) rather than failing at once. Failing fast would make a
 *   terminal with no think time spin through thousands of instant failures a second, so the
 *   failure count would measure the client's loop speed, not the outage; waiting is what an
 *   application's pool does, and the outage shows as response time (the engine measures from the
 *   due time) and, past the timeout, as failures.
 * - The transaction timeout is one watchdog timer for all slots (txn-watchdog.ts): a call past
 *   the limit is cancelled on the server and fails as `timeout`; one the server does not answer
 *   even then is abandoned after a grace period, and its connection replaced.
 * - A slot whose recovery (its rollback) fails is replaced: its session is in an unknown state,
 *   and MySQL's next START TRANSACTION would commit whatever the failed one left.
 * - The fast path (`start`, for workloads with callback bodies: PostgreSQL's procedure calls on the
 *   wire path): a first attempt on a slot that is up runs from the engine to the socket and back
 *   on callbacks, with no promise; anything that fails goes on as above, on promises.
 * - `serial` connections (SQLite's one shared connection): transactions run one at a time, each
 *   in its own turn of the event loop (serial-turns.ts). A synchronous driver cannot leave a
 *   call hanging, so the watchdog does not watch them.
 */
import type { Connections } from '../dialects/connections.js';
import {
  RetriesExhaustedError,
  TxnTimeoutError,
  type Counters,
  type ErrorClass,
  type Executor,
  type TerminalContext,
} from '../engine/types.js';
import { Rng } from '../random/rng.js';
import { backoffMs } from './backoff.js';
import { DEFAULT_FAULT_POLICY, type FaultCounts, type FaultPolicy } from './fault-policy.js';
import { SerialTurns } from './serial-turns.js';
import { SlotContext } from './slot-context.js';
import { TxnWatchdog } from './txn-watchdog.js';
import type { TransactionSet } from './workload.js';

export const MAX_RETRIES = 5;

const UP = 0;
const RECONNECTING = 1;
const LOST = 2;

/** What an abandoned transaction's late attempt settles with: ignored. */
const ABANDONED = -1;

export class WorkloadExecutor<S, C extends Counters> implements Executor<C> {
  private readonly conns: Connections;
  private readonly policy: FaultPolicy;
  private contexts: SlotContext<S, C>[];
  /** UP, RECONNECTING or LOST, per slot. */
  private readonly slotState: Uint8Array;
  /** While a slot reconnects: resolves when it is up again (or the executor closes). */
  private readonly upAgain: (Promise<void> | undefined)[];
  private readonly upResolve: ((() => void) | undefined)[];
  /** Each slot's generator state before its transaction's first attempt: 4 words per slot. */
  private readonly rngStates: Int32Array;
  private counterKeys: string[] | undefined;
  /** Serial mode: one transaction at a time, each in its own turn. */
  private readonly serialTurns: SerialTurns | undefined;
  /** Bumped when a slot's transaction is abandoned, so that its late attempt settles nothing. */
  private readonly tokens: Uint32Array;
  /** The type of the slot's transaction, for a retry after its callback attempt failed. */
  private readonly slotType: Int32Array;
  /** The engine's promise for each slot's transaction (non-serial mode), made by `binders`. */
  private readonly resolvers: (((retries: number) => void) | undefined)[];
  private readonly rejecters: (((err: unknown) => void) | undefined)[];
  private readonly binders: ((res: (r: number) => void, rej: (e: unknown) => void) => void)[];
  private readonly onSettled: ((r: number) => void)[];
  private readonly onFailed: ((e: unknown) => void)[];
  /** The transaction timeout: when each slot's transaction started, and what was done about it. */
  private readonly watchdog: TxnWatchdog;
  private closed = false;
  /** Jitter for the backoff: any spread will do, so one generator for all slots. */
  private readonly jitter = new Rng(0x6a177e5);
  /** What a detached (abandoned) body writes to instead of the engine's scratch. */
  private readonly discard: { rng: Rng; counters: C };
  readonly faults: FaultCounts = { reconnects: 0, reconnectFailures: 0, cancelled: 0, abandoned: 0 };

  constructor(
    private readonly set: TransactionSet<S, C>,
    /** Each terminal's state, by terminal id less `firstTerminal`. */
    private readonly states: readonly S[],
    policy: Partial<FaultPolicy> = {},
    /** The first terminal's id, when these states are one slice of a run's terminals (slice.ts). */
    private readonly firstTerminal = 0,
  ) {
    this.policy = { ...DEFAULT_FAULT_POLICY, ...policy };
    this.conns = set.connections;
    const slots = this.conns.slots;
    this.contexts = Array.from({ length: slots }, (_, slot) => this.newContext(slot));
    this.slotState = new Uint8Array(slots);
    this.upAgain = new Array<Promise<void> | undefined>(slots).fill(undefined);
    this.upResolve = new Array<(() => void) | undefined>(slots).fill(undefined);
    this.rngStates = new Int32Array(slots * 4);
    this.serialTurns = this.conns.serial
      ? new SerialTurns(slots, (slot, type) => this.attempts(slot, type, this.contexts[slot]!))
      : undefined;
    this.tokens = new Uint32Array(slots);
    this.slotType = new Int32Array(slots);
    this.resolvers = new Array<undefined>(slots).fill(undefined);
    this.rejecters = new Array<undefined>(slots).fill(undefined);
    // Per-slot callbacks made once: no closure per transaction.
    this.binders = Array.from({ length: slots }, (_, slot) => (res, rej) => {
      this.resolvers[slot] = res;
      this.rejecters[slot] = rej;
    });
    this.onSettled = Array.from({ length: slots }, (_, slot) => (retries) => {
      if (retries === ABANDONED) return;
      const res = this.resolvers[slot];
      this.settle(slot);
      res?.(retries);
    });
    this.onFailed = Array.from({ length: slots }, (_, slot) => (err) => {
      const rej = this.rejecters[slot];
      this.settle(slot);
      rej?.(err);
    });
    this.discard = { rng: new Rng(1), counters: {} as C };
    // A synchronous driver (serial) cannot leave a call hanging: nothing to watch.
    this.watchdog = new TxnWatchdog(
      slots,
      this.policy.txnTimeoutMs,
      !this.conns.serial,
      this.conns,
      this.faults,
      {
        isUp: (slot) => this.slotState[slot] === UP,
        abandon: (slot, err) => this.abandon(slot, err),
        connectionLost: (slot) => this.connectionLost(slot),
      },
    );
  }

  get connections(): number {
    return this.conns.slots;
  }

  classify(err: unknown): ErrorClass {
    if (err instanceof TxnTimeoutError) return 'timeout';
    return this.conns.classify(err);
  }

  isServerFault(err: unknown): boolean {
    return this.conns.isServerFault?.(err) === true;
  }

  execute(slot: number, type: number, terminal: TerminalContext, counters: C): Promise<number> {
    const ctx = this.bind(slot, terminal, counters);
    if (!this.conns.serial) {
      this.watch(slot);
      const promise = new Promise<number>(this.binders[slot]!);
      this.attempts(slot, type, ctx).then(this.onSettled[slot], this.onFailed[slot]);
      return promise;
    }
    return this.serialTurns!.submit(slot, type);
  }

  /**
   * The fast path, taken when the workload has callback bodies and the slot's connection is up:
   * the engine's callbacks are called straight from the body's, with no promise between them. A
   * first attempt that fails goes on as `execute` would (recovery, retries, a lost connection),
   * on promises; every other case is `execute`.
   */
  start(
    slot: number,
    type: number,
    terminal: TerminalContext,
    counters: C,
    done: (retries: number) => void,
    failed: (err: unknown) => void,
  ): void {
    const run = this.set.runWithCallback;
    if (
      run === undefined ||
      this.conns.serial ||
      this.slotState[slot] !== UP ||
      this.conns.isLost?.(slot) === true
    ) {
      this.execute(slot, type, terminal, counters).then(done, failed);
      return;
    }
    const ctx = this.bind(slot, terminal, counters);
    this.watch(slot);
    this.resolvers[slot] = done;
    this.rejecters[slot] = failed;
    this.slotType[slot] = type;
    ctx.attempt = 0;
    ctx.rng.saveState(this.rngStates, slot * 4);
    try {
      run.call(this.set, type, ctx, ctx.finished);
    } catch (err) {
      ctx.finished(err);
    }
  }

  /**
   * The window closed: transactions waiting for their slot to reconnect fail now, as the watchdog
   * fails them at the timeout. They could no longer count, and a database that never comes back
   * would hold the drain to its limit for nothing.
   */
  windowClosed(): void {
    for (let slot = 0; slot < this.slotState.length; slot++) {
      if (!this.watchdog.running(slot) || this.slotState[slot] !== RECONNECTING) continue;
      this.abandon(
        slot,
        Object.assign(new Error('database unreachable: still reconnecting when the window closed'), {
          code: this.conns.lostCode,
        }),
      );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watchdog.stop();
    // Reconnect loops and transactions waiting for them end now.
    for (const up of this.upResolve) up?.();
    try {
      await this.set.close?.();
    } finally {
      await this.conns.close();
    }
  }

  private newContext(slot: number): SlotContext<S, C> {
    const ctx = new SlotContext<S, C>(this.conns.session(slot), this.conns.handle(slot));
    ctx.finished = (err) => this.callbackSettled(slot, ctx, err);
    return ctx;
  }

  /** The slot's context, holding this transaction's terminal and scratch counters. */
  private bind(slot: number, terminal: TerminalContext, counters: C): SlotContext<S, C> {
    const ctx = this.contexts[slot]!;
    ctx.rng = terminal.rng;
    ctx.terminal = terminal.id;
    ctx.state = this.states[terminal.id - this.firstTerminal]!;
    ctx.counters = counters;
    return ctx;
  }

  /** The watchdog times the slot's transaction from now. */
  private watch(slot: number): void {
    this.watchdog.watch(slot);
  }

  /** A callback body's first attempt is over: settle it, or go on as a failed attempt does. */
  private callbackSettled(slot: number, ctx: SlotContext<S, C>, err: unknown): void {
    // A context no longer the slot's was abandoned (the watchdog failed it): its answer is too late.
    if (this.contexts[slot] !== ctx || this.resolvers[slot] === undefined) return;
    if (err === undefined) {
      const res = this.resolvers[slot];
      this.settle(slot);
      res(0);
      return;
    }
    this.retries(slot, this.slotType[slot]!, ctx, this.tokens[slot]!, true, err).then(
      this.onSettled[slot],
      this.onFailed[slot],
    );
  }

  private settle(slot: number): void {
    this.resolvers[slot] = undefined;
    this.rejecters[slot] = undefined;
    this.watchdog.idle(slot);
  }

  /** Runs attempts until one succeeds, a non-retryable error, or MAX_RETRIES; resolves with the retries. */
  private async attempts(slot: number, type: number, first: SlotContext<S, C>): Promise<number> {
    const token = this.tokens[slot]!;
    let ctx = first;
    // A connection that died idle: replace it before running on it (its next call would hang).
    if (this.slotState[slot] === UP && this.conns.isLost?.(slot) === true) this.connectionLost(slot);
    if (this.slotState[slot] !== UP) {
      if (this.slotState[slot] === RECONNECTING) await this.upAgain[slot];
      if (this.tokens[slot] !== token) return ABANDONED;
      if (this.slotState[slot] !== UP || this.closed) {
        throw Object.assign(new Error('connection was lost earlier'), { code: this.conns.lostCode });
      }
      // The slot has a new connection, so a new context: carry the transaction's inputs over.
      ctx = this.contexts[slot]!;
      ctx.rng = first.rng;
      ctx.terminal = first.terminal;
      ctx.state = first.state;
      ctx.counters = first.counters;
    }
    ctx.rng.saveState(this.rngStates, slot * 4);
    return this.retries(slot, type, ctx, token, false, undefined);
  }

  /**
   * Attempt after attempt on `ctx` (whose generator state is saved); with `firstFailed`, the
   * first attempt has already run and failed with `firstError`.
   */
  private async retries(
    slot: number,
    type: number,
    ctx: SlotContext<S, C>,
    token: number,
    firstFailed: boolean,
    firstError: unknown,
  ): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      ctx.attempt = attempt;
      try {
        if (attempt === 0 && firstFailed) throw firstError;
        await this.set.run(type, ctx);
        if (this.tokens[slot] !== token) return ABANDONED;
        return attempt;
      } catch (err) {
        if (this.tokens[slot] !== token) return ABANDONED;
        const timedOut = this.watchdog.answered(slot);
        const cls = timedOut ? 'timeout' : this.conns.classify(err);
        let retryable = this.conns.isRetryable(cls);
        if (cls === 'connection') this.connectionLost(slot);
        else {
          const recovered = await this.conns.recover(slot, cls).then(
            () => true,
            () => false,
          );
          // A rollback the watchdog gave up on: the slot has another connection (or is getting
          // one) and maybe another transaction; this one settles nothing and touches neither.
          if (this.tokens[slot] !== token) return ABANDONED;
          if (!recovered) {
            // Not ready for another attempt: this transaction fails, its connection is replaced.
            this.connectionLost(slot);
            retryable = false;
          }
        }
        if (retryable && attempt < MAX_RETRIES) {
          ctx.rng.restoreState(this.rngStates, slot * 4);
          this.zero(ctx.counters);
          continue;
        }
        const failure = timedOut ? new TxnTimeoutError(this.policy.txnTimeoutMs, err) : err;
        throw attempt > 0 ? new RetriesExhaustedError(attempt, failure, cls) : failure;
      }
    }
  }

  /** The slot's connection is gone: replace it (--on-error continue), or leave the slot lost. */
  private connectionLost(slot: number): void {
    if (this.slotState[slot] !== UP) return;
    if (!this.policy.reconnect) {
      this.slotState[slot] = LOST;
      return;
    }
    this.slotState[slot] = RECONNECTING;
    this.upAgain[slot] = new Promise<void>((resolve) => (this.upResolve[slot] = resolve));
    void this.reconnectLoop(slot);
  }

  private async reconnectLoop(slot: number): Promise<void> {
    const { connectTimeoutMs, backoff } = this.policy;
    for (let attempt = 0; !this.closed; attempt++) {
      try {
        // The dialect times its attempt out itself; this only catches one that does not.
        await withTimeout(this.conns.reconnect(slot, connectTimeoutMs), 2 * connectTimeoutMs + 1000);
        if (this.closed) break;
        this.faults.reconnects++;
        this.contexts[slot] = this.newContext(slot);
        this.slotState[slot] = UP;
        break;
      } catch {
        this.faults.reconnectFailures++;
        await sleep(backoffMs(attempt, backoff, this.jitter.float()));
      }
    }
    const up = this.upResolve[slot];
    this.upResolve[slot] = undefined;
    this.upAgain[slot] = undefined;
    up?.();
  }

  /** Fails the slot's transaction now; its body, still running, is detached from the engine's state. */
  private abandon(slot: number, err: Error): void {
    this.tokens[slot] = this.tokens[slot]! + 1;
    const old = this.contexts[slot]!;
    old.rng = this.discard.rng;
    old.counters = this.discard.counters;
    this.contexts[slot] = this.newContext(slot);
    const rej = this.rejecters[slot];
    this.settle(slot);
    rej?.(err);
  }

  private zero(counters: C): void {
    this.counterKeys ??= Object.keys(counters);
    for (const k of this.counterKeys) (counters as Record<string, number>)[k] = 0;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `promise`, or a rejection after `ms` (a safety net over the dialect's own connect timeout). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no connection within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

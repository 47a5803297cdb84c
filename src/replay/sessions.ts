/**
 * Runs a replay's items on the target, as the transactions of the generic executor
 * (workloads/executor.ts): one connection per captured session, opened at its connect item and
 * closed at its disconnect, each statement as it was sent (prepared where the capture used a named
 * prepared statement, with its parameters). A statement that failed in the capture and fails again
 * is as captured, not an error; one that fails only now is, and one that failed in the capture and
 * succeeds now is counted apart (a divergence too). Never retried, never rolled back: the capture's
 * own statements say how each session's transactions end.
 *
 * The executor's slots carry no connection of their own: a session's connection is its terminal's,
 * whichever slot the engine runs it on. A session whose connection is lost opens a new one with
 * its next statement (--on-error continue); with --on-error stop the run ends there.
 */
import type { Connections, DialectName, Session } from '../dialects/connections.js';
import type { ErrorClass } from '../engine/types.js';
import type { TransactionContext, TransactionSet } from '../workloads/workload.js';
import { CONNECT, DISCONNECT, type ReplayScript } from './plan.js';

/** Tallies per replayed item, summed by the engine over the window. */
export type ReplayCounters = {
  statements: number;
  /** Failed in the capture and failed again. */
  expectedErrors: number;
  /** Failed in the capture, succeeded now. */
  unexpectedSuccesses: number;
  /** Transactions ended (commit or rollback) and autocommit statements. */
  transactions: number;
};

export function newReplayCounters(): ReplayCounters {
  return { statements: 0, expectedErrors: 0, unexpectedSuccesses: 0, transactions: 0 };
}

/** One session's connection on one database. */
export interface SessionConnection {
  run(sql: string, params: readonly (string | null)[] | undefined, prepared: boolean): Promise<void>;
  /** Asks the server to cancel the statement running (--txn-timeout); absent: the executor abandons it. */
  cancel?(): Promise<void>;
  close(): Promise<void>;
}

export interface ReplayDriver {
  open(): Promise<SessionConnection>;
  classify(err: unknown): ErrorClass;
  /** The driver's own code for a lost connection (what the executor fails a lost slot's calls with). */
  lostCode: string;
  end(): Promise<void>;
}

/** What a slot's transactions get as the driver's handle: the slot, to find the session on it. */
interface SlotHandle {
  slot: number;
}

type ReplayContext = TransactionContext<undefined, ReplayCounters, SlotHandle>;

export class ReplaySessions implements TransactionSet<undefined, ReplayCounters, SlotHandle> {
  readonly connections: Connections<SlotHandle>;
  /**
   * The whole replay's tallies, warm-up and drain included: the fidelity report compares them
   * with the whole capture, as it does the statements (the engine's counters are the window's).
   */
  readonly replayed: ReplayCounters = newReplayCounters();
  private readonly conns: (SessionConnection | undefined)[];
  private readonly inTx: Uint8Array;
  /** The session (terminal) each slot runs now, or ran last. */
  private readonly onSlot: Int32Array;

  constructor(
    private readonly script: ReplayScript,
    private readonly driver: ReplayDriver,
    dialect: DialectName,
    sessions: number,
    slots: number,
  ) {
    this.conns = new Array<SessionConnection | undefined>(sessions);
    this.inTx = new Uint8Array(sessions);
    this.onSlot = new Int32Array(slots).fill(-1);
    this.connections = this.slots(dialect, slots);
  }

  async run(type: number, tx: ReplayContext): Promise<void> {
    const id = tx.terminal;
    const counters = tx.counters;
    this.onSlot[tx.conn.slot] = id;
    if (type === CONNECT) {
      this.conns[id] = await this.driver.open();
      return;
    }
    if (type === DISCONNECT) {
      const conn = this.conns[id];
      this.conns[id] = undefined;
      await conn?.close();
      return;
    }
    const item = this.script.current(id);
    const st = item.statement!;
    counters.statements = 1;
    if (st.tx === 'begin') this.inTx[id] = 1;
    else if (st.tx === 'commit' || st.tx === 'rollback') {
      this.inTx[id] = 0;
      counters.transactions = 1;
    } else if (this.inTx[id] === 0) counters.transactions = 1;
    try {
      const conn = this.conns[id] ?? (this.conns[id] = await this.driver.open());
      try {
        await conn.run(st.sql, st.params, st.prepared === true);
      } catch (err) {
        // The session's next statement opens a new connection (--on-error continue).
        if (this.driver.classify(err) === 'connection') this.drop(id);
        if (st.outcome === 'error') {
          counters.expectedErrors = 1;
          return;
        }
        throw err;
      }
      if (st.outcome === 'error') counters.unexpectedSuccesses = 1;
    } finally {
      // Once the statement has ended, as the engine counts it: one abandoned in the drain is neither.
      for (const k of Object.keys(this.replayed) as (keyof ReplayCounters)[]) this.replayed[k] += counters[k];
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.conns.map((c) => c?.close().catch(() => undefined)));
    await this.driver.end();
  }

  /** Forgets a session's connection without waiting for it (it is gone, or hangs). */
  private drop(id: number): void {
    const conn = this.conns[id];
    this.conns[id] = undefined;
    void conn?.close().catch(() => undefined);
  }

  /** The executor's slots: no connection of their own, each session's connection is its terminal's. */
  private slots(dialect: DialectName, slots: number): Connections<SlotHandle> {
    const handles = Array.from({ length: slots }, (_, slot) => ({ slot }));
    const session = unusedSession(dialect);
    return {
      dialect,
      slots,
      serial: false,
      handle: (slot) => handles[slot]!,
      session: () => session,
      classify: (err) => this.driver.classify(err),
      // Replayed as captured, once: a retry would send a statement the capture did not.
      isRetryable: () => false,
      // The capture's own next statements end the session's transaction (its ROLLBACK, say).
      recover: () => Promise.resolve(),
      // The session opens a new connection with its next statement; an abandoned one is dropped.
      reconnect: (slot) => {
        const id = this.onSlot[slot]!;
        if (id >= 0) this.drop(id);
        return Promise.resolve();
      },
      cancel: async (slot) => {
        const id = this.onSlot[slot]!;
        await (id >= 0 ? this.conns[id]?.cancel?.() : undefined);
      },
      lostCode: this.driver.lostCode,
      close: () => Promise.resolve(),
    };
  }
}

/** The portable session a replay never uses: its statements go through the session's own connection. */
function unusedSession(dialect: DialectName): Session {
  const refuse = (): Promise<never> =>
    Promise.reject(new Error('a replay runs its captured statements only'));
  return {
    dialect,
    param: (i) => `$${i}`,
    query: refuse,
    execute: refuse,
    begin: refuse,
    commit: refuse,
    rollback: refuse,
  };
}

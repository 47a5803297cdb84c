/**
 * Runs a replay's items on the target: one connection per captured session, opened at its
 * connect item and closed at its disconnect, each statement as it was sent (prepared where the
 * capture used a named prepared statement, with its parameters). A statement that failed in the
 * capture and fails again is as captured, not an error; one that fails only now is, and one that
 * failed in the capture and succeeds now is counted apart (a divergence too). Never retried.
 */
import type { ErrorClass, Executor, TerminalContext } from '../engine/types.js';
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
  close(): Promise<void>;
}

export interface ReplayDriver {
  open(): Promise<SessionConnection>;
  classify(err: unknown): ErrorClass;
  /** Errors that mean this session's connection is gone (it stays closed; later statements fail). */
  end(): Promise<void>;
}

export class ReplayExecutor implements Executor<ReplayCounters> {
  readonly connections: number;
  /**
   * The whole replay's tallies, warm-up and drain included: the fidelity report compares them
   * with the whole capture, as it does the statements (the engine's counters are the window's).
   */
  readonly replayed: ReplayCounters = newReplayCounters();
  private readonly conns: (SessionConnection | undefined)[];
  private readonly inTx: Uint8Array;

  constructor(
    private readonly script: ReplayScript,
    private readonly driver: ReplayDriver,
    sessions: number,
  ) {
    // A slot per session: the number of connections open at once is the capture's, not a pool's.
    this.connections = Math.max(1, sessions);
    this.conns = new Array<SessionConnection | undefined>(sessions);
    this.inTx = new Uint8Array(sessions);
  }

  async execute(
    _slot: number,
    type: number,
    terminal: TerminalContext,
    counters: ReplayCounters,
  ): Promise<number> {
    const id = terminal.id;
    if (type === CONNECT) {
      this.conns[id] = await this.driver.open();
      return 0;
    }
    if (type === DISCONNECT) {
      const conn = this.conns[id];
      this.conns[id] = undefined;
      await conn?.close();
      return 0;
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
        if (st.outcome === 'error') {
          counters.expectedErrors = 1;
          return 0;
        }
        throw err;
      }
      if (st.outcome === 'error') counters.unexpectedSuccesses = 1;
      return 0;
    } finally {
      // Once the statement has ended, as the engine counts it: one abandoned in the drain is neither.
      for (const k of Object.keys(this.replayed) as (keyof ReplayCounters)[]) this.replayed[k] += counters[k];
    }
  }

  classify(err: unknown): ErrorClass {
    const cls = this.driver.classify(err);
    // One replayed session losing its connection is that session's failure, not the run's.
    return cls === 'connection' ? 'other' : cls;
  }

  async close(): Promise<void> {
    await Promise.all(this.conns.map((c) => c?.close().catch(() => undefined)));
    await this.driver.end();
  }
}

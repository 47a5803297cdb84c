import type { Rng } from '../random/rng.js';

/** One transaction type of a workload, as the engine paces it. */
export interface TransactionSpec {
  /** Field name in results, e.g. `newOrder`. */
  key: string;
  /** Display name, e.g. `New-Order`. */
  name: string;
  /** Keying time before submitting, seconds at think-scale 1. */
  keyingS: number;
  /** Mean of the negative-exponential think time after the response, seconds at think-scale 1. */
  thinkMeanS: number;
}

/**
 * What the executor knows of the terminal that submits a transaction: its number and its own
 * random stream. A workload derives anything else (TPC-C's home warehouse) from the number.
 */
export interface TerminalContext {
  readonly id: number;
  readonly rng: Rng;
}

/** A workload's own tallies (rollbacks, remote lines, …): plain named numbers the engine can sum. */
export type Counters = Record<string, number>;

/**
 * Why a transaction failed, as far as the run is concerned. `conflict` is a serialization
 * failure; `timeout` a call the server did not answer within --txn-timeout (cancelled, or
 * abandoned with its connection); `connection` a connection that died or could not be opened.
 */
export type ErrorClass =
  'conflict' | 'deadlock' | 'lockTimeout' | 'connection' | 'timeout' | 'constraint' | 'other';

/** Every class, in the order reports list them. */
export const ERROR_CLASSES: readonly ErrorClass[] = [
  'connection',
  'timeout',
  'deadlock',
  'conflict',
  'lockTimeout',
  'constraint',
  'other',
];

/** Zero failures of every class. */
export function emptyErrorCounts(): Record<ErrorClass, number> {
  return { conflict: 0, deadlock: 0, lockTimeout: 0, connection: 0, timeout: 0, constraint: 0, other: 0 };
}

/** Thrown by an executor for a transaction that ran past --txn-timeout (class `timeout`). */
export class TxnTimeoutError extends Error {
  readonly code = 'TXBENCH_TXN_TIMEOUT';
  constructor(
    readonly timeoutMs: number,
    /** What the call failed with once cancelled; undefined when it was abandoned unanswered. */
    readonly lastError?: unknown,
  ) {
    super(
      lastError === undefined
        ? `no answer within the transaction timeout (${timeoutMs / 1000} s); connection abandoned`
        : `cancelled after the transaction timeout (${timeoutMs / 1000} s)`,
    );
  }
}

/**
 * Runs transactions on a fixed set of connection slots. The engine guarantees that a slot runs
 * one transaction at a time. `execute` retries conflicts itself (a bounded number of times) and
 * resolves with the number of retries it needed; it throws when the transaction finally failed.
 */
export interface Executor<C extends Counters> {
  readonly connections: number;
  /** Tallies go into `counters`, which starts at zero for every transaction. */
  execute(slot: number, type: number, terminal: TerminalContext, counters: C): Promise<number>;
  /**
   * `execute` without a promise, for an executor that can run a transaction on callbacks alone:
   * exactly one of `done` (with the retries) and `failed` is called, once. The engine uses it
   * when it is there: on a two-core machine the promises of every transaction are CPU taken
   * from the database server (docs/PERFORMANCE.md).
   */
  start?(
    slot: number,
    type: number,
    terminal: TerminalContext,
    counters: C,
    done: (retries: number) => void,
    failed: (err: unknown) => void,
  ): void;
  classify(err: unknown): ErrorClass;
  /**
   * The window closed: fail now the transactions that are not on the database but waiting for
   * their slot's connection to come back (the database lost), with the executor's lost-connection
   * error. There is nothing of theirs to drain: the drain waits for none of them.
   */
  windowClosed?(): void;
  /** Whether the error says the database cannot work at all (its disk full): it opens an outage. */
  isServerFault?(err: unknown): boolean;
}

/** Thrown by an executor when a transaction gave up after its retries. */
export class RetriesExhaustedError extends Error {
  constructor(
    readonly retries: number,
    readonly lastError: unknown,
    readonly errorClass: ErrorClass,
  ) {
    super(
      `gave up after ${retries} retries: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
    );
  }
}

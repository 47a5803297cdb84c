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

/** Why a transaction failed, as far as the run is concerned. */
export type ErrorClass = 'conflict' | 'deadlock' | 'lockTimeout' | 'connection' | 'constraint' | 'other';

/**
 * Runs transactions on a fixed set of connection slots. The engine guarantees that a slot runs
 * one transaction at a time. `execute` retries conflicts itself (a bounded number of times) and
 * resolves with the number of retries it needed; it throws when the transaction finally failed.
 */
export interface Executor<C extends Counters> {
  readonly connections: number;
  /** Tallies go into `counters`, which starts at zero for every transaction. */
  execute(slot: number, type: number, terminal: TerminalContext, counters: C): Promise<number>;
  classify(err: unknown): ErrorClass;
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

/** What section 10's measuring child is asked, what it answers, and one of its connections. */
import type { Script } from './sysbench-figures.js';

export interface FloorRequest {
  /** PostgreSQL's wire protocol by hand, or MySQL/MariaDB's after mysql2 has connected and prepared. */
  dialect: 'postgres' | 'mysql';
  /** MariaDB only: the URL mysql2 connects with (the throw-away server's own user). */
  url?: string;
  host: string;
  port: number;
  user: string;
  database: string;
  /** Which of section 7's scripts the loop runs. */
  script: Script;
  tables: number;
  tableSize: number;
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export interface FloorResult {
  /** Statements answered in the window, BEGIN and COMMIT included (as sysbench counts queries). */
  statements: number;
  /** Transactions (events) completed in the window without an error answer. */
  transactions: number;
  /** Error answers in the window (a duplicate key where two connections' delete/insert pairs met). */
  errors: number;
  seconds: number;
  cpuS: number;
}

/**
 * A connection of the loop: `send` writes statement number `statement` (of the request's
 * statements, floor-steps.ts's `statementsOf`) on table `table` with its ints `a` and `b`;
 * `onReady` runs at its answer's end; `errors` counts error answers so far.
 */
export interface FloorLink {
  send: (statement: number, table: number, a: number, b: number) => void;
  onReady: () => void;
  errors: () => number;
  close: () => void;
}

/** One call's pre-built write, and where its ints `a` and `b` go in it (-1: not sent). */
export interface FloorCall {
  bytes: Buffer;
  aAt: number;
  bAt: number;
}

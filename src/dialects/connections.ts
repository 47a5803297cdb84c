/**
 * The per-dialect connection contract that the generic executor (run/executor.ts) drives for every
 * workload: open N connection slots, run transaction attempts on them, classify errors, recover a
 * slot after a failed attempt, close. Each dialect implements it once (dialects/NAME/connections.ts,
 * `Dialect.openConnections`); pooling, dispatch, retries and lost-connection handling are then
 * written once, in the executor, not per workload and database.
 *
 * A workload's transactions may use the portable `Session` (enough for TPC-B and user workloads)
 * or the driver's own handle for what only it can do (pipelining on postgres.js, multi-statement
 * batches on mysql2, synchronous better-sqlite3 statements, sp_executesql on mssql).
 */
import type { ErrorClass } from '../engine/types.js';

export type DialectName = 'postgres' | 'mysql' | 'sqlite' | 'mssql';

/** A result row by column name. */
export type Row = Record<string, unknown>;

/**
 * One connection slot as a transaction body sees it. Statements are prepared once per connection
 * and cached by their text. Placeholders are the database's own: `$1` on PostgreSQL, `?` on
 * MySQL/MariaDB and SQLite, `@p1` on SQL Server (`param(i)` spells the i-th, 1-based).
 */
export interface Session {
  readonly dialect: DialectName;
  /** Positional parameter i (1-based), as this database spells it. */
  param(i: number): string;
  /** Runs one prepared statement; resolves with its rows (none for a write). */
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs one statement and resolves with the number of rows it changed. */
  execute(sql: string, params?: readonly unknown[]): Promise<number>;
  begin(): Promise<void>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  /**
   * The slot's callback route, where its driver has one (PostgreSQL's wire path, mysql2): the same
   * statements without a promise each and without decoding their rows. Absent: the methods above.
   */
  readonly callbacks?: CallbackRoute | undefined;
}

/** A parameter or a result column as the server reads or sends it in text form, or null. */
export type TextValue = string | null;

/**
 * A parameter on the callback route: text or null; a number, which the server takes as it takes
 * the number's decimal text; or a list of numbers, which the server takes as a list in its own
 * way: PostgreSQL as an array (`{1,2,3}`), MySQL/MariaDB, which have none, as their
 * comma-separated text (`1,2,3`). A driver may bind an integer as the database's own integer
 * (MySQL/MariaDB: a LONG), and writes numbers without making their strings: a body's ids, counts
 * and item lists are not made into text to be written and parsed back on every call.
 */
export type ParamValue = TextValue | number | readonly number[];

/** A statement prepared on one connection of the callback route. */
export interface PreparedStatement {
  readonly name: string;
}

/** One statement's answer on the callback route: its rows as the server's text, and its command tag. */
export interface TextResult {
  readonly rows: TextRows;
  readonly tag: string;
  /**
   * Every result set of a statement that answers with several (a MySQL/MariaDB CALL: one per
   * SELECT the procedure ran), in order; `rows` is the first. Absent for one plain answer.
   */
  readonly sets?: readonly TextRows[] | undefined;
}

/** One result set's rows as the server's text. */
export type TextRows = readonly (readonly TextValue[])[];

export type StatementCallback = (err: Error | undefined, result: TextResult) => void;

/**
 * Statements on one connection answered through one callback each, with nothing built that a
 * body does not read: the rows stay the server's text, and a body decodes only what it uses.
 * Statements are prepared once per connection (`prepare` caches them by text).
 */
export interface CallbackRoute {
  /** The statement prepared for `sql` on this connection (prepared now if new). */
  prepare(sql: string): Promise<PreparedStatement>;
  /** The statement for `sql` if it is prepared already: taken with no promise. */
  preparedFor(sql: string): PreparedStatement | undefined;
  run(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void;
  /** `run` for a body that reads only how many rows came back: `result.rows` holds that many empty rows. */
  count(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void;
  /** SQL without parameters (BEGIN, COMMIT), sent as it is. */
  runText(sql: string, done: StatementCallback): void;
}

/**
 * The connection slots of one run on one target. The executor guarantees that a slot runs one
 * transaction at a time, and, when `serial` is set, that only one transaction runs at a time over
 * all slots (SQLite: the slots share one connection).
 *
 * `H` is the driver's own handle a slot runs on: postgres.js `ReservedSql`, mysql2 `Connection`,
 * better-sqlite3 `Database`, the mssql `ConnectionPool`.
 */
export interface Connections<H = unknown> {
  readonly dialect: DialectName;
  /** How many transactions may be in flight at once. */
  readonly slots: number;
  /** Transactions run one at a time over all slots, each in its own turn of the event loop. */
  readonly serial: boolean;
  /** The driver's handle of a slot. */
  handle(slot: number): H;
  /** The portable session of a slot (made once per slot). */
  session(slot: number): Session;
  /** The database's error as the run counts it. */
  classify(err: unknown): ErrorClass;
  /** Whether an attempt that failed with this class is tried again (conflicts, deadlocks, lock timeouts). */
  isRetryable(cls: ErrorClass): boolean;
  /**
   * Leaves a slot ready for its next attempt after one failed: rolls back an open transaction (a
   * MySQL lock wait timeout leaves it open), and never writes to a connection that is gone
   * (postgres.js 3.4.9 crashes on writes to a dead reserved connection, porsager/postgres#1208).
   * Rejects when the slot could not be made ready (its rollback failed): the executor then fails
   * the transaction and replaces the connection.
   */
  recover(slot: number, cls: ErrorClass): Promise<void>;
  /**
   * Replaces a slot's connection after it died or was abandoned (a call that never came back):
   * drops the old one without writing to it, opens a new one within `timeoutMs`, and applies the
   * per-connection settings the slots were opened with; `handle` and `session` then give the new
   * one. Rejects when it cannot be opened: the executor retries with backoff (written once there,
   * not per dialect). A dialect without connections to lose (SQLite) resolves at once.
   */
  reconnect(slot: number, timeoutMs: number): Promise<void>;
  /**
   * Asks the server to cancel what the slot is running (PostgreSQL's cancel request, MySQL's
   * KILL QUERY from another connection, SQL Server's attention). Resolves once asked, not once
   * cancelled; the cancelled call then fails with the server's own error.
   */
  cancel(slot: number): Promise<void>;
  /**
   * Whether the slot's connection is known to be gone although no call failed on it (it died while
   * idle). Asked before each transaction; a driver that fails the next call at once need not say.
   */
  isLost?(slot: number): boolean;
  /**
   * Whether the error says the database cannot do its work at all (its disk full, an I/O error):
   * such a failure opens an outage as a lost connection does, named by the error.
   */
  isServerFault?(err: unknown): boolean;
  /** The driver's own code for a lost connection, for a slot whose connection died earlier. */
  readonly lostCode: string;
  close(): Promise<void>;
}

/** Opens `slots` connection slots on the database a URL names (a few at a time). */
export type OpenConnections<H = unknown> = (url: string, slots: number) => Promise<Connections<H>>;

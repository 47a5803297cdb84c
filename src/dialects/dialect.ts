/**
 * The one small interface every database implements (DESIGN.md layer 4). The core (loader,
 * checks, run engine) talks only to this; differences are capability flags and a handful of SQL
 * fragments, never `if (db === …)`. Drivers are loaded when a dialect is opened, not before.
 */
import type { ErrorClass } from '../engine/types.js';
import type { DialectName, OpenConnections, Row } from './connections.js';
import type { DdlFlavor } from './ddl.js';

export type { Row } from './connections.js';

/** A pool of connections for administrative statements (schema, checks, counters). */
export interface Db {
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Runs `work` in one transaction on one connection: committed when it resolves, rolled back
   * when it throws (the error is passed on). Inside, `tx.transaction` joins the open transaction.
   */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The Db handed to a transaction's work: nested transactions join it, and closing is the owner's job. */
export function joinedTransaction(query: Db['query']): Db {
  const tx: Db = { query, transaction: (work) => work(tx), close: () => Promise.resolve() };
  return tx;
}

/** PostgreSQL COPY's text format, or its binary one. */
export type CopyFormat = 'text' | 'binary';

/**
 * Streams one table's rows, given as PostgreSQL COPY text (tab-separated, \N for NULL), or in
 * the dialect's `bulkCopyFormat` (binary: rows only, the loader adds the header and trailer).
 */
export interface BulkLoader {
  load(
    table: string,
    columns: readonly string[],
    chunks: Iterable<Buffer>,
    format?: CopyFormat,
  ): Promise<void>;
  close(): Promise<void>;
}

export interface DialectCapabilities {
  /** The five transactions can run as server-side procedures (`run --procedures`). */
  procedures: boolean;
  /** More than one writer at a time; SQLite has one, so its loader and pool use one. */
  concurrentWriters: boolean;
}

/** SQL that differs between databases, for the checks and metadata written once for all. */
export interface SqlFlavor {
  /** `a` differs from `b`, NULLs compared as values. */
  distinct(a: string, b: string): string;
  /** Character length of a string expression. */
  length(expr: string): string;
  /** Integer division of two integer expressions. */
  intDiv(a: string, b: string): string;
  /** String concatenation. */
  concat(...parts: string[]): string;
  /** Positional parameter i (1-based). */
  param(i: number): string;
  /**
   * A money expression as the checks compare it. Exact-decimal databases return it unchanged;
   * SQLite, whose NUMERIC keeps non-integral values as binary REAL, rounds it to cents.
   */
  money(expr: string): string;
}

export interface ServerInfo {
  product: string;
  version: string;
}

/** The scope and the manner of a dialect's server transaction counter. */
export interface TransactionCounter {
  /**
   * Names what the counter covers (a server, or one database of a server) by the server's own
   * identity, not by URL: two URLs that reach one counter give one scope; undefined when the
   * server does not say.
   */
  scope(db: Db): Promise<string | undefined>;
  /**
   * Each statement run outside a transaction counts as one (PostgreSQL's xact_commit), rather
   * than only explicit transactions (MySQL's Com_commit).
   */
  readonly countsEachStatement: boolean;
}

export interface Dialect {
  readonly name: DialectName;
  readonly capabilities: DialectCapabilities;
  readonly sql: SqlFlavor;
  /** Opens a pool and proves it works with one round trip; failures become one-line DatabaseErrors. */
  connect(url: string, options: { max: number }): Promise<Db>;
  /** Opens one connection for a loader stream (in a worker thread). */
  openBulkLoader(url: string): Promise<BulkLoader>;
  /**
   * The COPY format its bulk loader reads fastest, which workloads may generate in; text when
   * absent (every bulk loader reads text).
   */
  bulkCopyFormat?(): CopyFormat;
  /** How it spells a schema that a workload describes once. */
  readonly ddl: DdlFlavor;
  /** Statements that refresh the planner's statistics for a table. */
  analyze(table: string): string[];
  /** Opens the connection slots a run's transactions use (the generic executor's contract). */
  readonly openConnections: OpenConnections;
  /**
   * Slots for a workload that uses only the portable Session, on the dialect's fastest driver
   * path (PostgreSQL: the wire path); `handle` is then not the usual driver's. Absent: as
   * `openConnections`.
   */
  readonly openSessionConnections?: OpenConnections;
  classify(err: unknown): ErrorClass;
  tableExists(db: Db, table: string): Promise<boolean>;
  serverInfo(db: Db): Promise<ServerInfo>;
  /** Commits + rollbacks so far, for TPM; undefined when the server does not say. */
  serverTransactions(db: Db): Promise<number | undefined>;
  /**
   * What `serverTransactions` counts, so that targets sharing one counter read it once and
   * txbench's own side statements are left out of it. Absent: each target's counter is its own.
   */
  readonly transactionCounter?: TransactionCounter;
  /** The server's wall clock now (ms since the epoch), to check a load machine's clock against it. */
  serverTimeMs?(db: Db): Promise<number | undefined>;
  /** The server settings that matter for a benchmark (memory, durability, checkpoints). */
  settings?(db: Db): Promise<Record<string, string>>;
  /** Where the server keeps its data, when it says (to find the device under test). */
  dataDirectory?(db: Db): Promise<string | undefined>;
  /**
   * Where the server writes its log (PostgreSQL's WAL, InnoDB's redo), symlinks followed where the
   * path exists here: it may be on another device than the data, and then both are watched.
   */
  logDirectory?(db: Db): Promise<string | undefined>;
  /**
   * The server's own cumulative I/O counters (WAL or redo bytes, blocks read, checkpoints…), by
   * camelCase name with the unit in it; each dialect documents its names. Monitoring differences
   * two readings per interval. A counter the server does not have is left out; a failed read throws.
   * A reader over `db`, made once: what it learns of the server on its first read (PostgreSQL's
   * version, which picks the statement) is its own, kept as long as the caller keeps it.
   */
  ioCounterReader?(db: Db): () => Promise<Record<string, number>>;
  /** Changes a server setting for a sweep; says whether a restart is needed for it to apply. */
  applySetting?(db: Db, name: string, value: string): Promise<'applied' | 'restart'>;
}

/** The URL schemes txbench knows, and the dialect module each loads. */
export const SCHEMES: Readonly<Record<string, Dialect['name']>> = {
  postgres: 'postgres',
  postgresql: 'postgres',
  mysql: 'mysql',
  mariadb: 'mysql',
  sqlite: 'sqlite',
  mssql: 'mssql',
  sqlserver: 'mssql',
};

/** One line listing the URL forms txbench accepts, for error messages. */
export const SUPPORTED_URL_FORMS =
  'postgres://user:password@host:port/db, mysql:// or mariadb://user:password@host:port/db, sqlite:path/to/file.db, mssql:// or sqlserver://user:password@host:port/db';

export function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
}

/**
 * SQLite through better-sqlite3: one file, one writer at a time. The driver is synchronous, so a
 * "pool" is one connection and every query runs to completion when called; the promises only
 * keep the interface. Capabilities say so: no concurrent writers, no procedures.
 */
import path from 'node:path';
import {
  joinedTransaction,
  type BulkLoader,
  type Db,
  type Dialect,
  type Row,
  type SqlFlavor,
} from '../dialect.js';
import { parseCopyText } from './copy-text.js';
import { closeSqlite, openSqlite, type OpenedSqlite } from './connect.js';
import { classifySqliteError } from './errors.js';
import { sqliteIoCounters } from './io-counters.js';
import { sqliteDdl } from './ddl.js';
import { openSqliteConnections } from './connections.js';

/** A Db over one connection. Statements that return rows (SELECT, PRAGMA, RETURNING) give them. */
export function sqliteDb(opened: OpenedSqlite): Db {
  const { db } = opened;
  const query = <T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> => {
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return Promise.resolve(statement.all(params) as T[]);
      statement.run(params);
      return Promise.resolve([]);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  };
  return {
    query,
    // One connection: the transaction is on it (immediate, so a second writer waits at the start).
    async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      db.exec('begin immediate');
      try {
        const result = await work(joinedTransaction(query));
        db.exec('commit');
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec('rollback');
        throw err;
      }
    },
    close: async () => closeSqlite(opened),
  };
}

/** SQLite's limit on bound parameters per statement in this build (SQLITE_MAX_VARIABLE_NUMBER). */
const MAX_PARAMETERS = 32_766;
/** Rows per multi-row INSERT: 8 took a fifth less CPU than 1 (measured 1, 8, 32, 128; more was no better). */
const ROWS_PER_INSERT = 8;
/** Loader chunks per transaction (256 KiB each): bounds the WAL without a commit per chunk. */
const CHUNKS_PER_TRANSACTION = 64;

/** Bulk load by multi-row INSERTs of the parsed COPY text, many chunks to a transaction. */
export function sqliteBulkLoader(opened: OpenedSqlite): BulkLoader {
  const { db } = opened;
  return {
    async load(table, columns, chunks) {
      const width = columns.length;
      const perStatement = Math.max(1, Math.min(ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / width)));
      const many = db.prepare(insertStatement(table, columns, perStatement));
      const one = db.prepare(insertStatement(table, columns, 1));
      const insert = (values: (string | null)[], rows: number): void => {
        let row = 0;
        for (; row + perStatement <= rows; row += perStatement)
          many.run(values.slice(row * width, (row + perStatement) * width));
        for (; row < rows; row++) one.run(values.slice(row * width, (row + 1) * width));
      };
      let rest = '';
      let inTransaction = 0;
      try {
        for (const chunk of chunks) {
          if (inTransaction === 0) db.exec('begin immediate');
          const parsed = parseCopyText(rest + chunk.toString('latin1'), width);
          rest = parsed.rest;
          insert(parsed.values, parsed.rows);
          if (++inTransaction === CHUNKS_PER_TRANSACTION) {
            db.exec('commit');
            inTransaction = 0;
          }
        }
        if (rest !== '') {
          if (inTransaction === 0) db.exec('begin immediate');
          inTransaction++;
          const parsed = parseCopyText(`${rest}\n`, width);
          insert(parsed.values, parsed.rows);
        }
        if (inTransaction > 0) db.exec('commit');
      } catch (err) {
        if (db.inTransaction) db.exec('rollback');
        throw err;
      }
    },
    async close() {
      try {
        if (db.open) {
          // One checkpoint at the URL's synchronous level: the WAL and then the file reach the disk.
          db.pragma(`synchronous = ${opened.location.options.synchronous.toUpperCase()}`);
          db.pragma('wal_checkpoint(TRUNCATE)');
        }
      } finally {
        closeSqlite(opened);
      }
    },
  };
}

export function insertStatement(table: string, columns: readonly string[], rows: number): string {
  const row = `(${columns.map(() => '?').join(', ')})`;
  return `insert into ${table} (${columns.join(', ')}) values ${Array.from({ length: rows }, () => row).join(', ')}`;
}

/** Money sums are binary REAL in SQLite, so the checks compare them rounded to cents. */
export const sqliteSql: SqlFlavor = {
  distinct: (a, b) => `${a} is not ${b}`,
  length: (e) => `length(${e})`,
  // Both operands are integers in every use, so SQLite's / truncates as wanted.
  intDiv: (a, b) => `(${a}) / (${b})`,
  concat: (...parts) => parts.join(' || '),
  // better-sqlite3 binds arrays to anonymous parameters only, in order of appearance.
  param: () => '?',
  // round() returns the double nearest the decimal it prints, which is how every amount is stored.
  money: (e) => `round(${e}, 2)`,
};

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  capabilities: { procedures: false, concurrentWriters: false },
  ddl: sqliteDdl,
  analyze: (table) => [`analyze ${table}`],
  openConnections: openSqliteConnections,
  sql: sqliteSql,
  async connect(url) {
    return sqliteDb(openSqlite(url, { create: true }));
  },
  async openBulkLoader(url) {
    // Loads write without syncing (no fsync at each checkpoint: same CPU, less waiting) because a
    // load cut short is found from its metadata and redone; closing the loader syncs it all.
    return sqliteBulkLoader(openSqlite(url, { create: false, synchronous: 'off' }));
  },
  classify: classifySqliteError,
  async tableExists(db, table) {
    const rows = await db.query(
      "select 1 as x from sqlite_master where type in ('table', 'view') and name = ? collate nocase",
      [table],
    );
    return rows.length > 0;
  },
  async serverInfo(db) {
    const [row] = await db.query<{ v: string }>('select sqlite_version() as v');
    return { product: 'SQLite', version: row?.v ?? 'unknown' };
  },
  // No server counts transactions for SQLite: the summary shows TPM as n/a.
  serverTransactions: async () => undefined,
  async settings(db) {
    const out: Record<string, string> = {};
    for (const name of SETTINGS) {
      const [row] = await db.query(`pragma ${name}`);
      const value = row === undefined ? undefined : Object.values(row)[0];
      if (value === undefined) continue;
      out[name] =
        name === 'synchronous' ? (SYNCHRONOUS_NAMES[Number(value)] ?? String(value)) : String(value);
    }
    return out;
  },
  async dataDirectory(db) {
    const rows = await db.query<{ name: string; file: string }>('pragma database_list');
    const file = rows.find((r) => r.name === 'main')?.file;
    return file ? path.dirname(file) : undefined;
  },
  ioCounterReader: (db) => () => sqliteIoCounters(db),
};

/** What decides SQLite's speed and durability, as this connection (and the run's) has them. */
const SETTINGS = [
  'journal_mode',
  'synchronous',
  'page_size',
  'cache_size',
  'busy_timeout',
  'wal_autocheckpoint',
  'mmap_size',
  'foreign_keys',
] as const;
const SYNCHRONOUS_NAMES: readonly string[] = ['off', 'normal', 'full', 'extra'];

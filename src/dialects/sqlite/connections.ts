/**
 * SQLite connection slots. better-sqlite3 is synchronous, so all slots share one connection on
 * the main thread and the executor runs transactions one after another (`serial`), each in its
 * own turn of the event loop: SQLite's own model, one writer at a time. A terminal waiting for
 * its turn is on the clock, because the engine measures response time from the moment a
 * transaction was due. A lock held by another process blocks here for up to busy_timeout.
 */
import type { Connections, Session } from '../connections.js';
import type { Row } from '../dialect.js';
import { StatementCache } from '../statement-cache.js';
import { closeSqlite, openSqlite, type SqliteDatabase, type SqliteStatement } from './connect.js';
import { classifySqliteError, isRetryable } from './errors.js';

export async function openSqliteConnections(
  url: string,
  slots: number,
): Promise<Connections<SqliteDatabase>> {
  const opened = openSqlite(url, { create: false });
  const db = opened.db;
  const session = sqliteSession(db);
  return {
    dialect: 'sqlite',
    slots: Math.max(1, slots),
    serial: true,
    handle: () => db,
    session: () => session,
    classify: classifySqliteError,
    isRetryable,
    async recover() {
      if (db.open && db.inTransaction) db.exec('rollback');
    },
    // One file in this process: no connection to lose, none to replace, no call left hanging
    // (the driver is synchronous; busy_timeout bounds a wait for another process's lock).
    reconnect: async () => undefined,
    cancel: async () => undefined,
    lostCode: 'SQLITE_MISUSE',
    async close() {
      closeSqlite(opened);
    },
  };
}

/**
 * Writers take the write lock up front (BEGIN IMMEDIATE), so a transaction never has to upgrade
 * a read lock and lose to another writer.
 */
export function sqliteSession(db: SqliteDatabase): Session {
  const statements = new StatementCache<SqliteStatement>((sql) => db.prepare(sql));
  const begin = db.prepare('begin immediate');
  const commit = db.prepare('commit');
  const rollback = db.prepare('rollback');
  return {
    dialect: 'sqlite',
    param: () => '?',
    async query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      const statement = statements.get(sql);
      if (statement.reader) return statement.all(params) as T[];
      statement.run(params);
      return [];
    },
    execute: async (sql, params = []) => statements.get(sql).run(params).changes,
    begin: async () => void begin.run(),
    commit: async () => void commit.run(),
    rollback: async () => void rollback.run(),
  };
}

import { joinedTransaction, type Db, type Dialect, type Row, type SqlFlavor } from '../dialect.js';
import { openMysqlBulkLoader } from './bulk.js';
import { connectChecked, type Pool } from './connect.js';
import { classifyMysqlError, parseServerVersion } from './errors.js';
import { mysqlIoCounters } from './io-counters.js';
import { applyMysqlSetting, mysqlDataDirectory, mysqlLogDirectory, mysqlSettings } from './settings.js';
import { mysqlDdl } from './ddl.js';
import { openMysqlConnections } from './connections.js';

/** A Db over a mysql2 pool: text protocol, `?` placeholders filled in by the driver. */
export function mysqlDb(pool: Pool): Db {
  return {
    query: queryOn(pool),
    async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      const connection = await pool.getConnection();
      try {
        await connection.beginTransaction();
        try {
          const result = await work(joinedTransaction(queryOn(connection)));
          await connection.commit();
          return result;
        } catch (err) {
          await connection.rollback().catch(() => undefined);
          throw err;
        }
      } finally {
        connection.release();
      }
    },
    close: () => pool.end(),
  };
}

function queryOn(queryable: Pick<Pool, 'query'>): Db['query'] {
  return async <T extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> => {
    const [result] = await queryable.query(text, params as unknown[]);
    return Array.isArray(result) ? (result as unknown as T[]) : [];
  };
}

export const mysqlSqlFlavor: SqlFlavor = {
  distinct: (a, b) => `not (${a} <=> ${b})`,
  length: (e) => `char_length(${e})`,
  intDiv: (a, b) => `((${a}) div (${b}))`,
  concat: (...parts) => `concat(${parts.join(', ')})`,
  param: () => '?',
  money: (e) => e,
};

export const mysqlDialect: Dialect = {
  name: 'mysql',
  capabilities: { procedures: true, concurrentWriters: true },
  ddl: mysqlDdl,
  analyze: (table) => [`analyze table ${table}`],
  openConnections: (url, slots) => openMysqlConnections(url, slots),
  sql: mysqlSqlFlavor,
  async connect(url, { max }) {
    return mysqlDb((await connectChecked(url, max)).pool);
  },
  openBulkLoader: (url) => openMysqlBulkLoader(url),
  classify: classifyMysqlError,
  async tableExists(db, table) {
    const [row] = await db.query<{ n: number }>(
      'select count(*) as n from information_schema.tables where table_schema = database() and table_name = ?',
      [table],
    );
    return Number(row?.n ?? 0) > 0;
  },
  async serverInfo(db) {
    const [row] = await db.query<{ v: string }>('select version() as v');
    const v = parseServerVersion(row?.v ?? '');
    return { product: v.product, version: v.version };
  },
  async serverTimeMs(db) {
    const [row] = await db.query<{ ms: string | number }>('select unix_timestamp(now(6)) * 1000 as ms');
    return row ? Number(row.ms) : undefined;
  },
  transactionCounter: {
    // Com_commit counts the whole server: MySQL names it by server_uuid, MariaDB (which has
    // none) by its host name, port and data directory.
    async scope(db) {
      const uuid = await db
        .query<{ id: string }>('select @@global.server_uuid as id')
        .then(([row]) => row?.id)
        .catch(() => undefined);
      if (uuid) return `mysql ${uuid}`;
      const [row] = await db.query<{ host: string; port: number; dir: string }>(
        'select @@hostname as host, @@port as port, @@datadir as dir',
      );
      return row ? `mysql ${row.host}:${row.port} ${row.dir}` : undefined;
    },
    countsEachStatement: false,
  },
  async serverTransactions(db) {
    try {
      const rows = await db.query<{ Variable_name: string; Value: string }>(
        "show global status where variable_name in ('Com_commit', 'Com_rollback')",
      );
      if (rows.length === 0) return undefined;
      return rows.reduce((sum, r) => sum + Number(r.Value), 0);
    } catch {
      return undefined;
    }
  },
  settings: mysqlSettings,
  dataDirectory: mysqlDataDirectory,
  logDirectory: mysqlLogDirectory,
  applySetting: applyMysqlSetting,
  ioCounterReader: (db) => () => mysqlIoCounters(db),
};

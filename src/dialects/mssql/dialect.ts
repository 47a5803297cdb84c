/**
 * SQL Server through the `mssql` driver (tedious). Written and unit-tested without a live server:
 * the statements and the pure logic are checked, the round trips have not been run.
 */
import {
  joinedTransaction,
  type BulkLoader,
  type Db,
  type Dialect,
  type Row,
  type SqlFlavor,
} from '../dialect.js';
import { mssqlBulkLoader } from './bulk.js';
import { parseMssqlUrl } from './config.js';
import type { MssqlModule, MssqlPool, MssqlRequest } from './driver.js';
import { classifyMssqlError } from './errors.js';
import { mssqlIoCounters } from './io-counters.js';
import { mssqlDdl } from './ddl.js';
import { openMssqlConnections } from './connections.js';
import { bindPositional, identityOf, openPool, productName, SERVER_SQL } from './pool.js';

export {
  bindPositional,
  MIN_MAJOR_VERSION,
  openPool,
  parameterType,
  productName,
  SERVER_SQL,
  versionProblem,
  type ServerIdentity,
} from './pool.js';

/** The SQL Server spellings of what the checks and metadata need. */
export const mssqlFlavor: SqlFlavor = {
  // IS DISTINCT FROM exists only from SQL Server 2022; this works on every version.
  distinct: (a, b) =>
    `(${a} <> ${b} or (${a} is null and ${b} is not null) or (${a} is not null and ${b} is null))`,
  // len() ignores trailing spaces, as PostgreSQL's length() does for char(n).
  length: (e) => `len(${e})`,
  intDiv: (a, b) => `(${a}) / (${b})`,
  concat: (...parts) =>
    parts.length === 0 ? "''" : parts.length === 1 ? parts[0]! : `concat(${parts.join(', ')})`,
  param: (i) => `@p${i}`,
  money: (e) => e,
};

/** A Db over a driver pool: `@p1`… bound positionally, the first result set returned. */
export function mssqlDb(sql: MssqlModule, pool: MssqlPool): Db {
  return {
    query: queryOn(sql, () => pool.request()),
    async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      const transaction = new sql.Transaction(pool);
      await transaction.begin();
      try {
        const result = await work(joinedTransaction(queryOn(sql, () => transaction.request())));
        await transaction.commit();
        return result;
      } catch (err) {
        await transaction.rollback().catch(() => undefined);
        throw err;
      }
    },
    close: () => pool.close(),
  };
}

function queryOn(sql: MssqlModule, request: () => MssqlRequest): Db['query'] {
  return async <T extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<T[]> => {
    const result = await bindPositional(sql, request(), params).query(text);
    return (result.recordset ?? []) as T[];
  };
}

export const SERVER_TRANSACTIONS_SQL = `select cntr_value as n from sys.dm_os_performance_counters
  where counter_name = 'Batch Requests/sec' and object_name like '%SQL Statistics%'`;

export const mssqlDialect: Dialect = {
  name: 'mssql',
  capabilities: { procedures: true, concurrentWriters: true },
  ddl: mssqlDdl,
  analyze: (table) => [`update statistics ${table}`],
  openConnections: openMssqlConnections,
  sql: mssqlFlavor,
  async connect(url, { max }) {
    const { sql, pool } = await openPool(parseMssqlUrl(url), max);
    return mssqlDb(sql, pool);
  },
  async openBulkLoader(url): Promise<BulkLoader> {
    // Big packets: bulk rows are the one place where bytes per round trip matter.
    const { sql, pool } = await openPool(parseMssqlUrl(url), 1, { packetSize: 32_767 });
    return mssqlBulkLoader(sql, pool);
  },
  classify: classifyMssqlError,
  async tableExists(db, table) {
    const [row] = await db.query<{ e: number }>(
      `select case when object_id(@p1, 'U') is null then 0 else 1 end as e`,
      [table],
    );
    return row?.e === 1;
  },
  async serverInfo(db) {
    const id = identityOf((await db.query(SERVER_SQL))[0]);
    return { product: productName(id), version: id.edition ? `${id.version} (${id.edition})` : id.version };
  },
  /**
   * The server's cumulative Batch Requests/sec counter (it counts batches and RPCs, despite its
   * name): every txbench transaction is one batch or one procedure call. It covers the whole
   * server, and needs VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE from 2022); undefined without.
   */
  async serverTransactions(db) {
    try {
      const [row] = await db.query<{ n: unknown }>(SERVER_TRANSACTIONS_SQL);
      return row ? Number(row.n) : undefined;
    } catch {
      return undefined;
    }
  },
  async settings(db) {
    const rows = await db.query<{ name: string; value: unknown }>(
      `select name, value_in_use as value from sys.configurations where name in
        ('max server memory (MB)', 'min server memory (MB)', 'max degree of parallelism', 'recovery interval (min)')`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, String(r.value)]));
  },
  /** sp_configure options (e.g. 'max server memory (MB)') take effect with RECONFIGURE, no restart. */
  async applySetting(db, name, value) {
    await db.query(
      `exec sp_configure 'show advanced options', 1; reconfigure;
      exec sp_configure @p1, @p2; reconfigure;`,
      [name, Number(value)],
    );
    return 'applied';
  },
  ioCounterReader: (db) => () => mssqlIoCounters(db),
};

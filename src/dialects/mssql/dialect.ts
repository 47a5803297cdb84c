/**
 * SQL Server through the `mssql` driver (tedious). Written and unit-tested without a live server:
 * the statements and the pure logic are checked, the round trips have not been run.
 */
import { DatabaseError } from '../../errors.js';
import {
  joinedTransaction,
  type BulkLoader,
  type Db,
  type Dialect,
  type Row,
  type SqlFlavor,
} from '../dialect.js';
import { mssqlBulkLoader } from './bulk.js';
import { describeConnectionError, parseMssqlUrl, poolConfig, whereOf, type MssqlTarget } from './config.js';
import {
  loadMssql,
  type MssqlModule,
  type MssqlPool,
  type MssqlRequest,
  type MssqlTypeSpec,
} from './driver.js';
import { classifyMssqlError } from './errors.js';
import { mssqlIoCounters } from './io-counters.js';

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

const MAX_VARCHAR = 8000;

/** The driver type a positional parameter is bound as (money should be passed as a string). */
export function parameterType(sql: MssqlModule, value: unknown): MssqlTypeSpec {
  if (value === null || value === undefined) return sql.VarChar(1);
  switch (typeof value) {
    case 'number':
      if (Number.isInteger(value)) {
        return value >= -2_147_483_648 && value <= 2_147_483_647 ? sql.Int() : sql.BigInt();
      }
      return sql.Float();
    case 'bigint':
      return sql.BigInt();
    case 'boolean':
      return sql.Bit();
    case 'string': {
      // varchar, not nvarchar: an nvarchar parameter against a varchar column converts the column
      // and turns index seeks into scans.
      // eslint-disable-next-line no-control-regex
      const ascii = /^[\x00-\x7f]*$/.test(value);
      if (ascii) return sql.VarChar(value.length <= MAX_VARCHAR ? MAX_VARCHAR : sql.MAX);
      return sql.NVarChar(value.length <= MAX_VARCHAR / 2 ? MAX_VARCHAR / 2 : sql.MAX);
    }
    default:
      if (value instanceof Date) return sql.DateTime2();
      if (Buffer.isBuffer(value)) return sql.VarBinary(sql.MAX);
      throw new TypeError(`cannot bind a ${typeof value} as a SQL Server parameter`);
  }
}

/** Binds positional parameters as @p1..@pn. */
export function bindPositional(
  sql: MssqlModule,
  request: MssqlRequest,
  params: readonly unknown[],
): MssqlRequest {
  params.forEach((value, i) => {
    const bound = typeof value === 'bigint' ? value.toString() : value;
    request.input(`p${i + 1}`, parameterType(sql, value), bound ?? null);
  });
  return request;
}

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

/** SQL Server 2016 (13.x) brought DROP … IF EXISTS and, with SP1, CREATE OR ALTER. */
export const MIN_MAJOR_VERSION = 13;
/** Azure SQL Database (5) and Managed Instance (8) report 12.x but have everything txbench uses. */
const AZURE_ENGINE_EDITIONS = new Set([5, 8]);

export const SERVER_SQL = `select cast(serverproperty('ProductVersion') as varchar(64)) as version,
    cast(serverproperty('Edition') as varchar(128)) as edition,
    cast(serverproperty('EngineEdition') as int) as engine_edition`;

export interface ServerIdentity {
  version: string;
  edition: string;
  engineEdition: number;
}

function identityOf(row: Row | undefined): ServerIdentity {
  return {
    version: String(row?.version ?? 'unknown'),
    edition: String(row?.edition ?? ''),
    engineEdition: Number(row?.engine_edition ?? 0),
  };
}

export function productName(id: ServerIdentity): string {
  if (id.engineEdition === 5) return 'Azure SQL Database';
  if (id.engineEdition === 8) return 'Azure SQL Managed Instance';
  return 'Microsoft SQL Server';
}

/** Undefined when the server is new enough, else the one-line reason. */
export function versionProblem(id: ServerIdentity, where: string): string | undefined {
  if (AZURE_ENGINE_EDITIONS.has(id.engineEdition)) return undefined;
  const major = Number(/^(\d+)\./.exec(id.version)?.[1] ?? NaN);
  if (Number.isFinite(major) && major >= MIN_MAJOR_VERSION) return undefined;
  return `${where} runs SQL Server ${id.version}; txbench needs SQL Server 2016 (13.x) or later, or Azure SQL`;
}

/** Opens a pool, proves it with one round trip that also checks the version. */
export async function openPool(
  target: MssqlTarget,
  max: number,
  extra: { packetSize?: number } = {},
): Promise<{ sql: MssqlModule; pool: MssqlPool }> {
  const sql = loadMssql();
  const pool = new sql.ConnectionPool(poolConfig(target, max, extra));
  // The pool re-emits failures to create connections; unheard, an 'error' event ends the process.
  pool.on('error', () => undefined);
  let identity: ServerIdentity;
  try {
    await pool.connect();
    identity = identityOf((await pool.request().query(SERVER_SQL)).recordset?.[0]);
  } catch (err) {
    await pool.close().catch(() => undefined);
    throw describeConnectionError(err, target);
  }
  const problem = versionProblem(identity, whereOf(target));
  if (problem !== undefined) {
    await pool.close().catch(() => undefined);
    throw new DatabaseError(problem);
  }
  return { sql, pool };
}

export const SERVER_TRANSACTIONS_SQL = `select cntr_value as n from sys.dm_os_performance_counters
  where counter_name = 'Batch Requests/sec' and object_name like '%SQL Statistics%'`;

export const mssqlDialect: Dialect = {
  name: 'mssql',
  capabilities: { procedures: true, concurrentWriters: true },
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
  ioCounters: mssqlIoCounters,
};

/** Opening a SQL Server pool and binding positional parameters, shared by the dialect and its connection slots. */
import { DatabaseError } from '../../errors.js';
import type { Row } from '../dialect.js';
import { describeConnectionError, poolConfig, whereOf, type MssqlTarget } from './config.js';
import {
  loadMssql,
  type MssqlModule,
  type MssqlPool,
  type MssqlRequest,
  type MssqlTypeSpec,
} from './driver.js';

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

/** SQL Server 2016 (13.x) brought DROP … IF EXISTS and, with SP1, CREATE OR ALTER. */
export const MIN_MAJOR_VERSION = 13;
/** Azure SQL Database (5) and Managed Instance (8) report 12.x but have everything txbench uses. */
const AZURE_ENGINE_EDITIONS: ReadonlySet<number> = new Set([5, 8]);

export const SERVER_SQL = `select cast(serverproperty('ProductVersion') as varchar(64)) as version,
    cast(serverproperty('Edition') as varchar(128)) as edition,
    cast(serverproperty('EngineEdition') as int) as engine_edition`;

export interface ServerIdentity {
  version: string;
  edition: string;
  engineEdition: number;
}

export function identityOf(row: Row | undefined): ServerIdentity {
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

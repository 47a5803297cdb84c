/**
 * TPC-C on SQL Server (`mssql://` / `sqlserver://`). Built and unit-tested without a live server:
 * the generated statements and the pure logic are tested; no run against SQL Server has been made.
 */
import { mssqlDialect } from '../../../dialects/mssql/dialect.js';
import type { TpccDialect } from '../tpcc-types.js';
import { MssqlTpccExecutor } from './executor.js';
import { analyzeStatements, MSSQL_DDL } from './sql.js';

export const mssqlTpcc: TpccDialect = {
  dialect: mssqlDialect,
  ddl: MSSQL_DDL,
  analyze: analyzeStatements,
  openExecutor: (url, connections, ctx, options) => MssqlTpccExecutor.open(url, connections, ctx, options),
};

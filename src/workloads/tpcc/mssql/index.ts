/**
 * TPC-C on SQL Server (`mssql://` / `sqlserver://`). Built and unit-tested without a live server:
 * the generated statements and the pure logic are tested; no run against SQL Server has been made.
 */
import { mssqlDialect } from '../../../dialects/mssql/dialect.js';
import { tpccDialect } from '../tpcc-types.js';
import { openMssqlTpcc } from './executor.js';

export const mssqlTpcc = tpccDialect(mssqlDialect, openMssqlTpcc);

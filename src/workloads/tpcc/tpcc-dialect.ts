/**
 * What the TPC-C workload needs from a database beyond the generic dialect: how it spells the
 * schema, how it analyzes, and its implementation of the five transactions. Each database's is
 * loaded only when its URL scheme is used, so a SQLite user never loads a PostgreSQL driver.
 */
import { SCHEMES, schemeOf, SUPPORTED_URL_FORMS, type Dialect } from '../../dialects/dialect.js';
import { UsageError } from '../../errors.js';
import type { TpccDialect } from './tpcc-types.js';

const LOADERS: Readonly<Record<Dialect['name'], () => Promise<TpccDialect>>> = {
  postgres: async () => (await import('./postgres/index.js')).postgresTpcc,
  mysql: async () => (await import('./mysql/index.js')).mysqlTpcc,
  sqlite: async () => (await import('./sqlite/index.js')).sqliteTpcc,
  mssql: async () => (await import('./mssql/index.js')).mssqlTpcc,
};

/** The TPC-C support for the database a URL names, loaded (with its driver) on first use. */
export async function tpccDialectFor(url: string): Promise<TpccDialect> {
  const scheme = schemeOf(url);
  const name = scheme === undefined ? undefined : SCHEMES[scheme];
  if (name === undefined) {
    throw new UsageError(
      `unsupported database URL scheme "${scheme ?? ''}"; use one of ${SUPPORTED_URL_FORMS}`,
    );
  }
  return LOADERS[name]();
}

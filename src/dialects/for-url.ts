/**
 * The dialect a database URL names, its module loaded on first use (a SQLite user never loads a
 * PostgreSQL driver).
 */
import { UsageError } from '../errors.js';
import { SCHEMES, schemeOf, SUPPORTED_URL_FORMS, type Dialect } from './dialect.js';

const LOADERS: Readonly<Record<Dialect['name'], () => Promise<Dialect>>> = {
  postgres: async () => (await import('./postgres/dialect.js')).postgresDialect,
  mysql: async () => (await import('./mysql/dialect.js')).mysqlDialect,
  sqlite: async () => (await import('./sqlite/dialect.js')).sqliteDialect,
  mssql: async () => (await import('./mssql/dialect.js')).mssqlDialect,
};

/** The name of the database a URL names, or a usage error listing the URL forms txbench takes. */
export function dialectNameOf(url: string): Dialect['name'] {
  const scheme = schemeOf(url);
  const name = scheme === undefined ? undefined : SCHEMES[scheme];
  if (name === undefined) {
    throw new UsageError(
      `unsupported database URL scheme "${scheme ?? ''}"; use one of ${SUPPORTED_URL_FORMS}`,
    );
  }
  return name;
}

export async function dialectFor(url: string): Promise<Dialect> {
  return LOADERS[dialectNameOf(url)]();
}

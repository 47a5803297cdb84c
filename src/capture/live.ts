/** `txbench capture --db URL --duration D`: the live capture for the target's database. */
import { schemeOf, SCHEMES } from '../dialects/dialect.js';
import { UsageError } from '../errors.js';
import type { LiveCaptureOptions, LiveCaptureResult } from './live-types.js';
import type { Restored } from './restore-record.js';

/** Runs the live capture of the database the URL names; each source module is loaded only when used. */
export async function captureLive(
  url: string,
  out: string,
  options: LiveCaptureOptions,
): Promise<LiveCaptureResult> {
  const dialect = SCHEMES[schemeOf(url) ?? ''];
  switch (dialect) {
    case 'postgres':
      return (await import('./postgres/live.js')).capturePostgresLive(url, out, options);
    case 'mysql':
      return (await import('./mysql/live.js')).captureMysqlLive(url, out, options);
    case 'mssql':
      return (await import('./mssql/live.js')).captureMssqlLive(url, out, options);
    default:
      throw new UsageError(
        `txbench capture --db works with PostgreSQL, MySQL/MariaDB and SQL Server URLs, not ${schemeOf(url) ?? url.slice(0, 12)}; give one of those`,
      );
  }
}

/** `txbench capture --restore`: puts back what a killed live capture left changed on this server. */
export async function restoreLive(url: string): Promise<Restored> {
  const dialect = SCHEMES[schemeOf(url) ?? ''];
  switch (dialect) {
    case 'postgres':
      return (await import('./postgres/live.js')).restorePostgres(url);
    case 'mysql':
      return (await import('./mysql/live.js')).restoreMysql(url);
    default:
      throw new UsageError(
        `txbench capture --restore works with PostgreSQL and MySQL/MariaDB URLs (SQL Server's event session is dropped by name), not ${schemeOf(url) ?? url.slice(0, 12)}`,
      );
  }
}

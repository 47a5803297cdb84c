/**
 * The replay's session drivers, one per database it replays onto, loaded only when needed: the
 * run path asks by the target's dialect, never "which database am I on?".
 */
import type { DialectName } from '../dialects/connections.js';
import { UsageError } from '../errors.js';
import type { ReplayDriver } from './sessions.js';

const DRIVERS: Partial<Record<DialectName, (url: string) => Promise<ReplayDriver>>> = {
  postgres: async (url) => (await import('./postgres-driver.js')).postgresDriver(url),
  mysql: async (url) => (await import('./mysql-driver.js')).mysqlDriver(url),
};

/** The databases a capture replays onto. */
export const REPLAY_DIALECTS = Object.keys(DRIVERS) as DialectName[];

export async function driverFor(dialect: DialectName, url: string): Promise<ReplayDriver> {
  const open = DRIVERS[dialect];
  if (open === undefined)
    throw new UsageError('txbench replay runs on PostgreSQL and MySQL/MariaDB targets; give such a --db');
  return open(url);
}

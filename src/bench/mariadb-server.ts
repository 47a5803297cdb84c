/**
 * A throw-away MariaDB server for the loader section, as the integration tests start theirs:
 * `mariadbd` from the distribution's package (what `.ci/run` installs) on 127.0.0.1 and a free
 * port, its own data directory in a temporary directory, a `tpcc` database and a user with a
 * password. As root it runs as the `mysql` user. Server-side LOAD DATA INFILE and SELECT … INTO
 * OUTFILE may use `fileDir` (secure_file_priv) only.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Cleanup } from './cleanup.js';
import { freePort } from './pg-cluster.js';

const exec = promisify(execFile);

export const MARIADBD = process.env.BENCH_MARIADBD ?? '/usr/sbin/mariadbd';
const USER = 'txbench';
// A throw-away server on 127.0.0.1 that lives for one section: not a secret.
const PASSWORD = 'txbench-bench-pw';

/** As the tests' server, with a buffer pool for a 10-warehouse load. */
const SETTINGS: readonly string[] = [
  '--innodb-buffer-pool-size=1G',
  '--innodb-log-file-size=512M',
  '--innodb-flush-log-at-trx-commit=1',
  '--local-infile=1',
  '--skip-name-resolve',
  '--max-connections=300',
  '--character-set-server=utf8mb4',
  '--collation-server=utf8mb4_general_ci',
];

export interface MariaDbServer {
  readonly pid: number;
  readonly version: string;
  /** Where the server may read and write files (secure_file_priv), owned by its user. */
  readonly fileDir: string;
  /** The `txbench` user's URL for a database, created if missing. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startMariaDb(cleanup: Cleanup): Promise<MariaDbServer> {
  if (!existsSync(MARIADBD)) throw new Error(`no mariadbd at ${MARIADBD}; install mariadb-server (.ci/run)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'txbench-bench-mariadb-'));
  const removeDir = cleanup.onCleanup('temporary directory', () => rm(dir, { recursive: true, force: true }));
  let stopServer: (() => Promise<void>) | undefined;
  try {
    await chmod(dir, 0o755);
    const dataDir = path.join(dir, 'data');
    const runDir = path.join(dir, 'run');
    const fileDir = path.join(dir, 'files');
    for (const d of [dataDir, runDir, fileDir]) await mkdir(d);
    const runAs = userInfo().uid === 0 ? 'mysql' : userInfo().username;
    if (runAs === 'mysql') {
      const { uid, gid } = await idsOf('mysql');
      for (const d of [dataDir, runDir, fileDir]) await chown(d, uid, gid);
    }
    await exec('mariadb-install-db', [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--user=${runAs}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
    const socket = path.join(runDir, 'mysqld.sock');
    const log = path.join(runDir, 'error.log');
    const port = await freePort();
    const child = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--socket=${socket}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        `--user=${runAs}`,
        `--pid-file=${path.join(runDir, 'mysqld.pid')}`,
        `--log-error=${log}`,
        `--secure-file-priv=${fileDir}`,
        ...SETTINGS,
      ],
      { stdio: 'ignore', detached: true },
    );
    let alive = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => (alive = false));
    process.once('exit', () => {
      if (alive) child.kill('SIGKILL');
    });
    stopServer = cleanup.onCleanup('MariaDB server', async () => {
      if (!alive) return;
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(kill);
    });
    await waitReady(socket, () => alive, log);
    const admin = (sql: string): Promise<unknown> =>
      exec('mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', sql]);
    // Anonymous users (''@localhost) would shadow txbench@'%' for connections from 127.0.0.1.
    await admin(
      `delete from mysql.global_priv where user = ''; flush privileges; ` +
        `create user '${USER}'@'%' identified by '${PASSWORD}'; grant all on *.* to '${USER}'@'%'`,
    );
    const { stdout } = await exec('mariadb', [
      '--no-defaults',
      `--socket=${socket}`,
      '-uroot',
      '-N',
      '-e',
      'select version()',
    ]);
    return {
      pid: child.pid!,
      version: stdout.trim(),
      fileDir,
      async createDatabase(name) {
        await admin(`drop database if exists ${name}; create database ${name}`);
        return `mysql://${USER}:${PASSWORD}@127.0.0.1:${port}/${name}`;
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

async function idsOf(user: string): Promise<{ uid: number; gid: number }> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  const fields = passwd
    .split('\n')
    .find((l) => l.startsWith(`${user}:`))
    ?.split(':');
  if (!fields || fields.length < 4) throw new Error(`no ${user} system user; install mariadb-server`);
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

async function waitReady(socket: string, alive: () => boolean, log: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await exec('mariadb-admin', ['--no-defaults', `--socket=${socket}`, '-uroot', 'ping']);
      return;
    } catch {
      // not up yet
    }
    if (!alive() || Date.now() > deadline) {
      const tail = await readFile(log, 'utf8').catch(() => '');
      throw new Error(
        `mariadbd did not start${alive() ? ' within 60 s' : ' (it exited)'}: ${tail.trim().split('\n').at(-1) ?? ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

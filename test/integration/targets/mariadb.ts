/**
 * A throwaway MariaDB server for the MySQL/MariaDB dialect: a fresh data directory in a temp dir,
 * `mariadbd` on 127.0.0.1 and a free port, a `tpcc` database and a user with a password. As root
 * the server runs as the `mysql` system user (which Debian's mariadb-server package creates), so
 * the temp dir is made world-traversable and the data directory is handed to that user.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempDir, removeDir } from '../helpers.js';
import type { TestTarget } from './test-target.js';
import { freePort } from '../../free-port.js';

const run = promisify(execFile);

const MARIADBD = process.env.TXBENCH_MARIADBD ?? '/usr/sbin/mariadbd';
const INSTALL_DB = process.env.TXBENCH_MARIADB_INSTALL_DB ?? 'mariadb-install-db';
const USER = 'txbench';
const PASSWORD = 'txbench-test-pw';
const DATABASE = 'tpcc';

/** Server settings sized for a 1-warehouse test database on a small machine. */
const SERVER_SETTINGS = [
  '--innodb-buffer-pool-size=512M',
  '--innodb-log-file-size=256M',
  '--innodb-flush-log-at-trx-commit=1',
  '--local-infile=1',
  '--skip-name-resolve',
  '--max-connections=300',
  '--character-set-server=utf8mb4',
  '--collation-server=utf8mb4_general_ci',
];

export interface MariaDbServer extends TestTarget {
  /** The administrator's URL (root over TCP, no password). */
  rootUrl: string;
  socket: string;
  port: number;
  /** SIGKILL the server (a crash: InnoDB recovers at start), then start it again on the same port. */
  killAndRestart(): Promise<void>;
}

export interface MariaDbOptions {
  /**
   * A new directory for the data directory (on a file system the caller mounted, say), which the
   * caller removes; by default one in the server's temp dir.
   */
  dataDir?: string;
}

/** `extraArgs`: more mariadbd options (TLS files, say); later ones override the defaults. */
export async function startMariaDb(
  extraArgs: readonly string[] = [],
  options: MariaDbOptions = {},
): Promise<MariaDbServer> {
  const dir = await makeTempDir('txbench-mariadb-');
  const dataDir = options.dataDir ?? path.join(dir, 'data');
  // The server writes its socket, pid file and log in run/, which its user owns.
  const socket = path.join(dir, 'run', 'mysqld.sock');
  const log = path.join(dir, 'run', 'error.log');
  let child: ChildProcess | undefined;
  try {
    await mkdir(dataDir);
    await mkdir(path.dirname(socket));
    const runAs = userInfo().uid === 0 ? 'mysql' : userInfo().username;
    if (runAs === 'mysql') {
      const { uid, gid } = await idsOf('mysql');
      await chown(dataDir, uid, gid);
      await chown(path.dirname(socket), uid, gid);
    }
    await run(INSTALL_DB, [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--user=${runAs}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
    const port = await freePort();
    const launch = (): ChildProcess =>
      spawn(
        MARIADBD,
        [
          '--no-defaults',
          `--datadir=${dataDir}`,
          `--socket=${socket}`,
          `--port=${port}`,
          '--bind-address=127.0.0.1',
          `--user=${runAs}`,
          `--pid-file=${path.join(dir, 'run', 'mysqld.pid')}`,
          `--log-error=${log}`,
          ...SERVER_SETTINGS,
          ...extraArgs,
        ],
        { stdio: 'ignore' },
      );
    child = launch();
    let exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    await waitForServer(socket, exited, log);
    await admin(socket, [
      `create database ${DATABASE}`,
      `create user '${USER}'@'%' identified by '${PASSWORD}'`,
      `grant all on ${DATABASE}.* to '${USER}'@'%'`,
    ]);
    let server = child;
    let stopped = false;
    return {
      url: `mysql://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
      rootUrl: `mysql://root@127.0.0.1:${port}/${DATABASE}`,
      socket,
      port,
      async killAndRestart() {
        server.kill('SIGKILL');
        await exited;
        server = launch();
        child = server;
        exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
        await waitForServer(socket, exited, log);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await stopProcess(server, exited);
        } finally {
          await removeDir(dir);
        }
      },
    };
  } catch (err) {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await removeDir(dir);
    throw err;
  }
}

async function idsOf(user: string): Promise<{ uid: number; gid: number }> {
  const passwd = await readFile('/etc/passwd', 'utf8');
  const line = passwd.split('\n').find((l) => l.startsWith(`${user}:`));
  const fields = line?.split(':');
  if (!fields || fields.length < 4) throw new Error(`no ${user} system user; install mariadb-server`);
  return { uid: Number(fields[2]), gid: Number(fields[3]) };
}

/** Runs statements as root over the socket with the command-line client. */
async function admin(socket: string, statements: string[]): Promise<void> {
  await run('mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', statements.join('; ')]);
}

async function waitForServer(socket: string, exited: Promise<number | null>, log: string): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await run('mariadb-admin', ['--no-defaults', `--socket=${socket}`, '-uroot', 'ping']);
      return;
    } catch {
      // not up yet
    }
    if (gone || Date.now() > deadline) {
      const tail = await readFile(log, 'utf8').catch(() => '');
      throw new Error(
        `mariadbd did not start${gone ? ' (it exited)' : ' within 60 s'}: ${tail.split('\n').slice(-8).join(' | ')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function stopProcess(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 60_000).unref());
  if ((await Promise.race([exited, timeout])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

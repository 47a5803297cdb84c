/**
 * A PostgreSQL 15 server the test owns, run with pg_ctl so that the test can restart it the way
 * an operator (or a crash) would: `pg_ctl restart -m immediate`. Its own data directory in a temp
 * dir, 127.0.0.1 on a free port, trust authentication; as root it runs as the `postgres` user.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chown, mkdir, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../free-port.js';
import { makeTempDir, removeDir } from '../helpers.js';

const run = promisify(execFile);
const PG_BIN = process.env.TXBENCH_PG15_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PgCtlServer {
  port: number;
  url: string;
  /** `pg_ctl restart -m immediate`: every backend killed at once, crash recovery at start. */
  restartImmediate(): Promise<void>;
  stop(): Promise<void>;
}

/** What the test adds: server settings (`-c` name=value) and pg_hba.conf's lines (replacing initdb's). */
export interface PgCtlOptions {
  settings?: readonly string[];
  hba?: string;
}

export async function startPgCtlServer(extra: PgCtlOptions = {}): Promise<PgCtlServer> {
  const ids = userInfo().uid === 0 ? postgresIds() : undefined;
  const dir = await makeTempDir('txbench-pg15-');
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const port = await freePort();
  const as = ids === undefined ? {} : { uid: ids.uid, gid: ids.gid };
  const pgCtl = (...args: string[]) =>
    run(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-l', logFile, ...args], { ...as, cwd: dir });
  try {
    await mkdir(dataDir, { mode: 0o700 });
    if (ids) {
      await chown(dataDir, ids.uid, ids.gid);
      await chown(dir, ids.uid, ids.gid);
    }
    await run(
      path.join(PG_BIN, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
      { ...as, cwd: dir },
    );
    if (extra.hba !== undefined) await writeFile(path.join(dataDir, 'pg_hba.conf'), extra.hba);
    const settings = (extra.settings ?? []).map((s) => ` -c ${s}`).join('');
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=100 -c shared_buffers=128MB -c fsync=on${settings}`;
    await pgCtl('-o', options, '-w', '-t', '60', 'start');
  } catch (err) {
    await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
    await removeDir(dir);
    throw err;
  }
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restartImmediate() {
      await pgCtl('-m', 'immediate', '-w', '-t', '60', 'restart');
    },
    async stop() {
      await pgCtl('-m', 'fast', '-w', 'stop').catch(() => undefined);
      await removeDir(dir);
    },
  };
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

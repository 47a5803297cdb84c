/**
 * A live capture killed mid-window (SIGKILL: the load machine lost) must not leave the server
 * logging every statement: its record (written before the first change) lets `txbench capture
 * --restore` put the settings back, and the next capture of that server does it first.
 * PostgreSQL (ALTER SYSTEM) and MariaDB (SET GLOBAL general_log).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli, spawnCli, startTempServer, type TempServer } from './helpers.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

let dir: string;
const previousStateDir = process.env.TXBENCH_STATE_DIR;

beforeAll(async () => {
  dir = await makeTempDir('txbench-capture-restore-');
  // The CLI's children inherit it: their records go to this test's own state directory.
  process.env.TXBENCH_STATE_DIR = path.join(dir, 'state');
});
afterAll(async () => {
  if (previousStateDir === undefined) delete process.env.TXBENCH_STATE_DIR;
  else process.env.TXBENCH_STATE_DIR = previousStateDir;
  await removeDir(dir);
});

/** Starts a long capture, waits until the server logs every statement, and kills it. */
async function killedCapture(url: string, logging: () => Promise<boolean>, name: string): Promise<void> {
  const live = spawnCli(dir, ['capture', '--db', url, '--duration', '10m', '--out', path.join(dir, name)]);
  await live.untilStderr((e) => e.includes('capturing from'));
  for (let i = 0; i < 600 && !(await logging()); i++) await new Promise((r) => setTimeout(r, 100));
  live.child.kill('SIGKILL');
  await live.exit;
  expect(await logging(), 'still logging after the kill').toBe(true);
}

describe('a killed capture on PostgreSQL', () => {
  let pg: TempServer;
  const setting = async (): Promise<string> => {
    const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      const [row] = await sql<
        { s: string }[]
      >`select setting as s from pg_settings where name = 'log_min_duration_statement'`;
      return row!.s;
    } finally {
      await sql.end();
    }
  };
  const logging = async (): Promise<boolean> => (await setting()) === '0';

  beforeAll(async () => {
    pg = await startTempServer();
  }, 180_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it('is put back by capture --restore, which then has nothing left to do', async () => {
    const before = await setting();
    expect(before).not.toBe('0');
    await killedCapture(pg.url, logging, 'pg-1.ndjson');
    const restore = await runCli(dir, ['capture', '--restore', '--db', pg.url]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stderr).toContain('restored log_min_duration_statement');
    expect(restore.stderr).not.toContain(new URL(pg.url).password || '\u0000');
    expect(await setting()).toBe(before);
    const again = await runCli(dir, ['capture', '--restore', '--db', pg.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('nothing to restore');
  }, 180_000);

  it('is put back first by the next capture, which then restores its own', async () => {
    const before = await setting();
    await killedCapture(pg.url, logging, 'pg-2.ndjson');
    const next = await runCli(dir, [
      'capture',
      '--db',
      pg.url,
      '--duration',
      '1s',
      '--out',
      path.join(dir, 'pg-3.ndjson'),
    ]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('first restored log_min_duration_statement');
    expect(await setting()).toBe(before);
  }, 180_000);
});

describe('a killed capture on MariaDB', () => {
  let server: MariaDbServer;
  const generalLog = async (): Promise<string> => {
    const { stdout } = await promisify(execFile)('mariadb', [
      '--no-defaults',
      `--socket=${server.socket}`,
      '-uroot',
      '-N',
      '-B',
      '-e',
      'select @@global.general_log',
    ]);
    return stdout.trim();
  };
  beforeAll(async () => {
    server = await startMariaDb();
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('is put back by capture --restore, and first by the next capture', async () => {
    expect(await generalLog()).toBe('0');
    const logging = async (): Promise<boolean> => (await generalLog()) === '1';
    await killedCapture(server.rootUrl, logging, 'my-1.ndjson');
    const restore = await runCli(dir, ['capture', '--restore', '--db', server.rootUrl]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(await generalLog()).toBe('0');
    await killedCapture(server.rootUrl, logging, 'my-2.ndjson');
    const next = await runCli(dir, [
      'capture',
      '--db',
      server.rootUrl,
      '--duration',
      '1s',
      '--out',
      path.join(dir, 'my-3.ndjson'),
    ]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('first restored general_log');
    expect(await generalLog()).toBe('0');
  }, 240_000);
});

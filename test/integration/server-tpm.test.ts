/**
 * TPM from the server's transaction counter, with two targets on one server: PostgreSQL (the same
 * database twice: pg_stat_database counts per database) and MariaDB (two databases: Com_commit
 * counts the whole server). The counter is counted once, not once per target, and txbench's own
 * side statements (counters, monitoring) are left out: the TPM equals the transactions the
 * client counted, within the edges of the counter's reading.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli, startTempServer, type TempServer } from './helpers.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

interface Summary {
  tpm: number | null;
  transactions: number;
  errors: number;
  retries?: number;
  windowSeconds: number;
}
interface TargetsRun {
  summary: Summary;
  targets: { label: string; summary: Summary }[];
}

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('txbench-server-tpm-');
});
afterAll(async () => {
  await removeDir(dir);
});

/** Both targets at a low paced rate, so that txbench's own side statements would show if counted. */
async function runTwoTargets(first: string, second: string, out: string): Promise<TargetsRun> {
  const r = await runCli(
    dir,
    [
      'run',
      ...['--db', first, '--label', 'a', '--db', second, '--label', 'b'],
      ...['--terminals', '2', '--think-scale', '0.01', '--warmup', '3s', '--duration', '30s'],
      ...['--interval', '5s', '--seed', '5', '--out', out],
    ],
    240_000,
  );
  expect(r.code, r.stderr).toBe(0);
  const [runDir] = await readdir(out);
  return JSON.parse(await readFile(path.join(out, runDir!, 'run.json'), 'utf8')) as TargetsRun;
}

/** What the client sent per minute: completed, failed and retried transactions, each one on the server. */
function expectServerTpm(run: TargetsRun): void {
  const client =
    (run.targets.reduce(
      (a, t) => a + t.summary.transactions + t.summary.errors + (t.summary.retries ?? 0),
      0,
    ) *
      60) /
    Math.max(...run.targets.map((t) => t.summary.windowSeconds));
  const tpm = run.summary.tpm;
  const detail = `server TPM ${tpm}, client ${client.toFixed(1)}/min, targets ${run.targets.map((t) => t.summary.tpm).join(', ')}`;
  expect(tpm, detail).not.toBeNull();
  // The edges of the counter’s reading (pg_stat flushes up to a second late) and the workload’s own setup; counted twice would be 100% off.
  expect(Math.abs(tpm! - client), detail).toBeLessThan(0.25 * client + 20);
  // Each target sees the whole counter, shared with the other.
  for (const t of run.targets)
    expect(Math.abs(t.summary.tpm! - client), detail).toBeLessThan(0.25 * client + 20);
}

// The two servers' suites run side by side: each is mostly its paced 30 s window, waiting.
describe('TPM with two targets on one PostgreSQL database', { concurrent: true }, () => {
  let pg: TempServer;
  beforeAll(async () => {
    pg = await startTempServer();
    const load = await runCli(dir, ['load', '--db', pg.url, '--warehouses', '1', '--seed', '3'], 300_000);
    expect(load.code, load.stderr).toBe(0);
  }, 400_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it('counts the database once and leaves txbench’s own statements out', async () => {
    expectServerTpm(await runTwoTargets(pg.url, pg.url, path.join(dir, 'pg')));
  }, 300_000);
});

describe('TPM with two targets on one MariaDB server', { concurrent: true }, () => {
  let server: MariaDbServer;
  const url = (database: string): string => {
    const u = new URL(server.rootUrl);
    u.pathname = `/${database}`;
    return u.toString();
  };
  beforeAll(async () => {
    server = await startMariaDb();
    await promisify(execFile)('mariadb', [
      '--no-defaults',
      `--socket=${server.socket}`,
      '-uroot',
      '-e',
      'create database one; create database two',
    ]);
    for (const db of ['one', 'two']) {
      const load = await runCli(dir, ['load', '--db', url(db), '--warehouses', '1', '--seed', '3'], 300_000);
      expect(load.code, load.stderr).toBe(0);
    }
  }, 700_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('counts the server once, not once per target', async () => {
    expectServerTpm(await runTwoTargets(url('one'), url('two'), path.join(dir, 'mariadb')));
  }, 300_000);
});

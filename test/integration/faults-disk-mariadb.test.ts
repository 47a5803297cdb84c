/**
 * The database's own disk fills up, MariaDB's half (faults-disk-db.test.ts is PostgreSQL's): a
 * real mariadbd on 127.0.0.1 with its data directory on a small ext4 loop-device file system the
 * test mounts, filled by the test once the window is open. InnoDB cannot grow a tablespace and
 * fails the writes that need it (1114 "The table … is full"). The run still ends at its planned
 * end, exits 0 with its figures written, and says what happened: an outage of cause `server`
 * named by the server's error, the full device (txbench finds the data directory from
 * @@datadir, the server being on this machine), and a warning that the window's figures include
 * it. Needs root (losetup, mount) and mariadbd. Drives the compiled CLI (run `npm run build` first).
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, measuredIntervals, removeDir, runCli, spawnCli } from './helpers.js';
import { attachLoop, fillUntilFull, mountExt4, undoAll } from './loop-device.js';
import { expectValidRunDir } from './run-dir-schema.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

let dir: string;
let mnt: string;
const undo: (() => void)[] = [];
let server: MariaDbServer | undefined;

beforeAll(async () => {
  dir = await makeTempDir('txbench-mariadisk-');
  mnt = path.join(dir, 'mnt');
  const device = await attachLoop(dir, 320);
  undo.push(device.detach);
  // Lazy: unmounted even if a file on it is still open.
  undo.push(await mountExt4(device.name, mnt, { lazy: true }));
  // A small redo log: the default 256 MB would take most of the file system before any data.
  server = await startMariaDb(['--innodb-log-file-size=32M'], { dataDir: path.join(mnt, 'data') });
  const load = await runCli(dir, ['load', '--db', server.url, '--warehouses', '1'], 300_000);
  expect(load.code, load.stderr).toBe(0);
}, 400_000);

afterAll(async () => {
  try {
    await server?.stop();
  } finally {
    try {
      undoAll(undo);
    } finally {
      await removeDir(dir);
    }
  }
}, 120_000);

interface Report {
  status: string;
  summary: { windowSeconds: number };
  intervals: unknown[];
  outages: {
    cause: string;
    recovered: boolean;
    error?: string;
    disk?: { path: string; full: boolean; freeBytes: number };
  }[];
}

describe("the database's own disk fills up (MariaDB)", () => {
  it('InnoDB out of space: the run ends at its planned end and names the cause', async () => {
    const out = path.join(dir, 'results');
    const started = performance.now();
    const run = spawnCli(dir, [
      'run',
      '--db',
      server!.url,
      '--terminals',
      '8',
      '--warmup',
      '2s',
      // InnoDB fails within a second of the fill: the rest of the window is failures and reads.
      '--duration',
      '15s',
      '--interval',
      '2s',
      '--out',
      out,
    ]);
    const filled = run.untilStderr((e) => measuredIntervals(e) >= 1).then(() => fillUntilFull(mnt));
    const code = await run.exit;
    const elapsedS = (performance.now() - started) / 1000;
    await filled;
    const stderr = run.stderr();
    const stdout = run.stdout();
    expect(stderr).not.toMatch(/\n\s+at /);
    const runDir = path.join(out, (await readdir(out))[0]!);
    const report = JSON.parse(await readFile(path.join(runDir, 'run.json'), 'utf8')) as Report;
    // Ended at its planned end: start-up and 17 s of phases, then a bounded drain, not a hang.
    expect(elapsedS, stderr).toBeLessThan(17 + 120);
    expect(report.status, stderr).toBe('completed');
    expect(code, stderr).toBe(0);
    // What was measured is kept, with the outage in it.
    await expectValidRunDir(runDir, 'run');
    expect(report.summary.windowSeconds).toBeGreaterThan(0);
    expect(report.intervals.length).toBeGreaterThan(0);
    // One event for the full disk (the writes failing between reads that succeed, and the server
    // dying of it if it does), named by InnoDB's error, not one per failed write.
    expect(report.outages, stdout).toHaveLength(1);
    const o = report.outages[0]!;
    expect(o.cause).toBe('server');
    expect(o.recovered).toBe(false);
    expect(o.error).toMatch(/ER_RECORD_FILE_FULL The table '\w+' is full|errno: 28|error 28/);
    // The server is on 127.0.0.1: txbench found its data directory from @@datadir.
    expect(o.disk?.path).toBe(path.join(mnt, 'data'));
    expect(o.disk?.full).toBe(true);
    expect(stdout).toMatch(
      /database failing .*not recovered by the end of the run; first failure: .*(is full|error 28).*disk is FULL/,
    );
    expect(stdout).toMatch(/WARNING: the database was unreachable or not answering for [\d.]+ s of the/);
  }, 300_000);
});

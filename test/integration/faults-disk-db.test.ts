/**
 * The database's own disk fills up: txbench's embedded PostgreSQL with its data directory on a
 * 384 MB ext4 loop-device file system the test mounts, filled by the test once the window is
 * open. PostgreSQL fails every write (53100) or PANICs on its next WAL write and does not come
 * back. The run still ends at its planned end (not minutes later in its drain), exits 0 with its
 * figures written, and says what happened: an outage not recovered, named by the database's own
 * error (No space left on device) and the full device, and a warning that the window's figures
 * include it. Needs root (losetup,
 * mount). Drives the compiled CLI (run `npm run build` first).
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, measuredIntervals, removeDir, runCli, spawnCli } from './helpers.js';
import { attachLoop, fillUntilFull, mountExt4, undoAll } from './loop-device.js';

let dir: string;
let mnt: string;
const undo: (() => void)[] = [];

beforeAll(async () => {
  dir = await makeTempDir('txbench-dbdisk-');
  mnt = path.join(dir, 'mnt');
  const device = await attachLoop(dir, 384);
  undo.push(device.detach);
  undo.push(await mountExt4(device.name, mnt, { lazy: true }));
  const load = await runCli(
    dir,
    ['load', '--data-dir', path.join(mnt, 'data'), '--warehouses', '1'],
    300_000,
  );
  expect(load.code, load.stderr).toBe(0);
}, 400_000);

afterAll(async () => {
  try {
    undoAll(undo);
  } finally {
    await removeDir(dir);
  }
});

interface Report {
  status: string;
  config: { warmupS: number; durationS: number };
  summary: { windowSeconds: number };
  outages: {
    recovered: boolean;
    error?: string;
    serverLog?: string;
    disk?: { full: boolean; freeBytes: number };
  }[];
}

describe("the database's own disk fills up", () => {
  it('PostgreSQL out of space: the run ends at its planned end and names the cause', async () => {
    const out = path.join(dir, 'results');
    const started = performance.now();
    const run = spawnCli(dir, [
      'run',
      '--data-dir',
      path.join(mnt, 'data'),
      '--terminals',
      '8',
      '--warmup',
      '2s',
      // Long enough for the fill (about 7 s on a loaded machine) and the failures after it.
      '--duration',
      '24s',
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
    // Ended at its planned end: start-up, 26 s of phases, and the stop of a server stuck in crash
    // recovery (up to 60 s before SIGQUIT), not a drain waiting on connections that never return.
    expect(elapsedS, stderr).toBeLessThan(26 + 150);
    expect(report.status, stderr).toBe('completed');
    expect(code, stderr).toBe(0);
    const o = report.outages.at(-1)!;
    expect(o.recovered).toBe(false);
    // Named by the database's own error (53100, or its log's PANIC where the log could be written).
    expect(`${o.error} ${o.serverLog}`).toMatch(/No space left on device/);
    expect(o.disk?.full).toBe(true);
    expect(stdout).toMatch(
      /database (failing|unreachable) .*not recovered by the end of the run; .*No space left on device.*disk is FULL/,
    );
    expect(stdout).toMatch(/WARNING: the database was unreachable or not answering for [\d.]+ s of the/);
  }, 400_000);
});

/**
 * Results that cannot be written: a results directory on a read-only file system is refused
 * before the run starts (one line, exit 2); a disk that fills up mid-run (a small tmpfs the test
 * mounts and then fills) lets the run go on to its end, the figures printed on stdout, and the
 * command exits 1 naming what could not be written. Needs root (mount); the mounts are the
 * test's own and are removed afterwards. Drives the compiled CLI (run `npm run build` first).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTempDir,
  measuredIntervals,
  removeDir,
  runCli,
  spawnCli,
  startTempServer,
  type TempServer,
} from './helpers.js';
import { fillUntilFull } from './loop-device.js';

let pg: TempServer;
let dir: string;
let small: string;
let readOnly: string;
const mounted: string[] = [];

function mount(target: string, options: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', target]);
  mounted.push(target);
}

beforeAll(async () => {
  dir = await makeTempDir('txbench-disk-');
  small = path.join(dir, 'small');
  readOnly = path.join(dir, 'read-only');
  await mkdir(small);
  await mkdir(readOnly);
  mount(small, 'size=4m');
  mount(readOnly, 'ro,size=1m');
  pg = await startTempServer();
  const load = await runCli(dir, ['load', '--db', pg.url, '--warehouses', '1'], 300_000);
  expect(load.code, load.stderr).toBe(0);
}, 400_000);

afterAll(async () => {
  for (const m of mounted.reverse()) execFileSync('umount', ['-l', m]);
  await pg?.stop();
  await removeDir(dir);
});

describe('results that cannot be written', () => {
  it('a results directory on a read-only file system is refused before the run starts', async () => {
    const r = await runCli(dir, [
      'run',
      '--db',
      pg.url,
      '--duration',
      '5s',
      '--out',
      path.join(readOnly, 'results'),
    ]);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/cannot write results to .*read-only.*: not writable; choose another --out/);
    expect(r.stdout).toBe('');
  });

  it('the disk fills up mid-run: the run goes to its end, figures on stdout, exit 1 naming what was not written', async () => {
    const out = path.join(small, 'results');
    const json = path.join(dir, 'elsewhere.json');
    const run = spawnCli(dir, [
      'run',
      '--db',
      pg.url,
      '--warmup',
      '1s',
      '--duration',
      '6s',
      '--interval',
      '1s',
      '--no-monitor',
      '--out',
      out,
      '--json',
      json,
    ]);
    const filled = run
      .untilStderr((e) => measuredIntervals(e) >= 2)
      .then(() => fillUntilFull(small, 64 * 1024));
    const code = await run.exit;
    const stdout = run.stdout();
    const stderr = run.stderr();
    await filled;
    expect(code, stderr).toBe(1);
    // The figures are on stdout all the same.
    expect(stdout).toMatch(/New-Orders\/min/);
    expect(stderr).toMatch(/not written: .*intervals\.ndjson.*run\.json/);
    expect(stderr).toMatch(/no space left on the device/);
    expect(stderr).not.toMatch(/\n\s+at /);
    // The run itself was not cut short: the --json file elsewhere has the whole window.
    const report = JSON.parse(await readFile(json, 'utf8')) as {
      status: string;
      config: { durationS: number };
    };
    expect(report.status).toBe('completed');
    expect(report.config.durationS).toBe(6);
  }, 180_000);
});

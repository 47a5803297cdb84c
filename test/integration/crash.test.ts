/**
 * A run killed outright (SIGKILL) mid-window: its run directory keeps every interval flushed so far,
 * `txbench results` lists it as crashed, and `compare` and `report` read it up to its last
 * interval. SIGTERM is Ctrl-C (results kept, exit 130); a second Ctrl-C during a long drain quits
 * at once with run.json marked interrupted. The server belongs to the test, so killing txbench
 * leaves nothing behind. Drives the compiled CLI (run `npm run build` first).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeTempDir,
  measuredIntervals,
  removeDir,
  runCli,
  spawnCli,
  startTempServer,
  type LiveCli,
  type TempServer,
} from './helpers.js';

let pg: TempServer;
let dir: string;

beforeAll(async () => {
  pg = await startTempServer();
  dir = await makeTempDir();
  const load = await runCli(dir, ['load', '--db', pg.url, '--warehouses', '1'], 180_000);
  expect(load.code, load.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await pg?.stop();
  await removeDir(dir);
});

/** Starts `txbench run` for 60 s into `out`; resolves once `intervals` measured intervals are printed. */
async function startRun(out: string, intervals: number, extra: string[] = []): Promise<LiveCli> {
  const run = spawnCli(dir, [
    'run',
    '--db',
    pg.url,
    '--warmup',
    '1s',
    '--duration',
    '60s',
    '--interval',
    '1s',
    '--out',
    out,
    ...extra,
  ]);
  await run.untilStderr((e) => measuredIntervals(e) >= intervals);
  return run;
}

async function onlyRunDir(out: string): Promise<string> {
  const [runDir] = await readdir(path.join(dir, out));
  return path.join(dir, out, runDir!);
}

describe('txbench stopped by signals', () => {
  it('SIGTERM is Ctrl-C: the terminals stop, the results are written, exit 130', async () => {
    const run = await startRun('term', 2);
    run.child.kill('SIGTERM');
    expect(await run.exit, run.stderr()).toBe(130);
    const base = await onlyRunDir('term');
    const saved = JSON.parse(await readFile(path.join(base, 'run.json'), 'utf8')) as {
      status: string;
      summary?: { tps: number };
    };
    expect(saved.status).toBe('interrupted');
    expect(saved.summary?.tps).toBeGreaterThan(0);
  }, 120_000);

  it('a second Ctrl-C during a long drain quits at once, run.json marked interrupted, its intervals read', async () => {
    // A row lock the test holds keeps every Payment of warehouse 1 waiting: the drain after the
    // first Ctrl-C would wait for them (up to --txn-timeout 60 s).
    const side = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      const run = await startRun('twice', 2, ['--txn-timeout', '60s']);
      const locked = side.begin(async (tx) => {
        await tx`select w_ytd from warehouse where w_id = 1 for update`;
        await run.exit;
      });
      // Payments pile up behind the lock before the first Ctrl-C.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      run.child.kill('SIGINT');
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (run.stderr().includes('interrupted: stopping')) {
            clearInterval(poll);
            resolve();
          }
        }, 50);
      });
      run.child.kill('SIGINT');
      expect(await run.exit, run.stderr()).toBe(130);
      await locked;
      expect(run.stderr()).toMatch(/interrupted again: quitting now/);
      const base = await onlyRunDir('twice');
      const saved = JSON.parse(await readFile(path.join(base, 'run.json'), 'utf8')) as {
        status: string;
        summary?: unknown;
        config?: { target?: string };
      };
      // Quit before the drain ended: no results, but marked, with the run's conditions.
      expect(saved.status).toBe('interrupted');
      expect(saved.summary).toBeUndefined();
      expect(saved.config?.target).toBeDefined();
      const listed = await runCli(dir, ['results', 'twice', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      const runs = JSON.parse(listed.stdout) as { status: string }[];
      expect(runs.map((r) => r.status)).toEqual(['interrupted']);
      const compared = await runCli(dir, ['compare', base]);
      expect(compared.code, compared.stderr).toBe(0);
      expect(compared.stderr).toMatch(
        /interrupted before its summary was written; its figures are its \d+ measured intervals/,
      );
    } finally {
      await side.end({ timeout: 5 });
    }
  }, 120_000);
});

describe('txbench killed with SIGKILL mid-run', () => {
  it('leaves a readable run directory that results lists as crashed', async () => {
    // Three measured intervals printed, a second apart: the first two are on the disk by now
    // (each is printed as its write begins, which takes milliseconds).
    const crashed = await startRun('results', 3);
    crashed.child.kill('SIGKILL');
    await crashed.exit;

    const [runDir] = await readdir(path.join(dir, 'results'));
    const base = path.join(dir, 'results', runDir!);
    const run = JSON.parse(await readFile(path.join(base, 'run.json'), 'utf8')) as { status: string };
    expect(run.status).toBe('running');
    const intervals = (await readFile(path.join(base, 'intervals.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { phase: string });
    expect(intervals.filter((i) => i.phase === 'measure').length).toBeGreaterThanOrEqual(2);

    const listed = await runCli(dir, ['results', 'results', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const runs = JSON.parse(listed.stdout) as { id: string; status: string }[];
    expect(runs.map((r) => [r.id, r.status])).toEqual([[runDir, 'crashed']]);
    expect(listed.stdout).not.toContain(new URL(pg.url).password);

    // compare reads it up to its last interval: a row with its throughput, marked crashed.
    const measured = intervals.filter((i) => i.phase === 'measure').length;
    const compared = await runCli(dir, ['compare', base, '--format', 'csv']);
    expect(compared.code, compared.stderr).toBe(0);
    const [header, row, ...more] = compared.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    expect(more).toEqual([]);
    const field = (name: string): string | undefined => row?.[header!.indexOf(name)];
    expect(field('status')).toBe('crashed');
    expect(Number(field('TPS'))).toBeGreaterThan(0);
    expect(compared.stderr).toContain(`its ${measured} measured intervals`);
    // report draws it: the page has the run and one point per interval flushed.
    const html = path.join(dir, 'crashed.html');
    const report = await runCli(dir, ['report', base, '--out', html]);
    expect(report.code, report.stderr).toBe(0);
    expect(await readFile(html, 'utf8')).toContain(runDir);
  });
});

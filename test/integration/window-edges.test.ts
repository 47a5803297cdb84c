/**
 * The measured window's edges on a real run (embedded PostgreSQL, 1 warehouse): the measured
 * intervals in intervals.ndjson add up to the window's counts per type and to its length, so the
 * window's TPS is its count over its length; what straddles an edge is counted apart and shown.
 * Unpaced runs whose interval divides the window and does not (every terminal straddles both
 * edges), and a run paced at a scaled think time, which says so in its summary and its run.json.
 *
 * Like the other suites it drives the compiled code under dist/ (run `npm run build` first).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import type { IntervalRecord } from '../../src/results/interval.js';
import type { RunReport } from '../../src/results/run-file.js';
import { makeTempDir, removeDir, runCli, startTempServer, type TempServer } from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';

let pg: TempServer;
let cwd: string;

beforeAll(async () => {
  cwd = await makeTempDir('txbench-edges-cwd-');
  pg = await startTempServer();
  await loadTpcc(pg.url, { warehouses: 1, seed: 3030 });
}, 180_000);

afterAll(async () => {
  await pg?.stop();
  await removeDir(cwd);
});

interface Measured {
  run: RunReport;
  intervals: IntervalRecord[];
  stdout: string;
}

async function measure(flags: string[]): Promise<Measured> {
  const r = await runCli(
    cwd,
    ['run', '--db', pg.url, '--terminals', '4', '--warmup', '2s', ...flags],
    120_000,
  );
  expect(r.code, r.stderr.slice(-2000)).toBe(0);
  const dir = runDirOf(r.stdout);
  await expectValidRunDir(dir, 'run');
  const run = JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8')) as RunReport;
  const intervals = (await readFile(path.join(dir, 'intervals.ndjson'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as IntervalRecord);
  return { run, intervals, stdout: r.stdout };
}

/** The measured intervals add up to the window: counts and errors per type, seconds, TPS. */
function expectIntervalsAddUp({ run, intervals }: Measured): void {
  const measured = intervals.filter((i) => i.phase === 'measure');
  expect(measured.length).toBeGreaterThanOrEqual(3);
  for (const [key, t] of Object.entries(run.transactions)) {
    const sum = (pick: (c: { count: number; errors: number }) => number): number =>
      measured.reduce((a, i) => a + pick(i.perType[key] ?? { count: 0, errors: 0 }), 0);
    expect(
      sum((c) => c.count),
      key,
    ).toBe(t.count);
    expect(
      sum((c) => c.errors),
      key,
    ).toBe(t.errors);
  }
  const total = Object.values(run.transactions).reduce((a, t) => a + t.count, 0);
  expect(run.summary.transactions).toBe(total);
  expect(total).toBeGreaterThan(0);
  // Each interval's seconds are rounded to the millisecond in the file.
  const seconds = measured.reduce((a, i) => a + i.seconds, 0);
  expect(Math.abs(seconds - run.summary.windowSeconds)).toBeLessThanOrEqual(0.0005 * (measured.length + 1));
  // TPS is the window's count over its length; windowSeconds is stored rounded to the millisecond,
  // which moves a TPS of ~900 over 6 s by up to 0.08: compare relatively.
  expect(Math.abs(run.summary.tps / (total / run.summary.windowSeconds) - 1)).toBeLessThan(1e-3);
}

describe('the measured window and its intervals', () => {
  it('a 6 s window cut every 2 s: the intervals add up to it; the edges are counted apart and shown', async () => {
    const m = await measure(['--duration', '6s', '--interval', '2s', '--think-scale', '0', '--out', 'r-6s']);
    expectIntervalsAddUp(m);
    // Unpaced, every terminal had a transaction running at the window's opening and at its close.
    const edges = m.run.windowEdges!;
    expect(edges.dueBefore).toBeGreaterThan(0);
    expect(edges.drained + m.run.drain.queued).toBeGreaterThan(0);
    expect(m.stdout).toContain(
      `not counted: ${edges.dueBefore} due in the warm-up that ended in the window, ${edges.drained} drained after the window`,
    );
    expect(m.stdout).toContain('New-Orders/min (unpaced)');
  }, 180_000);

  it('a 7 s window cut every 2 s (an interval that does not divide it): the intervals still add up', async () => {
    const m = await measure(['--duration', '7s', '--interval', '2s', '--think-scale', '0', '--out', 'r-7s']);
    expectIntervalsAddUp(m);
    expect(m.run.windowEdges!.dueBefore).toBeGreaterThan(0);
  }, 180_000);

  it('over two worker threads the merged intervals add up to the merged window too', async () => {
    const m = await measure([
      '--duration',
      '5s',
      '--interval',
      '2s',
      '--think-scale',
      '0',
      '--workers',
      '2',
      '--out',
      'r-workers',
    ]);
    expect(m.run.config.workers).toBe(2);
    expectIntervalsAddUp(m);
    expect(m.run.windowEdges!.dueBefore).toBeGreaterThan(0);
  }, 180_000);

  it('a run paced at a scaled think time: the intervals add up, and the rate says how it was paced', async () => {
    const m = await measure([
      '--duration',
      '3s',
      '--interval',
      '1s',
      '--think-scale',
      '0.01',
      '--out',
      'r-paced',
    ]);
    expectIntervalsAddUp(m);
    expect(m.stdout).toMatch(/New-Orders\/min \(paced ×0\.01\) \d/);
    expect(m.stdout).not.toMatch(/unpaced|tpmC/);
    const rate = m.run.summary.figures?.find((f) => f.key === 'tpmC');
    expect(rate).toMatchObject({ label: 'tpmC', shownAs: 'New-Orders/min (paced ×0.01)' });
  }, 180_000);
});

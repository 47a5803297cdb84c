/**
 * `--warmup auto` and `--precondition auto` against a real embedded PostgreSQL (1 warehouse): the
 * warm-up ends at the first interval whose last K intervals pass the SNIA rule, recomputed here
 * from the intervals the run wrote; a run that cannot settle (a tolerance no real run meets) says
 * so, runs to its cap and is measured anyway; `steps` judges each step on its own.
 *
 * Like the other suites it drives the compiled code under dist/ (run `npm run build` first).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import { judgeWindow, type SteadyStateReport } from '../../src/metrics/steady-state.js';
import type { IntervalRecord } from '../../src/results/interval.js';
import type { RunReport } from '../../src/results/run-file.js';
import { makeTempDir, removeDir, runCli, startTempServer, type TempServer } from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';

let pg: TempServer;
let cwd: string;

beforeAll(async () => {
  cwd = await makeTempDir('txbench-steady-cwd-');
  pg = await startTempServer();
  await loadTpcc(pg.url, { warehouses: 1, seed: 31337 });
});

afterAll(async () => {
  await pg?.stop();
  await removeDir(cwd);
});

async function intervalsOf(dir: string): Promise<IntervalRecord[]> {
  const text = await readFile(path.join(dir, 'intervals.ndjson'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as IntervalRecord);
}

/** The figures the rule watches, as the run computes them from an interval's per-type figures. */
function figuresOf(r: IntervalRecord): { tps: number; response: number } {
  let count = 0;
  let totalMs = 0;
  for (const t of Object.values(r.perType)) {
    count += t.count;
    totalMs += t.count * t.avgMs;
  }
  return { tps: count / r.seconds, response: count > 0 ? totalMs / count : Number.NaN };
}

/** Whether the K full-length intervals ending at index `end` pass the rule on every figure. */
function steadyAt(rows: readonly IntervalRecord[], end: number, s: SteadyStateReport): boolean {
  const window = rows.slice(end - s.window + 1, end + 1);
  if (window.length < s.window) return false;
  return s.figures.every(
    (f) =>
      judgeWindow(
        window.map((r) => figuresOf(r)[f]),
        s,
      ).steady,
  );
}

describe('--warmup auto', () => {
  it('ends the warm-up at the first interval whose last K intervals are steady, and says so', async () => {
    const r = await runCli(
      cwd,
      [
        'run',
        '--db',
        pg.url,
        '--terminals',
        '10',
        '--ramp',
        '5s',
        '--warmup',
        'auto:90s',
        '--steady-window',
        '3',
        '--interval',
        '1s',
        '--duration',
        '2s',
        '--no-monitor',
      ],
      180_000,
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const dir = runDirOf(r.stdout);
    await expectValidRunDir(dir, 'run');
    const report = JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8')) as RunReport;
    const s = report.summary.steadyState!;
    expect(s).toMatchObject({ window: 3, rangePct: 20, slopePct: 10, figures: ['tps', 'response'] });
    expect(report.config.warmupAuto).toBe(true);
    // 10 terminals at think-scale 0 settle long before the 90 s cap.
    expect(s.reached, r.stderr.slice(-3000)).toBe(true);
    const warmup = (await intervalsOf(dir)).filter((i) => i.phase === 'warmup' && i.seconds >= 0.5);
    const end = warmup.findIndex((i) => Math.abs(i.atS - s.atSeconds!) < 0.002);
    expect(end, JSON.stringify(warmup.map((i) => i.atS))).toBeGreaterThanOrEqual(s.window - 1);
    // The warm-up went no further than the interval that made it steady ...
    expect(warmup.length - 1).toBe(end);
    // ... and that interval was the first at which the rule held.
    expect(steadyAt(warmup, end, s)).toBe(true);
    for (let i = 0; i < end; i++) expect(steadyAt(warmup, i, s), `interval ${i}`).toBe(false);
    expect(report.summary.windowSeconds).toBeGreaterThan(1.5);
    expect(r.stdout).toContain(`Steady state reached after`);
    expect(r.stdout).toContain('(TPS and response time within 20% range, 10% slope over 3 intervals of 1s)');
  });

  it('that never settles runs to its cap, is measured anyway and says steady state was not reached', async () => {
    const r = await runCli(
      cwd,
      [
        'run',
        '--db',
        pg.url,
        '--terminals',
        '4',
        '--precondition',
        'auto:3s',
        '--warmup',
        'auto:4s',
        // No real run's throughput stays within 0.001% over 3 intervals.
        '--steady-range',
        '0.001%',
        '--steady-window',
        '3',
        '--interval',
        '1s',
        '--duration',
        '2s',
        '--no-monitor',
      ],
      120_000,
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const dir = runDirOf(r.stdout);
    await expectValidRunDir(dir, 'run');
    const report = JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8')) as RunReport;
    expect(report.summary.steadyState).toMatchObject({ reached: false, atSeconds: null, maxSeconds: 4 });
    expect(report.summary.steadyState!.last.tps!.rangePct).toBeGreaterThan(0.001);
    expect(report.precondition?.steadyState).toMatchObject({
      reached: false,
      atSeconds: null,
      maxSeconds: 3,
    });
    // Preconditioning and warm-up each ran to their caps; the window was measured all the same.
    expect(report.precondition!.seconds).toBeGreaterThan(2.9);
    const warmupS = (await intervalsOf(dir))
      .filter((i) => i.phase === 'warmup')
      .reduce((a, i) => a + i.seconds, 0);
    expect(warmupS).toBeGreaterThan(3.9);
    expect(report.summary.windowSeconds).toBeGreaterThan(1.5);
    expect(r.stdout).toContain('Steady state NOT reached within 4s of warm-up: measured anyway');
    expect(r.stdout).toContain('Steady state NOT reached within 3s of preconditioning: measured anyway');
  });

  it('steps judge each step on its own', async () => {
    const r = await runCli(
      cwd,
      [
        'steps',
        '--db',
        pg.url,
        '--users',
        '2,4',
        '--warmup',
        'auto:60s',
        '--steady-window',
        '3',
        '--steady-on',
        'tps',
        '--interval',
        '1s',
        '--duration',
        '2s',
        '--no-monitor',
      ],
      240_000,
    );
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const dir = runDirOf(r.stdout);
    await expectValidRunDir(dir, 'steps');
    const steps = (
      JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8')) as {
        steps: { users: number; summary: RunReport['summary'] }[];
      }
    ).steps;
    expect(steps.map((s) => s.users)).toEqual([2, 4]);
    for (const s of steps) expect(s.summary.steadyState).toMatchObject({ window: 3, figures: ['tps'] });
    expect(r.stderr).toMatch(/\[2 users\] Steady state (reached|NOT reached)/);
    expect(r.stderr).toMatch(/\[4 users\] Steady state (reached|NOT reached)/);
  });

  it('refuses the rule’s flags without an auto phase, and a bad value, in one line (exit 2)', async () => {
    for (const [flags, pattern] of [
      [['--steady-window', '3'], /--steady-window applies to --warmup auto/],
      [['--warmup', 'auto:0s'], /--warmup auto:MAX needs a MAX above 0s/],
      [['--warmup', 'auto', '--steady-on', 'iops'], /--steady-on must list tps and\/or response/],
    ] as const) {
      const r = await runCli(cwd, ['run', '--db', pg.url, '--duration', '2s', ...flags], 30_000);
      expect(r.code, JSON.stringify(r)).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(pattern);
    }
  });
});

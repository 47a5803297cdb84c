/** How a phase that ended on steady state is told: the text report's line, the HTML note, run.json's schema. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SteadyStateReport } from '../../src/metrics/steady-state.js';
import { loadRunDir } from '../../src/report/html/load.js';
import { phaseBands } from '../../src/report/html/time-charts.js';
import { runSection } from '../../src/report/html/sections.js';
import { formatRunHeader, formatRunSummary } from '../../src/report/run-summary.js';
import { formatSteadyState } from '../../src/report/steady-state-line.js';
import type { RunConfig, RunReport } from '../../src/results/run-file.js';
import { runConfig, runJson, stepsJson, summary, writeRun } from './run-fixtures.js';
import { runSchemaCheck } from '../../src/results/run-schema.js';

const runCheck = runSchemaCheck();
const schemaErrors = (value: unknown): string[] => runCheck.errors(value);

const reached: SteadyStateReport = {
  reached: true,
  atSeconds: 42,
  maxSeconds: 1800,
  intervalS: 1,
  window: 5,
  rangePct: 20,
  slopePct: 10,
  figures: ['tps', 'response'],
  last: {
    tps: { mean: 1000, rangePct: 8.5, slopePct: 2.1 },
    response: { mean: 9.5, rangePct: 12, slopePct: 4 },
  },
};

const notReached: SteadyStateReport = {
  ...reached,
  reached: false,
  atSeconds: null,
  last: { tps: { mean: 1000, rangePct: 35.2, slopePct: 30.1 }, response: reached.last.response! },
};

const withSteady = (s: SteadyStateReport, precondition?: SteadyStateReport): Record<string, unknown> =>
  runJson(
    {},
    {
      config: { ...runConfig(), warmupS: 1800, warmupAuto: true },
      summary: { ...summary(), steadyState: s },
      ...(precondition
        ? { precondition: { seconds: 60, summary: summary(), outages: [], steadyState: precondition } }
        : {}),
    },
  );

describe('the steady-state line', () => {
  it('says when the warm-up settled and by which rule', () => {
    expect(formatSteadyState(reached, 'warm-up')).toBe(
      'Steady state reached after 42s of warm-up (TPS and response time within 20% range, 10% slope over 5 intervals of 1s)',
    );
  });

  it('says it never did, that the run was measured anyway, and how far off the last window was', () => {
    expect(formatSteadyState(notReached, 'preconditioning')).toBe(
      'Steady state NOT reached within 30m of preconditioning: measured anyway (TPS and response time within 20% range, ' +
        '10% slope over 5 intervals of 1s; last window: TPS range 35.2%, slope 30.1%; response time range 12.0%, slope 4.0%)',
    );
  });

  it('is in the text report under the window, and the header names the auto warm-up and its cap', () => {
    const r = withSteady(reached, notReached) as unknown as RunReport;
    const text = formatRunSummary(r);
    expect(text).toContain(`\n  ${formatSteadyState(reached, 'warm-up')}\n`);
    expect(text).toContain(`\n  ${formatSteadyState(notReached, 'preconditioning')}\n`);
    expect(formatRunHeader(r.config as RunConfig)).toContain('warm-up auto (at most 30m)');
    // A fixed warm-up says nothing of steady state.
    expect(formatRunSummary(runJson() as unknown as RunReport)).not.toContain('Steady state');
  });
});

describe('the HTML report and run.json', () => {
  let parent: string;
  beforeAll(async () => {
    parent = await mkdtemp(path.join(os.tmpdir(), 'txbench-steady-'));
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it('shades the warm-up up to the steady point as one band, though the files round each edge to 1 ms', () => {
    // As intervals.ndjson has them: atS and seconds each rounded to the millisecond.
    const rows = [
      { atS: 5.123, phase: 'warmup', seconds: 1.012, tps: 1 },
      { atS: 6.134, phase: 'warmup', seconds: 1.012, tps: 1 },
      { atS: 7.146, phase: 'warmup', seconds: 1.011, tps: 1 },
      { atS: 8.147, phase: 'measure', seconds: 1.001, tps: 1 },
    ];
    const bands = phaseBands(rows, { warmup: 'warm-up' });
    expect(bands).toHaveLength(1);
    expect(bands![0]!.from).toBeCloseTo(4.111, 9);
    expect(bands![0]).toMatchObject({ to: 7.146, label: 'warm-up' });
  });

  it('notes the verdict of the run, and of each step', async () => {
    const run = runSection(await loadRunDir(await writeRun(parent, 'run-a', withSteady(reached))));
    expect(run.notes).toContain(formatSteadyState(reached, 'warm-up'));
    const steps = stepsJson('embedded', [{ terminals: 2 }, { terminals: 4 }]) as {
      steps: { report: { summary: Record<string, unknown> } }[];
    };
    steps.steps[1]!.report.summary.steadyState = notReached;
    const section = runSection(await loadRunDir(await writeRun(parent, 'steps-a', steps)));
    expect(section.notes).toContain(`4 users: ${formatSteadyState(notReached, 'warm-up')}`);
  });

  it('run.json with steady state validates against the schema, and a wrong one does not', () => {
    expect(schemaErrors(withSteady(reached, notReached))).toEqual([]);
    const wrong = withSteady({ ...reached, figures: ['iops' as 'tps'] });
    expect(schemaErrors(wrong).join('\n')).toMatch(/steadyState/);
  });
});

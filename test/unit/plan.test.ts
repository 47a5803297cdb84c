/**
 * A plan's checks (every problem at once, one line each, from the config schema's sections), its
 * state file (atomic, resumed step by step, a changed done step refused) and the dry run's
 * estimate of the time it takes.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_FLAGS } from '../../src/cli/commands.js';
import { ConfigProblems } from '../../src/config/config-file.js';
import { estimatePlan, formatEstimate } from '../../src/plan/estimate.js';
import { parsePlan } from '../../src/plan/plan-file.js';
import { planSchemaCheck } from '../../src/plan/plan-schema.js';
import { newState, readState, resumeState, writeState } from '../../src/plan/plan-state.js';
import type { CommandTable, Plan } from '../../src/plan/plan-types.js';
import { writePlanReport } from '../../src/plan/plan-report.js';
import { openPlanDir } from '../../src/plan/run-plan.js';
import { stepsJson, targetsJson, writeRun } from './run-fixtures.js';

const COMMANDS: CommandTable = {
  flags: (command) => Object.keys(COMMAND_FLAGS[command]?.flags ?? {}),
  workload: (command) => COMMAND_FLAGS[command]?.workload ?? 'none',
};
const check = planSchemaCheck();
const parse = (text: string): Promise<Plan> => parsePlan(text, 'p.yaml', check, COMMANDS, {});

async function problems(text: string): Promise<readonly string[]> {
  try {
    await parse(text);
  } catch (err) {
    if (err instanceof ConfigProblems) return err.lines;
    throw err;
  }
  return [];
}

const TARGETS = `targets:
  - { label: a, dataDir: /tmp/a }
  - { label: b, url: "postgres://u@h/db", passwordEnv: PW }
`;

describe('plan checks', () => {
  it('accepts a plan and fills in names, targets and hashes', async () => {
    const plan = await parse(`${TARGETS}steps:
  - { command: load, options: { warehouses: 1 } }
  - { command: run, options: { warmup: 5s, duration: 1m }, continue: true }
  - { command: run, targets: [b], options: { workload: sysbench, tables: 2 } }
`);
    expect(plan.name).toBe('p');
    expect(plan.steps.map((s) => [s.name, s.targets, s.continueOnFailure])).toEqual([
      ['load', ['a', 'b'], false],
      ['run-1', ['a', 'b'], true],
      ['run-2', ['b'], false],
    ]);
    expect(new Set(plan.steps.map((s) => s.hash)).size).toBe(3);
  });

  it('reports every problem at once, one line each', async () => {
    expect(
      await problems(`${TARGETS}steps:
  - { command: frobnicate }
  - { command: run, options: { bogus: 1, warmup: soon, tables: 3 } }
  - { command: steps, targets: [zz], options: { workload: nosuch } }
  - { command: run, options: { out: x } }
  - { command: replay }
  - { command: check, name: run-1, colour: red }
`),
    ).toEqual([
      'plan p.yaml: steps[0].command: must be one of load, check, drop, run, steps, sweep, replay',
      'plan p.yaml: steps[1].options.bogus: unknown flag --bogus of txbench run; see `txbench run --help`',
      'plan p.yaml: steps[1].options.warmup: must be a duration such as 30s, 5m, 2h or 1h30m (a bare number is seconds), or auto / auto:MAX to end on steady state',
      'plan p.yaml: steps[5].colour: unknown key; a step takes name, command, options, targets, continue, file',
      'plan p.yaml: steps[1].options.tables: unknown flag --tables of txbench run with workload tpcc; see `txbench run --workload tpcc --help`',
      'plan p.yaml: steps[2].targets: unknown target "zz"; the plan\'s targets are a, b',
      'plan p.yaml: steps[2].options: needs users, e.g. [1, 20, 50, 100]',
      expect.stringMatching(/^plan p\.yaml: steps\[2\]\.options\.workload: unknown workload "nosuch"/),
      "plan p.yaml: steps[3].options.out: is set by the plan: each step's runs go in its directory under the plan's --out",
      'plan p.yaml: steps[4]: needs file: the workload file to replay',
      'plan p.yaml: steps[5].name: "run-1" is used twice; give each step its own name',
    ]);
  });

  it('refuses targets without labels, labels used twice and step names used twice', async () => {
    expect(
      await problems(`targets:
  - { dataDir: /tmp/a }
  - { label: b, dataDir: /tmp/b }
  - { label: b, dataDir: /tmp/c }
steps:
  - { command: check, name: x }
  - { command: drop, name: x }
`),
    ).toEqual([
      'plan p.yaml: targets[0]: needs a label: steps name their targets by label',
      'plan p.yaml: targets[2].label: "b" is used twice',
      'plan p.yaml: steps[1].name: "x" is used twice; give each step its own name',
    ]);
  });

  it('needs steps, and says so for a plan that is not a mapping', async () => {
    expect(await problems('name: x\n')).toEqual(['plan p.yaml: needs steps']);
    expect(await problems('- run\n')).toEqual([
      'plan p.yaml: must be a mapping with a list of steps, e.g. `steps: [{command: run}]`',
    ]);
  });
});

describe('dry-run estimate', () => {
  it('adds warm-up and window per run, × user counts, × sweep values, × repeats, × targets one at a time', async () => {
    const plan = await parse(`${TARGETS}steps:
  - { command: load, options: { warehouses: 1 } }
  - { command: run, options: { precondition: 1m, warmup: 10s, duration: 50s } }
  - { command: steps, targets: [a], options: { users: [1, 20, 50, 100], warmup: 5s, duration: 25s } }
  - { command: sweep, options: { set: "shared_buffers=128MB,256MB,512MB", warmup: 0s, duration: 20s, repeat: 2 } }
  - { command: run, targets: [a], options: { warmup: "auto:1m", duration: 1m } }
  - { command: run, targets: [a] }
`);
    const estimate = estimatePlan(plan);
    expect(estimate.steps.map((s) => s.ms)).toEqual([
      undefined,
      120_000, // together on a and b: once
      4 * 30_000,
      2 * 2 * 3 * 20_000, // one target after the other
      120_000,
      15_000 + 90_000, // run's defaults
    ]);
    expect(estimate.totalMs).toBe(120_000 + 120_000 + 240_000 + 120_000 + 105_000);
    expect(estimate.notEstimated).toEqual(['load']);
    const text = formatEstimate(plan, estimate);
    expect(text.split('\n')).toHaveLength(8);
    expect(text).toContain('estimated total: 11m45s, plus load (not estimated)');
    expect(text).toContain('4 user counts × (warm-up 5s + window 25s)');
  });
});

describe('plan state', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'plan-state-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const twoSteps = (second: string): Promise<Plan> =>
    parse(
      `name: s\nsteps:\n  - { command: check, name: one }\n  - { command: run, name: two, options: { duration: ${second} } }\n`,
    );

  it('is written atomically (no temporary left) and read back', async () => {
    const plan = await twoSteps('10s');
    const state = newState(plan);
    state.steps[0]!.state = 'done';
    await writeState(dir, state);
    expect(await readdir(dir)).toEqual(['plan-state.json']);
    expect(await readState(dir)).toEqual(state);
    expect(state.steps.map((s) => s.dir)).toEqual([
      path.join('steps', '01-one'),
      path.join('steps', '02-two'),
    ]);
  });

  it('resumes done steps as they are and refuses a done step the plan changed, unless forced', async () => {
    const plan = await twoSteps('10s');
    const saved = newState(plan);
    saved.steps[0]!.state = 'done';
    saved.steps[1]!.state = 'running';
    saved.steps[1]!.attempts = 1;
    expect(resumeState(saved, plan, false).steps.map((s) => [s.state, s.attempts])).toEqual([
      ['done', 0],
      ['running', 1],
    ]);
    // The running step changed: it runs as it is now. The done one changed: refused.
    expect(resumeState(saved, await twoSteps('20s'), false).steps[1]!.stepHash).not.toBe(
      saved.steps[1]!.stepHash,
    );
    saved.steps[1]!.state = 'done';
    const changed = await twoSteps('20s');
    expect(() => resumeState(saved, changed, false)).toThrow(
      'step 2 "two" is done but the plan file changed it; put it back, give --force to keep its results anyway, or use another --out',
    );
    expect(resumeState(saved, await twoSteps('20s'), true).steps[1]!.state).toBe('done');
  });

  it("refuses another plan's directory, --resume without one, and a directory that is not a plan's", async () => {
    const say = (): void => undefined;
    const other = await parse('name: other\nsteps:\n  - { command: check }\n');
    await expect(openPlanDir(other, { out: dir, resume: true, force: false, say })).rejects.toThrow(
      `${dir} holds plan "s" (p.yaml), not "other"; give this plan another --out`,
    );
    const missing = path.join(dir, 'missing');
    await expect(openPlanDir(other, { out: missing, resume: true, force: false, say })).rejects.toThrow(
      `--resume: no plan directory at ${missing}`,
    );
    const plain = await mkdtemp(path.join(dir, 'plain-'));
    await writeFile(path.join(plain, 'x'), '');
    await expect(openPlanDir(other, { out: plain, resume: false, force: false, say })).rejects.toThrow(
      `${plain} is not empty and not a plan directory; give another --out`,
    );
    await expect(
      openPlanDir(await twoSteps('10s'), { out: dir, resume: false, force: false, say }),
    ).rejects.toThrow(
      `${dir} already holds this plan's state; give --resume to carry on, or another --out to start afresh`,
    );
  });
});

describe('the plan report (summary.md)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'plan-report-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The row labels of each `## ` section's tables. */
  const sectionLabels = (summary: string): Map<string, Set<string>> =>
    new Map(
      summary
        .split('\n## ')
        .slice(1)
        .map((section) => {
          const [title, ...lines] = section.split('\n');
          const labels = lines
            .filter((l) => l.startsWith('| ') && !l.startsWith('| label') && !l.startsWith('| ---'))
            .map((l) => l.split(' | ')[0]!.slice(2).trim());
          return [title!, new Set(labels)];
        }),
    );

  it("groups a run step's rows on several targets per target, as steps on one target are", async () => {
    const plan = await parse(
      `name: r\n${TARGETS}steps:\n  - { command: run, name: both }\n  - { command: steps, name: users, targets: [a], options: { users: [1, 2] } }\n`,
    );
    const state = newState(plan);
    const both = await writeRun(
      path.join(dir, 'steps', '01-both'),
      'run-1',
      targetsJson([
        { target: 'a', tps: 10 },
        { target: 'b', tps: 20 },
      ]),
    );
    const users = await writeRun(
      path.join(dir, 'steps', '02-users', 'a'),
      'run-2',
      stepsJson('a', [{ terminals: 1 }, { terminals: 2 }]),
    );
    state.steps.forEach((s, i) => {
      s.state = 'done';
      s.runDirs = [path.relative(dir, [both, users][i]!)];
    });
    await writePlanReport(dir, plan, state, () => undefined);
    const sections = sectionLabels(await readFile(path.join(dir, 'summary.md'), 'utf8'));
    expect([...sections.keys()]).toEqual(['All runs', 'Target a', 'Target b']);
    expect(sections.get('All runs')).toEqual(new Set(['a', 'b', 'a + b (sum)', 'a @ 1 user', 'a @ 2 users']));
    expect(sections.get('Target a')).toEqual(new Set(['a', 'a @ 1 user', 'a @ 2 users']));
    expect(sections.get('Target b')).toEqual(new Set(['b']));
  });
});

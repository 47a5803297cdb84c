/**
 * `txbench plan` on a real embedded PostgreSQL: a plan SIGKILLed in the middle of its third step
 * resumes with --resume (steps 1-2 not run again, the third starts over, its partial directory
 * kept and marked, the process the dead plan left running stopped, the final report covering
 * every step); and the plan's bad input, each one line with its exit code. Drives the compiled
 * CLI (run `npm run build` first).
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../free-port.js';
import { makeTempDir, removeDir, runCli, spawnCli, startTempServer, type TempServer } from './helpers.js';

interface StepRecord {
  name: string;
  state: string;
  attempts: number;
  runDirs: string[];
  earlier: string[];
  exitCode?: number;
  child?: { pid: number };
}

let pg: TempServer;
let dir: string;
const PASSWORD_ENV = 'TXBENCH_PLAN_TEST_PASSWORD';

beforeAll(async () => {
  pg = await startTempServer();
  dir = await makeTempDir();
  // The plan names the password's variable, never the password (cleanEnv keeps this variable).
  process.env[PASSWORD_ENV] = pg.server.password;
  const load = await runCli(dir, ['load', '--db', pg.url, '--warehouses', '1'], 180_000);
  expect(load.code, load.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  delete process.env[PASSWORD_ENV];
  await pg?.stop();
  await removeDir(dir);
});

function urlWithoutPassword(): string {
  const u = new URL(pg.url);
  u.password = '';
  return u.toString();
}

async function writePlan(name: string, text: string): Promise<string> {
  const file = path.join(dir, `${name}.yaml`);
  await writeFile(file, text);
  return file;
}

const target = (): string =>
  `targets:\n  - { label: pg, url: "${urlWithoutPassword()}", passwordEnv: ${PASSWORD_ENV} }\n`;

const run = (name: string, duration: string): string =>
  `  - { name: ${name}, command: run, options: { warmup: 1s, duration: ${duration}, interval: 1s, terminals: 2 } }\n`;

async function readSteps(planDir: string): Promise<StepRecord[]> {
  return (
    JSON.parse(await readFile(path.join(planDir, 'plan-state.json'), 'utf8')) as { steps: StepRecord[] }
  ).steps;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('txbench plan --resume after SIGKILL', () => {
  it('does not run steps 1-2 again, starts step 3 over, and reports every step', async () => {
    const file = await writePlan(
      'three',
      `name: three\n${target()}steps:\n${run('first', '1s')}${run('second', '1s')}${run('third', '6s')}`,
    );
    const planDir = path.join(dir, 'plan-three');
    const plan = spawnCli(dir, ['plan', file, '--out', planDir]);
    // Killed once step 3's own process has measured an interval: in the middle of the third step.
    await plan.untilStderr((e) => {
      const third = e.indexOf('step 3 "third"');
      return third >= 0 && / measure\]/.test(e.slice(third));
    });
    plan.child.kill('SIGKILL');
    await plan.exit;

    const killed = await readSteps(planDir);
    expect(killed.map((s) => s.state)).toEqual(['done', 'done', 'running']);
    const orphan = killed[2]!.child!.pid;
    const before = await Promise.all(
      killed.slice(0, 2).map((s) => stat(path.join(planDir, s.runDirs[0]!, 'run.json'))),
    );

    const resumed = await runCli(dir, ['plan', file, '--out', planDir, '--resume'], 300_000);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(isAlive(orphan)).toBe(false);

    const after = await readSteps(planDir);
    expect(after.map((s) => s.state)).toEqual(['done', 'done', 'done']);
    // Steps 1 and 2 untouched: the same run directories, their run.json not rewritten.
    expect(after.slice(0, 2).map((s) => s.runDirs)).toEqual(killed.slice(0, 2).map((s) => s.runDirs));
    expect(after.slice(0, 2).map((s) => s.attempts)).toEqual([1, 1]);
    const again = await Promise.all(
      after.slice(0, 2).map((s) => stat(path.join(planDir, s.runDirs[0]!, 'run.json'))),
    );
    expect(again.map((s) => s.mtimeMs)).toEqual(before.map((s) => s.mtimeMs));
    // Step 3 ran again; its first attempt kept and marked.
    expect(after[2]!.attempts).toBe(2);
    expect(after[2]!.runDirs).toHaveLength(1);
    expect(after[2]!.earlier).toHaveLength(1);
    const note = await readFile(path.join(planDir, after[2]!.earlier[0]!, 'ATTEMPT.txt'), 'utf8');
    expect(note).toMatch(/^interrupted: attempt 1 of step "third"/);
    // The final report covers every step's run.
    const html = await readFile(path.join(planDir, 'report.html'), 'utf8');
    const summary = await readFile(path.join(planDir, 'summary.md'), 'utf8');
    for (const step of after) {
      const runId = path.basename(step.runDirs[0]!);
      expect(html).toContain(runId);
      expect(summary).toContain(step.runDirs[0]!);
    }
    // The plan's files hold no password.
    const config = await readFile(path.join(planDir, 'steps', '01-first', 'config.json'), 'utf8');
    expect(config).not.toContain(pg.server.password);
    expect(config).toContain(PASSWORD_ENV);
  }, 600_000);
});

describe('txbench plan bad input: one line, documented exit code', () => {
  const oneLine = (stderr: string): string[] => stderr.trim().split('\n');

  // The refusals below write nothing to the database and each has its own plan directory: several
  // at a time, each asserting through its own test's expect. The unreachable step runs alone after.
  it.concurrent.for<[name: string, step: string, message: RegExp]>([
    [
      'an unknown command',
      '  - { command: frobnicate }\n',
      /steps\[0\]\.command: must be one of load, check/,
    ],
    ['an unknown flag', '  - { command: run, options: { warp: 9 } }\n', /unknown flag --warp of txbench run/],
    [
      'an unknown target',
      '  - { command: run, targets: [nope] }\n',
      /unknown target "nope"; the plan's targets are pg/,
    ],
    [
      'an unknown workload',
      '  - { command: run, options: { workload: nosuch } }\n',
      /steps\[0\]\.options\.workload: unknown workload "nosuch"/,
    ],
  ])('%s: exit 2', async ([name, step, message], { expect }) => {
    const own = `bad-${name.replaceAll(' ', '-')}`;
    const file = await writePlan(own, `${target()}steps:\n${step}`);
    const result = await runCli(dir, ['plan', file, '--out', path.join(dir, `${own}-never`)]);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  });

  it.concurrent(
    'a plan directory written by another plan: exit 2',
    async ({ expect }) => {
      const a = await writePlan('plan-a', `name: plan-a\n${target()}steps:\n  - { command: check }\n`);
      const b = await writePlan('plan-b', `name: plan-b\nsteps:\n  - { command: check }\n`);
      const out = path.join(dir, 'shared-out');
      await runCli(dir, ['plan', a, '--out', out], 180_000);
      const result = await runCli(dir, ['plan', b, '--out', out]);
      expect(result.code).toBe(2);
      expect(oneLine(result.stderr)).toEqual([
        `txbench plan: ${out} holds plan "plan-a" (${a}), not "plan-b"; give this plan another --out`,
      ]);
    },
    240_000,
  );

  it.concurrent('--resume with no plan directory: exit 2', async ({ expect }) => {
    const file = await writePlan('resume', `${target()}steps:\n${run('only', '1s')}`);
    const out = path.join(dir, 'no-such-plan-dir');
    const result = await runCli(dir, ['plan', file, '--out', out, '--resume']);
    expect(result.code).toBe(2);
    expect(oneLine(result.stderr)).toEqual([
      `txbench plan: --resume: no plan directory at ${out}; run the plan without --resume to start it (or give its --out)`,
    ]);
  });

  it('a step whose database is unreachable: exit 3, the step before it kept', async () => {
    const port = await freePort();
    const file = await writePlan(
      'unreachable',
      `${target()}  - { label: gone, url: "postgres://nobody@127.0.0.1:${port}/none" }\nsteps:\n` +
        `  - { name: good, command: run, targets: [pg], options: { warmup: 0s, duration: 1s, interval: 1s, terminals: 1 } }\n` +
        `  - { name: bad, command: run, targets: [gone], options: { warmup: 0s, duration: 1s } }\n` +
        `  - { name: never, command: check, targets: [pg] }\n`,
    );
    const out = path.join(dir, 'plan-unreachable');
    const result = await runCli(dir, ['plan', file, '--out', out], 180_000);
    expect(result.code, result.stderr).toBe(3);
    const steps = await readSteps(out);
    expect(steps.map((s) => [s.state, s.exitCode])).toEqual([
      ['done', 0],
      ['failed', 3],
      ['pending', undefined],
    ]);
    expect(steps[0]!.runDirs).toHaveLength(1);
    // The unreachable step's own error is one line, and the plan's word on it one more.
    const lines = oneLine(result.stderr).filter((l) => !l.startsWith('['));
    expect(lines.filter((l) => l.startsWith('txbench run:'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"bad" failed (exit 3)'))).toHaveLength(1);
  }, 240_000);
});

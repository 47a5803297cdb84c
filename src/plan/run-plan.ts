/**
 * Runs a plan: each step as its own `txbench COMMAND` process (child.ts says why), its state
 * recorded in the plan directory before and after, the report rewritten after each step. With
 * --resume it carries on from the saved state: done steps are skipped, a step that was running
 * when the plan died starts over (its partial directory kept under earlier/, marked), and a done
 * step the plan file has changed is refused unless --force.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ExitCode, UsageError } from '../errors.js';
import { writeJson } from '../results/run-dir.js';
import { startTxbench, stopOrphan, type StepProcess } from './child.js';
import { writePlanReport } from './plan-report.js';
import {
  newState,
  readState,
  resumeState,
  writeState,
  type PlanState,
  type StepRecord,
} from './plan-state.js';
import type { Plan, PlanStep } from './plan-types.js';

export interface PlanRunOptions {
  /** The plan directory. */
  out: string;
  resume: boolean;
  force: boolean;
  /** Progress lines (stderr in the CLI). */
  say: (line: string) => void;
}

/** The command-line flags a step's run directory goes to, by command (those with --out). */
const WRITES_RUNS: ReadonlySet<string> = new Set(['run', 'steps', 'sweep', 'replay']);

/** The plan directory's default: results/plan-NAME. */
export function defaultPlanDir(plan: Plan): string {
  return path.join('results', `plan-${plan.name}`);
}

/** The state to start from: fresh, or the saved one on --resume. Throws UsageError (exit 2). */
export async function openPlanDir(plan: Plan, options: PlanRunOptions): Promise<PlanState> {
  const { out, resume, force } = options;
  const saved = existsSync(out) ? await readState(out) : undefined;
  if (saved !== undefined && saved.plan !== plan.name) {
    throw new UsageError(
      `${out} holds plan "${saved.plan}" (${saved.planFile}), not "${plan.name}"; give this plan another --out`,
    );
  }
  if (resume) {
    if (saved === undefined) {
      throw new UsageError(
        `--resume: no plan directory at ${out}; run the plan without --resume to start it (or give its --out)`,
      );
    }
    return resumeState(saved, plan, force);
  }
  if (saved !== undefined) {
    throw new UsageError(
      `${out} already holds this plan's state; give --resume to carry on, or another --out to start afresh`,
    );
  }
  if (existsSync(out) && (await readdir(out)).length > 0) {
    throw new UsageError(`${out} is not empty and not a plan directory; give another --out`);
  }
  return newState(plan);
}

/** Runs the plan's steps not yet done; returns the plan's exit code. */
export async function runPlan(plan: Plan, state: PlanState, options: PlanRunOptions): Promise<number> {
  const planDir = path.resolve(options.out);
  await mkdir(planDir, { recursive: true });
  // A plan that died left its step's process running: stop it before anything starts over.
  for (const record of state.steps) {
    if (record.child !== undefined && (await stopOrphan(record.child))) {
      options.say(
        `stopped step "${record.name}" (pid ${record.child.pid}), left running by the plan that died`,
      );
    }
    delete record.child;
  }
  await writeState(planDir, state);

  let current: StepProcess | undefined;
  let interrupted = false;
  const onTerm = (): void => {
    interrupted = true;
    current?.stop();
  };
  // Ctrl-C reaches the step itself (same process group); SIGTERM to the plan alone is passed on.
  const onInt = (): void => {
    interrupted = true;
  };
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  let worst: number = ExitCode.ok;
  try {
    for (const [i, step] of plan.steps.entries()) {
      const record = state.steps[i]!;
      if (record.state === 'done') {
        options.say(`step ${i + 1} "${step.name}": done already, not run again`);
        continue;
      }
      if (interrupted) break;
      await setAside(planDir, record);
      record.state = 'running';
      record.attempts += 1;
      record.startedAt = new Date().toISOString();
      record.stepHash = step.hash;
      record.planHash = plan.hash;
      record.runDirs = [];
      delete record.exitCode;
      delete record.endedAt;
      await mkdir(path.join(planDir, record.dir), { recursive: true });
      await writeState(planDir, state);
      options.say(
        `step ${i + 1} "${step.name}": txbench ${step.command}${step.targets.length > 0 ? ` on ${step.targets.join(', ')}` : ''}`,
      );

      let code: number = ExitCode.ok;
      for (const invocation of invocationsOf(step)) {
        const args = await stepArgs(plan, step, planDir, record, invocation);
        current = startTxbench(args);
        record.child = current.child;
        await writeState(planDir, state);
        code = await current.exited;
        current = undefined;
        delete record.child;
        if (code !== ExitCode.ok || interrupted) break;
      }
      record.runDirs = await runDirsUnder(planDir, record.dir);
      record.exitCode = code;
      record.endedAt = new Date().toISOString();
      record.state = code === ExitCode.ok ? 'done' : 'failed';
      await writeState(planDir, state);
      await writePlanReport(planDir, plan, state, options.say);
      if (code !== ExitCode.ok) {
        const runs = record.runDirs.length > 0 ? `; its runs: ${record.runDirs.join(', ')}` : '';
        options.say(`step ${i + 1} "${step.name}" failed (exit ${code})${runs}`);
        worst = worse(worst, planExit(code));
        if (interrupted) return ExitCode.interrupted;
        if (!step.continueOnFailure) return worst;
      }
    }
  } finally {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
  }
  if (interrupted) return ExitCode.interrupted;
  await writePlanReport(planDir, plan, state, options.say);
  return worst;
}

/** A step's invocations: run drives its targets together; the others take one target at a time. */
function invocationsOf(step: PlanStep): (readonly string[])[] {
  if (step.targets.length === 0) return [[]];
  return step.command === 'run' ? [step.targets] : step.targets.map((t) => [t]);
}

/**
 * The child's arguments: the command, a config file in the step's directory holding the plan's
 * targets (as written, `${NAME}` unexpanded: no password is copied) and the step's options, and
 * --target for each target of this invocation.
 */
async function stepArgs(
  plan: Plan,
  step: PlanStep,
  planDir: string,
  record: StepRecord,
  targets: readonly string[],
): Promise<string[]> {
  const dir = path.join(planDir, record.dir);
  const single = step.command !== 'run' && targets.length === 1;
  const section = {
    ...step.options,
    ...(WRITES_RUNS.has(step.command) ? { out: single ? path.join(dir, targets[0]!) : dir } : {}),
  };
  const config = {
    ...(plan.targets.length > 0 ? { targets: plan.targets } : {}),
    [step.command]: section,
  };
  const file = path.join(dir, `config${single ? `-${targets[0]!}` : ''}.json`);
  await writeJson(file, config);
  return [
    step.command,
    ...(step.file === undefined ? [] : [step.file]),
    '--config',
    file,
    ...targets.flatMap((t) => ['--target', t]),
  ];
}

/**
 * An earlier attempt's directory (interrupted, or failed) is moved to earlier/ with a note saying
 * what it is, so nothing measured is lost and the report shows only the attempt that counts.
 */
async function setAside(planDir: string, record: StepRecord): Promise<void> {
  const from = path.join(planDir, record.dir);
  if (!existsSync(from)) return;
  const to = path.join('earlier', `${path.basename(record.dir)}.attempt-${record.attempts}`);
  await mkdir(path.join(planDir, 'earlier'), { recursive: true });
  await rename(from, path.join(planDir, to));
  const what = record.state === 'running' ? 'interrupted' : record.state;
  await writeFile(
    path.join(planDir, to, 'ATTEMPT.txt'),
    `${what}: attempt ${record.attempts} of step "${record.name}", started ${record.startedAt ?? '?'}${
      record.exitCode === undefined ? ', ended when the plan died' : `, exit ${record.exitCode}`
    }; the step started over and its directory is ${record.dir}\n`,
  );
  record.earlier.push(to);
}

/** Run directories (a run.json, or a repeated run's repeat.json) under the step's directory. */
async function runDirsUnder(planDir: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const names = await readdir(path.join(planDir, relative)).catch(() => [] as string[]);
    if (names.includes('run.json') || names.includes('repeat.json')) {
      out.push(relative);
      return;
    }
    for (const name of names.sort()) {
      const child = path.join(relative, name);
      if (await isDir(path.join(planDir, child))) await walk(child);
    }
  };
  await walk(dir);
  return out;
}

async function isDir(p: string): Promise<boolean> {
  return await readdir(p)
    .then(() => true)
    .catch(() => false);
}

/** The plan's exit for a step's: 1, 2 and 3 as they are; 130 interrupted; anything else failed (1). */
function planExit(code: number): number {
  return code === 2 || code === 3 || code === 130 ? code : ExitCode.checkFailed;
}

/** Database trouble outranks a failed check. */
function worse(a: number, b: number): number {
  const rank = (c: number): number => (c === 3 ? 3 : c === 2 ? 2 : c === 0 ? 0 : 1);
  return rank(b) > rank(a) ? b : a;
}

/**
 * The plan directory's record of where the plan is (plan-state.json): each step's state
 * (pending, running, done, failed) with the plan file's hash and the step's own, its run
 * directories, and while it runs the pid of the txbench process running it. Written atomically
 * (temporary file, fsync, rename) at every change, so a SIGKILL or a power cut leaves the state
 * before the change or after it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { writeJson } from '../results/run-dir.js';
import type { Plan } from './plan-types.js';

export const STATE_FILE = 'plan-state.json';
const KIND = 'txbench-plan-state';
const VERSION = 1;

export type StepState = 'pending' | 'running' | 'done' | 'failed';

/** The txbench process running a step: a pid and its start time, so a reused pid is not taken for it. */
export interface ChildRecord {
  pid: number;
  /** /proc/PID/stat start time (clock ticks since boot); undefined where /proc is not. */
  startTicks?: number;
}

export interface StepRecord {
  name: string;
  command: string;
  state: StepState;
  /** sha256 of the step's definition when it last ran. */
  stepHash: string;
  /** sha256 of the whole plan file when the step last ran. */
  planHash: string;
  /** The step's directory, relative to the plan directory. */
  dir: string;
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  exitCode?: number;
  /** Run directories (relative to the plan directory) the step wrote, in order. */
  runDirs: string[];
  /** Directories of earlier attempts (interrupted or failed), kept, relative to the plan directory. */
  earlier: string[];
  child?: ChildRecord;
}

export interface PlanState {
  kind: typeof KIND;
  version: typeof VERSION;
  plan: string;
  planFile: string;
  planHash: string;
  steps: StepRecord[];
}

/** A fresh state: every step pending. */
export function newState(plan: Plan): PlanState {
  return {
    kind: KIND,
    version: VERSION,
    plan: plan.name,
    planFile: plan.file,
    planHash: plan.hash,
    steps: plan.steps.map((step, i) => ({
      name: step.name,
      command: step.command,
      state: 'pending',
      stepHash: step.hash,
      planHash: plan.hash,
      dir: stepDir(i, step.name),
      attempts: 0,
      runDirs: [],
      earlier: [],
    })),
  };
}

export function stepDir(index: number, name: string): string {
  return path.join('steps', `${String(index + 1).padStart(2, '0')}-${name}`);
}

export function writeState(planDir: string, state: PlanState): Promise<void> {
  return writeJson(path.join(planDir, STATE_FILE), state);
}

/** The state in `planDir`, or undefined when there is none; a file that is not one is refused. */
export async function readState(planDir: string): Promise<PlanState | undefined> {
  const file = path.join(planDir, STATE_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not a plan's state (not JSON); give another --out`);
  }
  const s = state as Partial<PlanState>;
  if (s.kind !== KIND || !Array.isArray(s.steps) || typeof s.plan !== 'string') {
    throw new UsageError(`${file} is not a plan's state; give another --out`);
  }
  if (typeof s.version !== 'number' || s.version > VERSION) {
    throw new UsageError(
      `${file} was written by a newer txbench (version ${String(s.version)}); upgrade txbench`,
    );
  }
  return state as PlanState;
}

/**
 * The state to carry on from on --resume: the saved one matched to the plan as it is now, step by
 * step. A done step whose definition changed is refused (naming it) unless `force`; steps after
 * the saved ones, or changed ones not yet done, start pending. Throws UsageError.
 */
export function resumeState(saved: PlanState, plan: Plan, force: boolean): PlanState {
  const fresh = newState(plan);
  fresh.steps = fresh.steps.map((step, i) => {
    const before = saved.steps[i];
    if (before === undefined) return step;
    const same = before.name === step.name && before.stepHash === step.stepHash;
    if (before.state === 'done' && !same && !force) {
      throw new UsageError(
        `step ${i + 1} "${before.name}" is done but the plan file changed it; put it back, give --force to keep its results anyway, or use another --out`,
      );
    }
    if (same || before.state === 'done') return { ...before, name: step.name, dir: before.dir };
    // A step changed before it finished: its earlier attempts stay, its new definition runs.
    return { ...step, earlier: before.earlier, attempts: before.attempts, state: before.state };
  });
  return fresh;
}

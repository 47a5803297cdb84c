/**
 * The time a plan will take, from the durations it gives: per measurement the precondition,
 * warm-up and window (a steady-state `auto[:MAX]` phase counted at its MAX), times the user
 * counts of `steps`, the values of `sweep`, the `repeat`, and the targets a step runs on one
 * after another. Loading and checking take what the scale takes: those steps are named as not
 * estimated rather than guessed.
 */
import type { ConfigValue } from '../config/config-types.js';
import { formatDuration, parseDurationMs } from '../config/duration.js';
import type { Plan, PlanStep } from './plan-types.js';

/** run's defaults (`txbench run --help`); a steady-state phase without MAX ends by 30m. */
const DEFAULT_WARMUP_MS = 15_000;
const DEFAULT_DURATION_MS = 90_000;
const AUTO_MAX_MS = 30 * 60_000;

export interface StepEstimate {
  step: PlanStep;
  /** The command's invocations: one per target, except run, which drives its targets together. */
  invocations: number;
  /** undefined: not estimated (load, check, drop, a replay without --duration). */
  ms?: number;
  /** How the figure is made, e.g. "4 user counts × (warm-up 5s + window 20s)". */
  how: string;
}

export interface PlanEstimate {
  steps: StepEstimate[];
  totalMs: number;
  notEstimated: string[];
}

export function estimatePlan(plan: Plan): PlanEstimate {
  const steps = plan.steps.map(estimateStep);
  return {
    steps,
    totalMs: steps.reduce((sum, s) => sum + (s.ms ?? 0), 0),
    notEstimated: steps.filter((s) => s.ms === undefined).map((s) => s.step.name),
  };
}

/** The number of separate invocations a step makes. */
export function invocationsOf(step: PlanStep): number {
  return step.command === 'run' ? 1 : Math.max(1, step.targets.length);
}

function estimateStep(step: PlanStep): StepEstimate {
  const invocations = invocationsOf(step);
  const o = step.options;
  if (step.command === 'load' || step.command === 'check' || step.command === 'drop') {
    return { step, invocations, how: `not estimated (${step.command} takes what the scale takes)` };
  }
  if (step.command === 'replay') {
    if (o.duration === undefined)
      return { step, invocations, how: 'not estimated (replay without duration)' };
    const ms = phaseMs(o.warmup, 0) + phaseMs(o.duration, 0);
    return {
      step,
      invocations,
      ms: ms * invocations,
      how: `${times(invocations, 'target')}warm-up + window`,
    };
  }
  const precondition = phaseMs(o.precondition, 0);
  const warmup = phaseMs(o.warmup, DEFAULT_WARMUP_MS);
  const duration = phaseMs(o.duration, DEFAULT_DURATION_MS);
  const repeat = typeof o.repeat === 'number' ? o.repeat : 1;
  const points =
    step.command === 'steps' ? listLength(o.users) : step.command === 'sweep' ? sweepValues(o.set) : 1;
  const one = precondition + warmup + duration;
  const ms = one * points * repeat * invocations;
  const phases = [
    ...(precondition > 0 ? [`precondition ${formatDuration(precondition)}`] : []),
    `warm-up ${formatDuration(warmup)}`,
    `window ${formatDuration(duration)}`,
  ].join(' + ');
  const what = step.command === 'steps' ? 'user count' : 'value';
  return {
    step,
    invocations,
    ms,
    how: `${times(invocations, 'target')}${times(repeat, 'repeat')}${points > 1 || step.command !== 'run' ? times(points, what, true) : ''}(${phases})`,
  };
}

function times(n: number, what: string, always = false): string {
  return n > 1 || always ? `${n} ${what}${n === 1 ? '' : 's'} × ` : '';
}

/** A phase's length: a duration, or auto[:MAX] counted at MAX. */
export function phaseMs(value: ConfigValue | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value).trim();
  const auto = /^auto\s*(?::\s*(.+))?$/.exec(text);
  if (auto !== null) return auto[1] === undefined ? AUTO_MAX_MS : parseDurationMs('duration', auto[1]);
  return parseDurationMs('duration', text);
}

function listLength(value: ConfigValue | undefined): number {
  if (Array.isArray(value)) return value.length;
  return typeof value === 'string' ? value.split(',').length : 1;
}

/** `shared_buffers=128MB,256MB` → 2. */
function sweepValues(value: ConfigValue | undefined): number {
  return typeof value === 'string' ? value.slice(value.indexOf('=') + 1).split(',').length : 1;
}

/** The dry run's lines: each step in order, how long, and the total. */
export function formatEstimate(plan: Plan, estimate: PlanEstimate): string {
  const width = Math.max(...plan.steps.map((s) => s.name.length));
  const lines = [
    `plan ${plan.name} (${plan.file}): ${plan.steps.length} step${plan.steps.length === 1 ? '' : 's'}, in this order`,
  ];
  estimate.steps.forEach((s, i) => {
    const on =
      s.step.targets.length === 0
        ? 'the default target'
        : s.step.command === 'run'
          ? `${s.step.targets.join(', ')}${s.step.targets.length > 1 ? ' together' : ''}`
          : `${s.step.targets.join(', ')}${s.step.targets.length > 1 ? ' one after another' : ''}`;
    const time = s.ms === undefined ? s.how : `${formatDuration(s.ms)}: ${s.how}`;
    const cont = s.step.continueOnFailure ? ' (continues on failure)' : '';
    lines.push(
      `  ${String(i + 1).padStart(2)}. ${s.step.name.padEnd(width)}  ${s.step.command} on ${on}${cont}; ${time}`,
    );
  });
  const rest =
    estimate.notEstimated.length === 0 ? '' : `, plus ${estimate.notEstimated.join(', ')} (not estimated)`;
  lines.push(`estimated total: ${formatDuration(estimate.totalMs)}${rest}`);
  return lines.join('\n');
}

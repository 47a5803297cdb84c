/**
 * `--repeat N` and `--reload` on `run`, `steps` and `sweep`: the flags, and what the three commands
 * do around their repetitions (src/run/repeat.ts measures them): reload before each when asked,
 * print the aggregate table, write it to --json, and take the exit code from every repetition.
 */
import { UsageError } from '../errors.js';
import { formatLoadResult, loadProgressPrinter } from '../report/load-progress.js';
import { formatRepeat } from '../report/repeat-table.js';
import { reloadWorkload } from '../run/reload.js';
import { repeatMeasurements, type RepeatPlan, type RepetitionOutcome } from '../run/repeat.js';
import type { MeasuredEntry } from '../run/repeat-aggregate.js';
import type { RunDirectory } from '../results/run-dir.js';
import type { RunOptions } from '../run/workload-run.js';
import type { RunReport } from '../results/run-file.js';
import type { Target } from '../targets/target.js';
import { parseIntFlag } from './args.js';
import { recordedCommandLine } from './command-line.js';
import { exitCodeOf, saveJson } from './run-session.js';
import type { FlagValues } from './workload-flags.js';

export const REPEAT_FLAGS = {
  repeat: { type: 'string' },
  reload: { type: 'boolean' },
} as const;

/** The most repetitions one command runs: more is a script's job, not a flag's. */
export const MAX_REPEAT = 1000;

export const REPEAT_HELP = `  --repeat N         measure N times, one after another (each with its own warm-up), each kept
                     as a run directory rep-1 ... rep-N under one parent with repeat.json: every
                     figure as mean ± 95% interval (Student's t over the N values), min ... max
                     and each value; steps and sweep repeat their whole sequence N times
  --reload           load the database again before each repetition (or before the run, without
                     --repeat): the same scale with the same seed as the load that is there`;

export interface RepeatFlags {
  /** undefined: no --repeat (one run directory, as always). */
  count: number | undefined;
  reload: boolean;
}

export function parseRepeatFlags(values: FlagValues): RepeatFlags {
  const text = values.repeat;
  return {
    count: typeof text === 'string' ? parseIntFlag('repeat', text, 1, MAX_REPEAT) : undefined,
    reload: values.reload === true,
  };
}

/** --repeat with what it cannot repeat: several targets at once, or a shard of a larger run. */
export function refuseRepeatWith(flags: RepeatFlags, targets: number, shard: boolean): void {
  if (flags.count === undefined) return;
  if (targets > 1) throw new UsageError('--repeat drives one target; give one --db or --data-dir');
  if (shard) throw new UsageError('--repeat cannot repeat a shard (--shard): repeat the merged run instead');
}

/** Repetition i's options: with --seed S, repetition i draws from S+i-1 (independent, reproducible). */
export function repetitionOptions<O extends RunOptions>(options: O, index: number): O {
  return options.seed === undefined ? options : { ...options, seed: (options.seed + index - 1) % 2 ** 31 };
}

/** A run report as one measurement of a repetition. */
export function measuredEntry(
  label: string,
  report: RunReport,
  extra: Pick<MeasuredEntry, 'users' | 'setting' | 'value'> = {},
): MeasuredEntry {
  return { label, ...extra, figures: report };
}

/** Drops and loads the target's workload again, with progress on stderr (--reload). */
export async function reloadTarget(target: Target, options: RunOptions): Promise<void> {
  console.error(`--reload: loading ${target.spec.label} again`);
  const result = await reloadWorkload(
    options.workload,
    options.workloadRef ?? options.workload.name,
    target.url,
    target.spec.label,
    loadProgressPrinter(process.stderr),
  );
  if (process.stderr.isTTY) process.stderr.write('\n');
  console.error(formatLoadResult(result));
}

/**
 * Runs the repetitions, prints the aggregate and where it is, writes it to --json, and returns
 * the exit code of every repetition measured (a repetition that threw is thrown again once the
 * ones before it are written).
 */
export async function runRepeated(
  plan: Pick<RepeatPlan, 'of'> & {
    flags: RepeatFlags & { count: number };
    resultsDir: string;
    json: string | undefined;
    target: Target;
    options: RunOptions;
  },
  once: (dir: RunDirectory, index: number) => Promise<RepetitionOutcome>,
): Promise<number> {
  const { flags, target, options } = plan;
  const result = await repeatMeasurements(
    {
      of: plan.of,
      count: flags.count,
      resultsDir: plan.resultsDir,
      reload: flags.reload ? () => reloadTarget(target, options) : undefined,
      onRepetition: (i, n) => console.error(`== repetition ${i} of ${n}`),
    },
    once,
    { commandLine: recordedCommandLine() },
  );
  console.log(formatRepeat(result.file));
  console.log(`repeated run directory: ${result.dir}`);
  if (plan.json !== undefined) await saveJson(plan.json, result.file);
  if (result.error !== undefined) throw result.error;
  return exitCodeOf(result.reports);
}

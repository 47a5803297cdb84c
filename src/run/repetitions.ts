/**
 * What `run`, `steps` and `sweep` do around their repetitions (`--repeat N`, `--reload`;
 * run/repeat.ts measures them): reload before each when asked, show the aggregate, write it to
 * --json, and take the exit code from every repetition. A sequence (steps, sweep) is repeated
 * whole, or measured once into one run directory.
 */
import { ExitCode } from '../errors.js';
import { RunDirectory } from '../results/run-dir.js';
import type { Target } from '../targets/target.js';
import { reloadWorkload } from './reload.js';
import { repeatMeasurements, type RepeatPlan, type RepetitionOutcome } from './repeat.js';
import type { MeasuredEntry } from './repeat-aggregate.js';
import type { RunSession } from './session.js';
import type { RunOptions } from './workload-run.js';
import type { RunReport } from '../results/run-file.js';

/** `--repeat N` and `--reload`, as the command line gives them. */
export interface RepeatFlags {
  /** undefined: no --repeat (one run directory, as always). */
  count: number | undefined;
  reload: boolean;
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
export async function reloadTarget(session: RunSession, target: Target, options: RunOptions): Promise<void> {
  console.error(`--reload: loading ${target.spec.label} again`);
  const result = await reloadWorkload(
    options.workload,
    options.workloadRef ?? options.workload.name,
    target.url,
    target.spec.label,
    session.outputs.loadProgress(),
  );
  session.outputs.loaded(result);
}

/**
 * Runs the repetitions, prints the aggregate and where it is, writes it to --json, and returns
 * the exit code of every repetition measured (a repetition that threw is thrown again once the
 * ones before it are written).
 */
export async function runRepeated(
  session: RunSession,
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
      reload: flags.reload ? () => reloadTarget(session, target, options) : undefined,
      onRepetition: (i, n) => console.error(`== repetition ${i} of ${n}`),
    },
    once,
    { commandLine: session.commandLine },
  );
  session.outputs.show({ kind: 'repeat', file: result.file, dir: result.dir });
  if (plan.json !== undefined) await session.saveJson(plan.json, result.file);
  if (result.error !== undefined) throw result.error;
  return session.exitCodeOf(result.reports);
}

/** A sequence of measurements on one target (the steps of `steps`, the values of `sweep`). */
export interface Sequence<M> {
  of: 'steps' | 'sweep';
  /** How many measurements a whole sequence has (fewer: it stopped early). */
  length: number;
  /** One pass into `runDir`: ends early at a measurement that does not complete. */
  measure(options: RunOptions, runDir: RunDirectory, json: string | undefined): Promise<M[]>;
  report(measured: M): RunReport;
  entry(measured: M): MeasuredEntry;
}

/** What a sequence is asked to do: where, with which options, how many times. */
export interface SequenceRequest {
  target: Target;
  options: RunOptions;
  repeat: RepeatFlags;
  resultsDir: string;
  json: string | undefined;
}

/**
 * A sequence measured once into its own run directory, or (--repeat N) N times into rep-1 … rep-N;
 * a sequence that stopped early exits as interrupted unless a report says worse.
 */
export async function runSequence<M>(
  session: RunSession,
  request: SequenceRequest,
  sequence: Sequence<M>,
): Promise<number> {
  const { target, options, repeat, resultsDir, json } = request;
  if (repeat.count !== undefined) {
    return runRepeated(
      session,
      { of: sequence.of, flags: { ...repeat, count: repeat.count }, resultsDir, json, target, options },
      async (dir, index) => {
        const measured = await sequence.measure(repetitionOptions(options, index), dir, undefined);
        const reports = measured.map((m) => sequence.report(m));
        return {
          reports,
          entries: measured.map((m) => sequence.entry(m)),
          status: sequenceStatus(reports, sequence.length),
        };
      },
    );
  }
  if (repeat.reload) await reloadTarget(session, target, options);
  const runDir = await RunDirectory.create(resultsDir, new Date(), sequence.of);
  const measured = await sequence.measure(options, runDir, json);
  const code = session.exitCodeOf(measured.map((m) => sequence.report(m)));
  return measured.length < sequence.length && code === ExitCode.ok ? ExitCode.interrupted : code;
}

/** completed when every measurement ran; else the status of the one that stopped the sequence. */
function sequenceStatus(reports: readonly RunReport[], length: number): string {
  const stopped = reports.find((r) => r.status !== 'completed')?.status;
  return stopped ?? (reports.length < length ? 'interrupted' : 'completed');
}

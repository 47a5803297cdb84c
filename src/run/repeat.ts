/**
 * `--repeat N`: the same measurement N times, one after another, each a complete run (its own
 * warm-up; with --reload, a freshly loaded database first), each in its own run directory
 * `rep-1`, `rep-2`, … under one parent, and `repeat.json` beside them with every figure as the
 * mean ± 95% interval over the repetitions. A repetition that does not complete (interrupted,
 * failed, a drain that gave up) or throws ends the series: what was measured is kept and written.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  REPEAT_FILE,
  REPEAT_SCHEMA_VERSION,
  repetitionDirName,
  type RepeatFile,
} from '../results/repeat-file.js';
import { RunDirectory, writeJson } from '../results/run-dir.js';
import { aggregateRepetitions, type MeasuredEntry } from './repeat-aggregate.js';
import type { RunReport } from '../results/run-file.js';

export interface RepeatPlan {
  /** The command repeated: each repetition's run.json is of this kind. */
  of: RepeatFile['of'];
  /** Repetitions asked for. */
  count: number;
  /** Where the parent directory is created (`--out`). */
  resultsDir: string;
  /** Brings the database back to a freshly loaded state before each repetition (--reload). */
  reload?: (() => Promise<void>) | undefined;
  /** Told before each repetition starts (the CLI prints a line). */
  onRepetition?: ((index: number, count: number) => void) | undefined;
}

/** What one repetition measured: its run reports and the measurements to aggregate. */
export interface RepetitionOutcome {
  reports: RunReport[];
  entries: MeasuredEntry[];
  /** completed, or what stopped it (the series then stops too). */
  status: string;
}

export interface RepeatResult {
  /** The parent directory. */
  dir: string;
  file: RepeatFile;
  /** Every run report of every repetition measured, in order (for the exit code). */
  reports: RunReport[];
  /** What a repetition threw, after repeat.json was written with the ones before it. */
  error?: unknown;
}

export async function repeatMeasurements(
  plan: RepeatPlan,
  once: (dir: RunDirectory, index: number) => Promise<RepetitionOutcome>,
  extra: { commandLine?: string | undefined } = {},
): Promise<RepeatResult> {
  const startedAt = new Date();
  const dir = await createParent(plan.resultsDir, startedAt);
  const outcomes: { index: number; outcome: RepetitionOutcome }[] = [];
  let error: unknown;
  let stopped = false;
  for (let index = 1; index <= plan.count && !stopped && error === undefined; index++) {
    plan.onRepetition?.(index, plan.count);
    try {
      await plan.reload?.();
      const runDir = await RunDirectory.create(dir, new Date(), plan.of, repetitionDirName(index));
      const outcome = await once(runDir, index);
      outcomes.push({ index, outcome });
      stopped = outcome.status !== 'completed';
    } catch (err) {
      error = err;
    }
  }
  const reports = outcomes.flatMap((o) => o.outcome.reports);
  const first = reports[0];
  const unfinished = outcomes.find((o) => o.outcome.status !== 'completed')?.outcome.status;
  const file: RepeatFile = {
    schemaVersion: REPEAT_SCHEMA_VERSION,
    kind: 'repeat',
    of: plan.of,
    status: unfinished ?? (error !== undefined || outcomes.length < plan.count ? 'failed' : 'completed'),
    startedAt: startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    ...(first === undefined ? {} : { workload: first.workload }),
    requested: plan.count,
    reload: plan.reload !== undefined,
    ...(first === undefined
      ? {}
      : {
          config: {
            target: first.config.target,
            thinkScale: first.config.thinkScale,
            nonstandardMix: first.config.nonstandardMix,
          },
        }),
    repetitions: outcomes.map((o) => ({
      index: o.index,
      dir: repetitionDirName(o.index),
      status: o.outcome.status,
    })),
    groups: aggregateRepetitions(outcomes.map((o) => o.outcome.entries)),
    ...(extra.commandLine === undefined ? {} : { commandLine: extra.commandLine }),
  };
  await writeJson(path.join(dir, REPEAT_FILE), file);
  return { dir, file, reports, ...(error === undefined ? {} : { error }) };
}

/** `parent/run-YYYYMMDD-HHMMSS` (with a suffix if that exists), as a single run's directory is named. */
async function createParent(parent: string, startedAt: Date): Promise<string> {
  const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  await mkdir(parent, { recursive: true });
  for (let n = 0; ; n++) {
    const dir = path.resolve(parent, `run-${stamp}${n ? `-${n}` : ''}`);
    try {
      await mkdir(dir);
      return dir;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

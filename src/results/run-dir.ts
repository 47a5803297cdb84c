/**
 * A run directory: `run.json` (schema-versioned, the single source for every report),
 * `intervals.ndjson` appended while the run goes (so a crash or Ctrl-C keeps what was measured),
 * and `histograms.json` with each type's encoded HDR histogram.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { Output } from './run-events.js';

/**
 * The version of run.json's shape, documented in schema/run.schema.json; readers refuse newer ones.
 * 2: every file names its `kind` (run, targets, steps, sweep); a single run's encoded histograms are
 * only in histograms.json; a run whose drain gave up is `incomplete-drain`, not `completed`.
 * 3: monitoring figures, all optional: each interval's `devices`, `host`, `database` and `missing`,
 * each summary's `devices` (per disk over the window), `host`, `database` and `monitor`.
 */
export const RUN_SCHEMA_VERSION = 3;

/** What a run.json holds: one measurement, several targets at once, user-count steps, or a sweep. */
export const RUN_KINDS = ['run', 'targets', 'steps', 'sweep'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * Refuses, before anything starts, a results directory that cannot be written: one line naming it
 * and why. A probe file proves writes work (root ignores permission bits).
 */
export async function checkResultsDir(parent: string): Promise<void> {
  const refuse = (why: string): never => {
    throw new UsageError(`cannot write results to ${parent}: ${why}; choose another --out`);
  };
  try {
    // Leaves no trace: what it had to create for the probe is removed again (the run makes it later).
    const created = await mkdir(parent, { recursive: true });
    const probe = path.join(parent, `.txbench-probe-${process.pid}`);
    await (await open(probe, 'w')).close();
    await rm(created ?? probe, { recursive: true, force: true });
  } catch (err) {
    // A recursive mkdir on a read-only file system can fail with ENOENT: ask the nearest
    // directory that exists why it cannot be written.
    const first = err as NodeJS.ErrnoException;
    const e = first.code === 'ENOENT' ? await whyNotWritable(parent, first) : first;
    refuse(
      e.code === 'ENOTDIR' || e.code === 'EEXIST'
        ? 'a file is in the way'
        : e.code === 'EACCES' || e.code === 'EPERM' || e.code === 'EROFS'
          ? 'not writable'
          : e.code === 'ENOSPC'
            ? 'no space left'
            : (e.code ?? e.message),
    );
  }
}

/** The error a probe file gets in the nearest existing ancestor of `dir` (or `fallback`). */
async function whyNotWritable(dir: string, fallback: NodeJS.ErrnoException): Promise<NodeJS.ErrnoException> {
  for (let d = path.dirname(path.resolve(dir)); ; d = path.dirname(d)) {
    const exists = await stat(d).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (exists) {
      const probe = path.join(d, `.txbench-probe-${process.pid}`);
      try {
        await (await open(probe, 'w')).close();
        await rm(probe, { force: true });
      } catch (err) {
        return err as NodeJS.ErrnoException;
      }
      return fallback;
    }
    if (d === path.dirname(d)) return fallback;
  }
}

/** Who is writing a run directory, so that a reader can tell a run in progress from a crashed one. */
export interface RunWriter {
  pid: number;
  host: string;
}

export class RunDirectory {
  /** Intervals are appended one after another, in the order given. */
  private appending: Promise<void> = Promise.resolve();
  /** The first interval that could not be written (a full disk): the run goes on, and says so at the end. */
  private appendError: string | undefined;
  /** run.json as written while the run goes on (before its results replace it). */
  private runningRecord: Record<string, unknown> = {};

  private constructor(readonly dir: string) {}

  /**
   * Creates `parent/run-YYYYMMDD-HHMMSS` (with a suffix if that exists) and marks it running by this
   * process: a run killed outright leaves that mark, which `txbench results` reads as crashed.
   * `name` gives the directory's name instead (a repetition's `rep-2`); it must not exist yet.
   */
  static async create(
    parent: string,
    startedAt: Date,
    kind: RunKind = 'run',
    name?: string,
  ): Promise<RunDirectory> {
    const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    for (let n = 0; ; n++) {
      const dir = path.resolve(parent, name ?? `run-${stamp}${n ? `-${n}` : ''}`);
      try {
        await mkdir(path.dirname(dir), { recursive: true });
        await mkdir(dir);
        const runDir = new RunDirectory(dir);
        runDir.runningRecord = {
          schemaVersion: RUN_SCHEMA_VERSION,
          kind,
          status: 'running',
          startedAt: startedAt.toISOString(),
        };
        await runDir.writeRun(runDir.runningRecord);
        return runDir;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || name !== undefined) throw err;
      }
    }
  }

  /** Writes run.json atomically; while the run goes on, with the writer's pid and host. */
  writeRun(run: object): Promise<void> {
    const writer: RunWriter = { pid: process.pid, host: os.hostname() };
    const content = 'status' in run && run.status === 'running' ? { ...run, writer } : run;
    return writeJson(path.join(this.dir, 'run.json'), content);
  }

  /**
   * Adds the run's conditions (workload, config) to run.json while it runs, so that a run killed
   * before it finishes can still be compared for what it was. A write that fails changes nothing:
   * the final run.json is what counts, and its failure is reported then.
   */
  async noteRunning(fields: Record<string, unknown>): Promise<void> {
    this.runningRecord = { ...this.runningRecord, ...fields };
    await this.writeRun(this.runningRecord).catch(() => undefined);
  }

  /**
   * Marks run.json interrupted without results (a second Ctrl-C quits before the run could
   * finish): readers take its figures from intervals.ndjson, as for a crashed run.
   */
  async markInterrupted(): Promise<void> {
    await this.appending;
    await this.writeRun({
      ...this.runningRecord,
      status: 'interrupted',
      interruptedAt: new Date().toISOString(),
    });
  }

  /** Appends one interval and flushes it to the disk, so that a crash keeps every interval measured. */
  appendInterval(interval: unknown): Promise<void> {
    const line = JSON.stringify(interval) + '\n';
    this.appending = this.appending.then(async () => {
      if (this.appendError !== undefined) return;
      try {
        const file = await open(path.join(this.dir, 'intervals.ndjson'), 'a');
        try {
          await file.write(line);
          await file.datasync();
        } finally {
          await file.close();
        }
      } catch (err) {
        this.appendError = `${path.join(this.dir, 'intervals.ndjson')}: ${err instanceof Error ? err.message : String(err)}`;
      }
    });
    return this.appending;
  }

  /** Why intervals stopped being written, if they did; waits for the appends in flight. */
  async intervalsError(): Promise<string | undefined> {
    await this.appending;
    return this.appendError;
  }

  writeHistograms(histograms: Record<string, string>): Promise<void> {
    return writeJson(path.join(this.dir, 'histograms.json'), histograms);
  }
}

/**
 * Writes JSON atomically: a temporary file beside it, flushed to the disk, renamed over the old
 * one, and the directory flushed, so a crash leaves the old file or the new one, never half of one.
 */
export async function writeJson(file: string, value: unknown): Promise<void> {
  // Its own temporary per write: two writes of one file in flight never share one.
  const temporary = `${file}.tmp-${process.pid}-${randomUUID()}`;
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(JSON.stringify(value, null, 2) + '\n');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
  const dir = await open(path.dirname(file), 'r').catch(() => undefined);
  await dir
    ?.sync()
    .catch(() => undefined)
    .finally(() => dir.close());
}

/**
 * A run directory's files as a run's output: the run's conditions into run.json as soon as it
 * starts (a run killed later is still comparable), and each interval appended to
 * intervals.ndjson and flushed as it happens (a crash keeps what was measured).
 *
 * `prefix` is the run's label in a run of several (`[pg] `), empty for a single run: only a
 * single run's conditions are run.json's, and the intervals of several carry their run's label.
 */
export function intervalsOutput(runDir: RunDirectory, prefix: string): Output {
  return {
    name: 'intervals file',
    event: (event) => {
      if (event.kind === 'start') {
        if (prefix === '') void runDir.noteRunning({ workload: event.config.workload, config: event.config });
      } else if (event.kind === 'interval') {
        const { interval } = event;
        // Not awaited: the directory appends in order and flushes each line on its own chain
        // (unbounded, as no interval may be dropped), and tells a failure at the end
        // (RunDirectory.intervalsError).
        void runDir.appendInterval(prefix ? { target: prefix.trim(), ...interval } : interval);
      }
    },
  };
}

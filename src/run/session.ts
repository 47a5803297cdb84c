/**
 * A run session: what `run`, `steps` and `sweep` share around their measurements. It loads
 * txbench's own server when it is empty, stops every run in flight on Ctrl-C (and marks their
 * run.json on a second one), writes the results, and turns the reports into the exit code. It
 * formats nothing: what is shown goes to the outputs its caller hands it (the CLI's printers),
 * and what reads a written run directory (report.html) is an output that hears it written.
 * The state of one command (run directories in flight, files it could not write) is the
 * session's own: the caller owns the object.
 */
import { ExitCode, UsageError } from '../errors.js';
import { intervalsOutput, writeJson, type RunDirectory } from '../results/run-dir.js';
import { WorkloadRun, type RunListener, type RunOptions } from './workload-run.js';
import type { RunReport } from '../results/run-file.js';
import type { Output, RunEvent } from '../results/run-events.js';
import type { Target, TargetOptions } from '../targets/target.js';
import { loadWorkload, type LoadProgress, type LoadResult } from '../workloads/loader.js';
import { foreignTables, loadCommandHint } from '../workloads/presence.js';
import { dialectFor } from '../dialects/for-url.js';
import { loadState } from '../workloads/load-record.js';
import { refuseWorkers } from './workers.js';
import { withTargets } from './open-targets.js';
import type { SessionResult } from './session-result.js';
import { startOutputs, type RunOutputs } from './outputs.js';

/** Where a session's news goes: the caller's printers and live outputs (run/ formats nothing). */
export interface SessionOutputs {
  /**
   * One measurement's live progress: its prefix is '' for a run alone, '[label] ' beside others;
   * `runDir` is the directory it is written to (for the live dashboard).
   */
  progress(prefix: string, runDir: string | undefined): RunListener;
  /** A printer of load progress (an empty embedded server loaded first, --reload). */
  loadProgress(): (p: LoadProgress) => void;
  /** A finished load. */
  loaded(result: LoadResult): void;
  /** A finished measurement's figures: a run, several targets, steps, a sweep, repetitions, checks. */
  show(result: SessionResult): void;
  /**
   * What reads a run directory once run.json is written (report.html, the live dashboard's last
   * page): outputs that hear `written`. What they could not write is the command's (exit 1).
   */
  readonly runDirOutputs: readonly Output[];
  /** A drain that gave up, in words (the exit message names it). */
  describeDrain(drain: RunReport['drain']): string;
}

/** How long a second Ctrl-C waits for run.json to be marked before the process quits anyway. */
const QUIT_WRITE_MS = 2000;

/** One measurement on one target. */
export function newRun(target: Target, options: RunOptions, listener: RunListener): WorkloadRun {
  const monitoring = { nodeExporter: target.spec.nodeExporter, device: target.spec.device };
  return new WorkloadRun(
    target.url,
    target.spec.label,
    { ...options, dataDir: target.dataDir, monitoring },
    listener,
  );
}

/** A report without its encoded histograms (for --json and nested reports). */
export function withoutHistograms(report: RunReport): Omit<RunReport, 'histograms'> {
  const { histograms, ...rest } = report;
  return rest;
}

export class RunSession {
  /** The run directories being written now: a second Ctrl-C marks them before quitting. */
  private readonly runDirsInFlight = new Set<RunDirectory>();
  /**
   * What this command could not write (a full disk, a file system gone read-only): the run went
   * on to its end and its figures are on stdout, but the command exits 1 naming them.
   */
  private readonly unwritten: string[] = [];
  /** The command's own events (a run directory written); its outputs are the caller's to stop. */
  private readonly runDirEvents: RunOutputs;

  constructor(
    readonly outputs: SessionOutputs,
    /** The command line run.json records (`commandLine`), passwords hidden; none from the API. */
    readonly commandLine: string | undefined,
  ) {
    this.runDirEvents = startOutputs(outputs.runDirOutputs, (message) =>
      console.error(`warning: ${message}`),
    );
  }

  /**
   * What `run`, `steps` and `sweep` do around their measurements, in one place: open the targets,
   * load txbench's own server when it is empty, then hand the targets to `body`; everything is
   * closed again however `body` ends. (The caller refuses an unwritable results directory first,
   * with checkResultsDir, before it starts its live outputs.)
   */
  async open(
    options: RunOptions,
    list: readonly TargetOptions[],
    body: (targets: Target[]) => Promise<number>,
  ): Promise<number> {
    return withTargets(list, { create: true }, async (targets) => {
      for (const t of targets) await this.loadIfEmpty(t, options);
      return body(targets);
    });
  }

  /**
   * The main job on a fresh machine: txbench's own embedded server gets the workload's default
   * scale loaded when nothing is there yet. Someone else's database is never written to uninvited:
   * it must be loaded.
   */
  async loadIfEmpty(target: Target, options: RunOptions): Promise<void> {
    const workload = options.workload;
    const dialect = await dialectFor(target.url);
    // Before anything is loaded or opened: SQLite's one writer is driven from one thread.
    refuseWorkers(options.workers, dialect.capabilities.concurrentWriters);
    const db = await dialect.connect(target.url, { max: 1 });
    let empty: boolean;
    let other: string | undefined;
    try {
      empty = (await loadState(workload, dialect, db)).kind === 'empty';
      if (empty) other = await foreignTables(workload, dialect, db);
    } finally {
      await db.close();
    }
    if (!empty) return;
    if (other !== undefined) {
      throw new UsageError(
        `no ${workload.name} tables in ${target.spec.label}, but ${other}; run with --workload ${/the (\S+) workload/.exec(other)?.[1] ?? 'NAME'}, or load ${workload.name} into another database`,
      );
    }
    if (target.spec.kind === 'url') {
      throw new UsageError(
        `nothing is loaded in ${target.spec.label}; run \`${loadCommandHint(workload)} --db URL\` first`,
      );
    }
    const workloadOptions = options.workloadOptions ?? {};
    const scale = workload.describeRecord?.(workload.loader.plan(workloadOptions, 0)) ?? workload.name;
    console.error(`nothing loaded in ${target.spec.label}; loading ${scale} first`);
    const result = await loadWorkload(
      workload,
      options.workloadRef ?? workload.name,
      target.url,
      { options: workloadOptions },
      this.outputs.loadProgress(),
    );
    this.outputs.loaded(result);
  }

  /**
   * A measurement's listener: the outputs' progress, and with a run directory, its intervals
   * appended as they happen and (a single run) its conditions in run.json as soon as it starts.
   */
  listener(prefix: string, runDir?: RunDirectory): RunListener {
    const shown = this.outputs.progress(prefix, runDir?.dir);
    if (!runDir) return shown;
    this.runDirsInFlight.add(runDir);
    // The run directory is an output too: its conditions in run.json at the start, each interval appended.
    return { ...shown, outputs: [...(shown.outputs ?? []), intervalsOutput(runDir, prefix)] };
  }

  /**
   * Every run in flight stops on Ctrl-C or SIGTERM (what was measured is kept); a second one quits
   * at once, after marking each run.json interrupted (its intervals are on the disk already, and
   * the readers take its figures from them).
   */
  async withInterrupt<T>(runs: () => readonly WorkloadRun[], body: () => Promise<T>): Promise<T> {
    let interrupted = false;
    const quit = (): void => {
      console.error('interrupted again: quitting now; the intervals measured so far are kept');
      const marked = [...this.runDirsInFlight].map((d) => d.markInterrupted());
      setTimeout(() => process.exit(ExitCode.interrupted), QUIT_WRITE_MS).unref();
      void Promise.allSettled(marked).then(() => process.exit(ExitCode.interrupted));
    };
    const interrupt = (): void => {
      console.error(
        '\ninterrupted: stopping the terminals and keeping what was measured (Ctrl-C again to quit now)',
      );
      interrupted = true;
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
      process.once('SIGINT', quit);
      process.once('SIGTERM', quit);
      for (const run of runs()) run.stop();
    };
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', interrupt);
    try {
      return await body();
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
      process.off('SIGINT', quit);
      process.off('SIGTERM', quit);
      if (interrupted) process.exitCode = ExitCode.interrupted;
    }
  }

  /** Runs one write of the results; a failure is noted and told, never thrown. */
  private async attemptWrite(what: string, write: () => Promise<void>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      this.unwritten.push(what);
      const why = e.code === 'ENOSPC' ? 'no space left on the device' : (e.code ?? e.message);
      console.error(`txbench: could not write ${what} (${why}); the figures above are the run's`);
      return false;
    }
  }

  /** Writes a --json file; a failure is told and makes the exit code 1 (exitCodeOf). */
  saveJson(file: string, content: object): Promise<boolean> {
    return this.attemptWrite(file, () => writeJson(file, content));
  }

  async saveResults(
    runDir: RunDirectory | undefined,
    json: string | undefined,
    content: object,
    histograms?: Record<string, string>,
  ): Promise<void> {
    const commandLine = this.commandLine;
    const recorded = commandLine === undefined ? content : { ...content, commandLine };
    if (runDir) {
      this.runDirsInFlight.delete(runDir);
      const lost = await runDir.intervalsError();
      if (lost !== undefined) {
        this.unwritten.push(lost.replace(/: .*$/, ''));
        console.error(`txbench: intervals stopped being written (${lost}); run.json has the figures`);
      }
      const saved = await this.attemptWrite(`${runDir.dir}/run.json`, () => runDir.writeRun(recorded));
      if (histograms)
        await this.attemptWrite(`${runDir.dir}/histograms.json`, () => runDir.writeHistograms(histograms));
      console.log(`run directory: ${runDir.dir}`);
      if (saved) await this.announce({ kind: 'written', dir: runDir.dir });
    }
    if (json !== undefined) await this.saveJson(json, recorded);
  }

  /**
   * Tells the command's outputs an event of its own and waits for them: the runs are over, and
   * what they could not write is named in the exit (exitCodeOf).
   */
  private async announce(event: RunEvent): Promise<void> {
    this.runDirEvents.emit(event);
    await this.runDirEvents.settled();
    for (const output of this.outputs.runDirOutputs) this.unwritten.push(...(output.unwritten?.() ?? []));
  }

  /**
   * Exit code for a finished run: interrupted 130, lost database 3 (--on-error stop), results that
   * could not be written 1, more failures than --max-errors or --max-error-rate 1, incomplete
   * drain 1, else 0.
   * An incomplete drain exits 1, like a failed check: the figures stand, but a transaction still
   * running `drainMs` after the window closed is a fault a script must not mistake for success.
   */
  exitCodeOf(reports: readonly RunReport[]): number {
    if (reports.some((r) => r.status === 'interrupted')) return ExitCode.interrupted;
    const failed = reports.find((r) => r.status === 'failed');
    if (failed) {
      console.error(
        `txbench: ${failed.failure ?? 'the run failed'}; the results above cover what was measured`,
      );
      return ExitCode.database;
    }
    if (this.unwritten.length > 0) {
      console.error(
        `txbench: not written: ${this.unwritten.join(', ')}; the run's figures are on stdout above; free some space or choose another --out`,
      );
      return ExitCode.checkFailed;
    }
    const tooMany = reports.find((r) => r.faults.exceeded !== null);
    if (tooMany) {
      console.error(
        `txbench: ${tooMany.faults.exceeded} (${tooMany.config.target}); the figures are written, the run fails`,
      );
      return ExitCode.checkFailed;
    }
    const stuck = reports.find((r) => r.status === 'incomplete-drain');
    if (stuck) {
      console.error(
        `txbench: ${this.outputs.describeDrain(stuck.drain)} ; look for blocked or stuck sessions on the server`,
      );
      return ExitCode.checkFailed;
    }
    return ExitCode.ok;
  }
}

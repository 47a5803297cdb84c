/**
 * What `run`, `steps` and `sweep` share: loading when empty, one measurement on a target with live
 * progress, Ctrl-C handling for every run in flight, and writing the results.
 */
import { ExitCode, UsageError } from '../errors.js';
import { formatLoadResult, loadProgressPrinter } from '../report/load-progress.js';
import { drainWarning } from '../report/run-summary.js';
import { progressOutput } from '../report/progress-output.js';
import { intervalsOutput, RunDirectory, writeJson } from '../results/run-dir.js';
import { WorkloadRun, type RunListener, type RunOptions, type RunReport } from '../run/workload-run.js';
import type { Target, TargetOptions } from '../targets/target.js';
import { checkResultsDir } from '../results/run-dir.js';
import { withTargets } from './target.js';
import { metricsOutput, startMetricsServer, type MetricsServer } from '../report/prometheus.js';
import type { MetricsEndpoint } from './monitor-flags.js';
import { loadWorkload } from '../workloads/loader.js';
import { foreignTables, loadCommandHint } from '../workloads/presence.js';
import { dialectFor } from '../dialects/for-url.js';
import { loadState } from '../workloads/load-record.js';
import { refuseWorkers } from '../run/workers.js';
import { dashboardOutput, startDashboard, type Dashboard } from '../report/html/dashboard.js';
import { writeRunDirReport } from '../report/html/report.js';
import { recordedCommandLine } from './command-line.js';

/**
 * The main job on a fresh machine: txbench's own embedded server gets the workload's default
 * scale loaded when nothing is there yet. Someone else's database is never written to uninvited:
 * it must be loaded.
 */
export async function loadIfEmpty(target: Target, options: RunOptions): Promise<void> {
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
    loadProgressPrinter(process.stderr),
  );
  if (process.stderr.isTTY) process.stderr.write('\n');
  console.error(formatLoadResult(result));
}

/**
 * One run's outputs: progress on stderr (with several targets each line starts with the
 * target's label), the run directory's files, and the live dashboard when one is served.
 */
export function progressListener(prefix: string, runDir?: RunDirectory): RunListener {
  if (runDir) {
    dashboard?.setRunDir(runDir.dir);
    runDirsInFlight.add(runDir);
  }
  const progress = progressOutput(prefix);
  return {
    outputs: [
      progress,
      ...(runDir ? [intervalsOutput(runDir, prefix)] : []),
      ...(dashboard ? [dashboardOutput(dashboard, prefix)] : []),
    ],
    // A wrapper's own warnings (a shard's clock) go to the same lines.
    onWarning: (message) => void progress.event({ kind: 'warning', target: prefix.trim(), message }),
  };
}

/** The run directories being written now: a second Ctrl-C marks them before quitting. */
const runDirsInFlight = new Set<RunDirectory>();

/** How long a second Ctrl-C waits for run.json to be marked before the process quits anyway. */
const QUIT_WRITE_MS = 2000;

/**
 * Every run in flight stops on Ctrl-C or SIGTERM (what was measured is kept); a second one quits
 * at once, after marking each run.json interrupted (its intervals are on the disk already, and
 * the readers take its figures from them).
 */
export async function withInterrupt<T>(
  runs: () => readonly WorkloadRun[],
  body: () => Promise<T>,
): Promise<T> {
  let interrupted = false;
  const quit = (): void => {
    console.error('interrupted again: quitting now; the intervals measured so far are kept');
    const marked = [...runDirsInFlight].map((d) => d.markInterrupted());
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

/**
 * Serves the live run for Prometheus while `body` runs (--metrics-port). Started before anything
 * else, so a port in use is one line and exit 2 before any load or run begins.
 */
export async function withMetricsServer<T>(
  endpoint: MetricsEndpoint | undefined,
  body: (server: MetricsServer | undefined) => Promise<T>,
): Promise<T> {
  if (endpoint === undefined) return body(undefined);
  const server = await startMetricsServer(endpoint);
  console.error(`metrics for Prometheus: ${server.url}`);
  try {
    return await body(server);
  } finally {
    await server.close().catch(() => undefined);
  }
}

/** The live dashboard of this process (--dashboard), while one is served. */
let dashboard: Dashboard | undefined;

/**
 * Serves the live dashboard while `body` runs (--dashboard PORT). Started before anything else,
 * so a port in use is one line and exit 2 before any load or run begins.
 */
export async function withDashboard<T>(port: number | undefined, body: () => Promise<T>): Promise<T> {
  if (port === undefined) return body();
  dashboard = await startDashboard(port);
  console.error(`dashboard: ${dashboard.url}`);
  try {
    return await body();
  } finally {
    if (dashboard.dropped > 0)
      console.error(`dashboard: ${dashboard.dropped} updates dropped for slow pages`);
    await dashboard.close().catch(() => undefined);
    dashboard = undefined;
  }
}

/**
 * What `run`, `steps` and `sweep` do around their measurements, in one place: refuse an
 * unwritable results directory, start the dashboard and the metrics endpoint (a port in use is
 * exit 2 before anything else), open the targets, load txbench's own server when it is empty,
 * then hand the targets to `body`; everything is closed again however `body` ends.
 */
export async function withRunSession(
  options: RunOptions & { dashboard?: number | undefined; metrics?: MetricsEndpoint | undefined },
  list: readonly TargetOptions[],
  resultsDir: string,
  body: (targets: Target[]) => Promise<number>,
): Promise<number> {
  await checkResultsDir(resultsDir);
  return withDashboard(options.dashboard, () =>
    withMetricsServer(options.metrics, (metricsServer) => {
      if (metricsServer) options.outputs = [...(options.outputs ?? []), metricsOutput(metricsServer)];
      return withTargets(list, { create: true }, async (targets) => {
        for (const t of targets) await loadIfEmpty(t, options);
        return body(targets);
      });
    }),
  );
}

/** A report without its encoded histograms (for --json and nested reports). */
export function withoutHistograms(report: RunReport): Omit<RunReport, 'histograms'> {
  const { histograms, ...rest } = report;
  return rest;
}

/**
 * What this command could not write (a full disk, a file system gone read-only): the run went
 * on to its end and its figures are on stdout, but the command exits 1 naming them.
 */
const unwritten: string[] = [];

/** Runs one write of the results; a failure is noted and told, never thrown. */
async function attemptWrite(what: string, write: () => Promise<void>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    unwritten.push(what);
    const why = e.code === 'ENOSPC' ? 'no space left on the device' : (e.code ?? e.message);
    console.error(`txbench: could not write ${what} (${why}); the figures above are the run's`);
    return false;
  }
}

/** Writes a --json file; a failure is told and makes the exit code 1 (exitCodeOf). */
export function saveJson(file: string, content: object): Promise<boolean> {
  return attemptWrite(file, () => writeJson(file, content));
}

export async function saveResults(
  runDir: RunDirectory | undefined,
  json: string | undefined,
  content: object,
  histograms?: Record<string, string>,
): Promise<void> {
  const commandLine = recordedCommandLine();
  const recorded = commandLine === undefined ? content : { ...content, commandLine };
  if (runDir) {
    runDirsInFlight.delete(runDir);
    const lost = await runDir.intervalsError();
    if (lost !== undefined) {
      unwritten.push(lost.replace(/: .*$/, ''));
      console.error(`txbench: intervals stopped being written (${lost}); run.json has the figures`);
    }
    const saved = await attemptWrite(`${runDir.dir}/run.json`, () => runDir.writeRun(recorded));
    if (histograms)
      await attemptWrite(`${runDir.dir}/histograms.json`, () => runDir.writeHistograms(histograms));
    console.log(`run directory: ${runDir.dir}`);
    // The figures are safe on disk already: a report that cannot be drawn is a warning, not a failed run.
    if (saved) {
      try {
        const report = await writeRunDirReport(runDir.dir);
        await dashboard?.finish(report);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== undefined) unwritten.push(`${runDir.dir}/report.html`);
        console.error(
          `warning: report.html not written (${err instanceof Error ? err.message : String(err)})`,
        );
      }
    }
  }
  if (json !== undefined) await saveJson(json, recorded);
}

/**
 * Exit code for a finished run: interrupted 130, lost database 3 (--on-error stop), results that
 * could not be written 1, more failures than --max-errors or --max-error-rate 1, incomplete
 * drain 1, else 0.
 * An incomplete drain exits 1, like a failed check: the figures stand, but a transaction still
 * running `drainMs` after the window closed is a fault a script must not mistake for success.
 */
export function exitCodeOf(reports: readonly RunReport[]): number {
  if (reports.some((r) => r.status === 'interrupted')) return ExitCode.interrupted;
  const failed = reports.find((r) => r.status === 'failed');
  if (failed) {
    console.error(
      `txbench: ${failed.failure ?? 'the run failed'}; the results above cover what was measured`,
    );
    return ExitCode.database;
  }
  if (unwritten.length > 0) {
    console.error(
      `txbench: not written: ${unwritten.join(', ')}; the run's figures are on stdout above; free some space or choose another --out`,
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
    console.error(`txbench: ${drainWarning(stuck.drain)} ; look for blocked or stuck sessions on the server`);
    return ExitCode.checkFailed;
  }
  return ExitCode.ok;
}

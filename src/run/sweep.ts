/**
 * `txbench sweep`: the same measurement once per value of a server setting on one target (the
 * setting applied, and the server reloaded or restarted when it must be), in one run directory
 * (or --repeat N of them).
 */
import { spawnSync } from 'node:child_process';
import { DatabaseError, UsageError } from '../errors.js';
import { RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import type { Target, TargetOptions } from '../targets/target.js';
import { dialectFor } from '../dialects/for-url.js';
import { measuredEntry, runSequence, type RepeatFlags } from './repetitions.js';
import { newRun, RunSession, withoutHistograms, type SessionOutputs } from './session.js';
import { GENERIC_DISCLAIMER, type RunOptions, type WorkloadRun } from './workload-run.js';
import type { RunReport } from '../results/run-file.js';

/** A server setting and the values to measure it at. */
export interface SweepSetting {
  setting: string;
  values: readonly string[];
  /** Shell command that restarts an external server (when the setting needs a restart). */
  restartCmd: string | undefined;
}

export interface SweepRequest {
  options: RunOptions;
  /** The one target (a list of one). */
  targets: readonly TargetOptions[];
  sweep: SweepSetting;
  resultsDir: string;
  json: string | undefined;
  repeat: RepeatFlags;
  /** The command line run.json records, if any. */
  commandLine?: string | undefined;
}

/** Runs the sweep; resolves to the exit code (ExitCode). */
export async function runSweep(request: SweepRequest, outputs: SessionOutputs): Promise<number> {
  const { options, sweep, resultsDir, json, repeat } = request;
  const { setting } = sweep;
  const session = new RunSession(outputs, request.commandLine);
  return session.open(options, request.targets, ([target]) =>
    runSequence(
      session,
      { target: target!, options, repeat, resultsDir, json },
      {
        of: 'sweep',
        length: sweep.values.length,
        measure: (opts, runDir, jsonFile) => measureSweep(session, target!, opts, sweep, runDir, jsonFile),
        report: (r) => r.report,
        entry: (r) => measuredEntry(`${setting}=${r.value}`, r.report, { setting, value: r.value }),
      },
    ),
  );
}

/**
 * One pass over the setting's values into `runDir`: each value applied and measured, the table
 * printed, run.json written; ends early at a value whose run does not complete.
 */
async function measureSweep(
  session: RunSession,
  target: Target,
  options: RunOptions,
  sweep: SweepSetting,
  runDir: RunDirectory,
  json: string | undefined,
): Promise<{ value: string; report: RunReport }[]> {
  const { setting, values: settingValues, restartCmd } = sweep;
  const workload = options.workload;
  const startedAt = new Date().toISOString();
  const reports: { value: string; report: RunReport }[] = [];
  let current: WorkloadRun | undefined;
  await session.withInterrupt(
    () => (current ? [current] : []),
    async () => {
      for (const value of settingValues) {
        await applySetting(target, setting, value, restartCmd);
        current = newRun(target, options, session.listener(`[${setting}=${value}] `, runDir));
        const report = await current.run();
        reports.push({ value, report });
        if (report.status !== 'completed') break;
      }
    },
  );
  session.outputs.show({
    kind: 'sweep',
    setting,
    rows: reports.map((r) => ({ label: r.value, summary: r.report.summary, config: r.report.config })),
    note: `${setting} was left at ${reports.at(-1)?.value ?? 'its old value'}`,
  });
  await session.saveResults(runDir, json, {
    schemaVersion: RUN_SCHEMA_VERSION,
    kind: 'sweep',
    status: reports.find((r) => r.report.status !== 'completed')?.report.status ?? 'completed',
    startedAt,
    endedAt: new Date().toISOString(),
    workload: reports[0]?.report.workload ?? options.workloadRef,
    disclaimer: reports[0]?.report.disclaimer ?? workload.disclaimer ?? GENERIC_DISCLAIMER,
    config: { target: target.spec.label, setting, values: settingValues },
    sweep: reports.map((r) => ({
      setting,
      value: r.value,
      summary: r.report.summary,
      report: withoutHistograms(r.report),
    })),
  });
  return reports;
}

/** Sets the value on the server and makes it take effect (reload, or restart when it must). */
async function applySetting(target: Target, name: string, value: string, restartCmd?: string): Promise<void> {
  const dialect = await dialectFor(target.url);
  if (!dialect.applySetting) throw new UsageError(`sweeps are not available for ${dialect.name}`);
  const db = await dialect.connect(target.url, { max: 1 });
  let outcome: 'applied' | 'restart';
  try {
    outcome = await dialect.applySetting(db, name, value);
  } finally {
    await db.close();
  }
  if (outcome === 'applied') return;
  console.error(`${name}=${value} needs a server restart; restarting`);
  if (target.restart) return target.restart();
  if (!restartCmd) {
    throw new UsageError(
      `${name} takes effect only after a server restart; give --restart-cmd 'COMMAND' that restarts it`,
    );
  }
  const result = spawnSync(restartCmd, { shell: true, stdio: 'inherit' });
  if (result.status !== 0)
    throw new DatabaseError(`--restart-cmd exited with ${result.status ?? result.signal}; fix the command`);
  await waitUntilReachable(target.url);
}

async function waitUntilReachable(url: string): Promise<void> {
  const dialect = await dialectFor(url);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await (await dialect.connect(url, { max: 1 })).close();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

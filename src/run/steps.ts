/**
 * `txbench steps`: one full warm-up and measured window per user count on one target, the scaling
 * table and its knee, in one run directory (or --repeat N of them).
 */
import { mergeStatus } from '../engine/merge.js';
import { RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import type { Target, TargetOptions } from '../targets/target.js';
import { kneeOf } from './aggregate.js';
import { measuredEntry, runSequence, type RepeatFlags } from './repetitions.js';
import { newRun, RunSession, withoutHistograms, type SessionOutputs } from './session.js';
import { GENERIC_DISCLAIMER, type RunOptions, type WorkloadRun } from './workload-run.js';
import type { RunReport } from '../results/run-file.js';

export interface StepsRequest {
  options: RunOptions;
  /** The one target (a list of one: more is refused). */
  targets: readonly TargetOptions[];
  /** Terminal counts, one measurement each, in order. */
  users: readonly number[];
  resultsDir: string;
  json: string | undefined;
  repeat: RepeatFlags;
  /** The command line run.json records, if any. */
  commandLine?: string | undefined;
}

/** Runs the steps; resolves to the exit code (ExitCode). */
export async function runSteps(request: StepsRequest, outputs: SessionOutputs): Promise<number> {
  const { options, users, resultsDir, json, repeat } = request;
  const session = new RunSession(outputs, request.commandLine);
  return session.open(options, request.targets, ([target]) =>
    runSequence(
      session,
      { target: target!, options, repeat, resultsDir, json },
      {
        of: 'steps',
        length: users.length,
        measure: (opts, runDir, jsonFile) => measureSteps(session, target!, opts, users, runDir, jsonFile),
        report: (r) => r,
        entry: (r) => measuredEntry(`${r.config.terminals} users`, r, { users: r.config.terminals }),
      },
    ),
  );
}

/**
 * One full sequence of steps into `runDir`: each user count's warm-up and window, the scaling
 * table printed, run.json written; ends early at a step that does not complete.
 */
async function measureSteps(
  session: RunSession,
  target: Target,
  options: RunOptions,
  users: readonly number[],
  runDir: RunDirectory,
  json: string | undefined,
): Promise<RunReport[]> {
  const workload = options.workload;
  const startedAt = new Date().toISOString();
  const reports: RunReport[] = [];
  let current: WorkloadRun | undefined;
  await session.withInterrupt(
    () => (current ? [current] : []),
    async () => {
      for (const n of users) {
        current = newRun(target, { ...options, terminals: n }, session.listener(`[${n} users] `, runDir));
        const report = await current.run();
        reports.push(report);
        if (report.status !== 'completed') break;
      }
    },
  );
  const steps = reports.map((r) => ({
    users: r.config.terminals,
    summary: r.summary,
    report: withoutHistograms(r),
  }));
  const knee = kneeOf(steps.map((s) => ({ users: s.users, tps: s.summary.tps })));
  session.outputs.show({ kind: 'steps', steps, knee });
  await session.saveResults(runDir, json, {
    schemaVersion: RUN_SCHEMA_VERSION,
    kind: 'steps',
    status: mergeStatus(reports.map((r) => r.status)),
    startedAt,
    endedAt: new Date().toISOString(),
    workload: reports[0]?.workload ?? options.workloadRef,
    disclaimer: reports[0]?.disclaimer ?? workload.disclaimer ?? GENERIC_DISCLAIMER,
    config: { target: target.spec.label, users, ...(reports[0] ? { run: reports[0].config } : {}) },
    knee: knee ?? null,
    steps,
  });
  return reports;
}

/**
 * `txbench run`: one measurement on one target, or on several driven at the same moment and added
 * up, or --repeat N of them; a shard holds at --start-at; --check after the run.
 */
import { ExitCode } from '../errors.js';
import { RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import type { Target, TargetOptions } from '../targets/target.js';
import { checkWorkload } from '../workloads/checks.js';
import { aggregate } from './aggregate.js';
import {
  measuredEntry,
  reloadTarget,
  repetitionOptions,
  runRepeated,
  type RepeatFlags,
} from './repetitions.js';
import { newRun, RunSession, withoutHistograms, type SessionOutputs } from './session.js';
import { markCancelled, shardListener, startGate } from './shard-start.js';
import { SharedCpu } from './shared-cpu.js';
import { targetsContent } from './targets-content.js';
import type { RunOptions } from './workload-run.js';
import type { RunReport } from '../results/run-file.js';

export interface RunRequest {
  options: RunOptions;
  /** The targets: one, or several driven at once and added up. */
  targets: readonly TargetOptions[];
  /** A shard's start (--start-at): its terminals start at this moment. */
  startAt?: Date | undefined;
  resultsDir: string;
  json: string | undefined;
  repeat: RepeatFlags;
  /** Check the workload's consistency conditions after the run (--check). */
  check: boolean;
  /** The command line run.json records, if any. */
  commandLine?: string | undefined;
}

/** Runs the measurement(s); resolves to the exit code (ExitCode). */
export async function runBenchmark(request: RunRequest, outputs: SessionOutputs): Promise<number> {
  const { options, repeat, json, resultsDir: out } = request;
  const shard = options.shard;
  const who = shard ? `shard ${shard.index}/${shard.count}: ` : '';
  const ready = startGate(request.startAt, who);
  const session = new RunSession(outputs, request.commandLine);
  return session.open(options, request.targets, async (targets) => {
    let code: number;
    if (repeat.count !== undefined) {
      const target = targets[0]!;
      code = await runRepeated(
        session,
        { of: 'run', flags: { ...repeat, count: repeat.count }, resultsDir: out, json, target, options },
        async (dir, index) => {
          const report = await runOne(
            session,
            target,
            repetitionOptions(options, index),
            dir,
            undefined,
            ready,
          );
          return {
            reports: [report],
            entries: [measuredEntry(target.spec.label, report)],
            status: report.status,
          };
        },
      );
    } else {
      if (repeat.reload) for (const t of targets) await reloadTarget(session, t, options);
      const runDir = await RunDirectory.create(out, new Date(), targets.length === 1 ? 'run' : 'targets');
      const reports =
        targets.length === 1
          ? [await runOne(session, targets[0]!, options, runDir, json, ready)]
          : await runMany(session, targets, options, runDir, json, ready);
      code = session.exitCodeOf(reports);
    }
    if (code !== ExitCode.ok || !request.check) return code;
    let failed = false;
    for (const t of targets) {
      const results = await checkWorkload(options.workload, t.url, false);
      session.outputs.show({ kind: 'check', label: targets.length > 1 ? t.spec.label : undefined, results });
      failed ||= !results.every((r) => r.pass);
    }
    return failed ? ExitCode.checkFailed : ExitCode.ok;
  });
}

async function runOne(
  session: RunSession,
  target: Target,
  options: RunOptions,
  runDir: RunDirectory,
  json: string | undefined,
  ready: (() => Promise<void>) | undefined,
): Promise<RunReport> {
  // The listener puts the run's conditions into run.json as soon as it starts.
  const run = newRun(target, options, shardListener(session.listener('', runDir), ready));
  const report = await session
    .withInterrupt(
      () => [run],
      () => run.run(),
    )
    .catch(markCancelled(runDir));
  session.outputs.show({ kind: 'run', report });
  await session.saveResults(runDir, undefined, withoutHistograms(report), report.histograms);
  if (json !== undefined) await session.saveJson(json, withoutHistograms(report));
  return report;
}

/** Several targets driven at the same moment: each sets up, then all start their terminals together. */
async function runMany(
  session: RunSession,
  targets: readonly Target[],
  options: RunOptions,
  runDir: RunDirectory,
  json: string | undefined,
  ready: (() => Promise<void>) | undefined,
): Promise<RunReport[]> {
  const gate = startingGate(targets.length);
  // One process, one thread: its CPU is measured once for all targets, none charged to any one.
  const cpu = new SharedCpu();
  const runs = targets.map((t) => {
    const progress = shardListener(session.listener(`[${t.spec.label}] `, runDir), undefined);
    const cpuPhase = cpu.forTarget();
    return newRun(
      t,
      { ...options, otherTargetsInProcess: true },
      {
        ...progress,
        onPhase: (phase) => {
          cpuPhase(phase);
          progress.onPhase?.(phase);
        },
        ready: () => gate.arrive().then(ready),
      },
    );
  });
  const startedAt = new Date().toISOString();
  const settled = await session.withInterrupt(
    () => runs,
    () =>
      Promise.allSettled(
        runs.map((r) =>
          r.run().catch((err: unknown) => {
            // One target failed to set up: the others must not wait for it, nor run alone.
            gate.open();
            for (const other of runs) other.stop();
            throw err;
          }),
        ),
      ),
  );
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) return markCancelled(runDir)(failure.reason);
  const reports = settled.map((s) => (s as PromiseFulfilledResult<RunReport>).value);
  const summary = aggregate(reports, cpu.result());
  session.outputs.show({ kind: 'targets', reports, summary });
  const content = targetsContent(reports, summary, {
    schemaVersion: RUN_SCHEMA_VERSION,
    startedAt,
    endedAt: new Date().toISOString(),
    // A shard keeps each target's histograms for `txbench merge` (histograms.json holds one target’s only).
    keepHistograms: options.shard !== undefined,
  });
  await session.saveResults(runDir, json, content);
  return reports;
}

/** Resolves every arrival once all `n` have arrived (or at once, after `open`). */
function startingGate(n: number): { arrive(): Promise<void>; open(): void } {
  let arrived = 0;
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return {
    arrive: () => {
      if (++arrived >= n) release();
      return opened;
    },
    open: () => release(),
  };
}

/**
 * `txbench replay` on the run path: one replay of a captured workload onto one target, in a run
 * session as `txbench run` has it (its live progress, Ctrl-C, results, report.html and exit code);
 * the fidelity is the replay's own figure, added to the report.
 */
import { ExitCode } from '../errors.js';
import { RunDirectory } from '../results/run-dir.js';
import type { RunReport } from '../results/run-file.js';
import { withTargets } from '../run/open-targets.js';
import { newRun, RunSession, withoutHistograms, type SessionOutputs } from '../run/session.js';
import { markCancelled } from '../run/shard-start.js';
import type { RunOptions } from '../run/workload-run.js';
import type { TargetOptions } from '../targets/target.js';
import type { Fidelity } from '../report/fidelity.js';
import type { Replay } from './replay-workload.js';

export interface ReplayRequest {
  replay: Replay;
  /** The run's options: terminals and connections are the capture's sessions. */
  options: RunOptions;
  target: TargetOptions;
  resultsDir: string;
  json: string | undefined;
  /** The command line run.json records, if any. */
  commandLine?: string | undefined;
  /** Told once the target is open, before the first statement (the caller's start line). */
  starting(targetLabel: string): void;
}

export interface ReplayOutcome {
  code: number;
  report: RunReport & { fidelity: Fidelity };
}

/** Replays the capture; resolves to the exit code and the report with its fidelity. */
export async function runReplay(request: ReplayRequest, outputs: SessionOutputs): Promise<ReplayOutcome> {
  const { replay, options, resultsDir, json } = request;
  const session = new RunSession(outputs, request.commandLine);
  // A replay writes into the target as captured: nothing is loaded first (create: false).
  return withTargets([request.target], { create: false }, async ([target]) => {
    const runDir = await RunDirectory.create(resultsDir, new Date(), 'run');
    const progress = session.listener('', runDir);
    const run = newRun(target!, options, {
      ...progress,
      onStart: (config) => {
        request.starting(target!.spec.label);
        progress.onStart?.(config);
      },
    });
    const measured = await session
      .withInterrupt(
        () => [run],
        () => run.run(),
      )
      .catch(markCancelled(runDir));
    const report = replay.finish(measured);
    outputs.show({ kind: 'run', report });
    await session.saveResults(runDir, undefined, withoutHistograms(report), report.histograms);
    if (json !== undefined) await session.saveJson(json, withoutHistograms(report));
    const code = session.exitCodeOf([report]);
    return {
      code: code !== ExitCode.ok ? code : report.fidelity.pass ? ExitCode.ok : ExitCode.checkFailed,
      report,
    };
  });
}

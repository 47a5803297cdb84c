/**
 * What a workload file (`--workload ./my-workload.ts`) imports from `txbench`: `defineWorkload`,
 * the types of the Workload interface, and `openConnections`, the target's portable connection
 * slots. Below them, what the CLI calls (src/cli/ imports nothing else of the run path): one
 * function per command that measures (`runBenchmark`, `runSteps`, `runSweep`), each handed the
 * CLI's outputs, and what the CLI's flag parsing needs.
 */
import type { Connections } from './dialects/connections.js';
import { dialectFor } from './dialects/for-url.js';

export { defineWorkload } from './workloads/workload.js';
export type {
  CheckResult,
  HeadlineFigure,
  LoadContext,
  LoadTask,
  Measurement,
  OptionSpec,
  OptionValues,
  PreparedRun,
  RunSetup,
  TableRows,
  TransactionContext,
  TransactionProfile,
  TransactionSet,
  Workload,
  WorkloadLoader,
} from './workloads/workload.js';
export type { Connections, DialectName, Row, Session } from './dialects/connections.js';
export type { Db, Dialect } from './dialects/dialect.js';
export type { ColumnType, TableSpec } from './workloads/schema.js';
export type { Rng } from './random/rng.js';

/** `slots` connection slots on the database `url` names, for `PreparedRun.open`. */
export async function openConnections(url: string, slots: number): Promise<Connections> {
  return (await dialectFor(url)).openConnections(url, slots);
}

// What the CLI calls: the run path behind one function per command, and what parsing needs.
export { runBenchmark, type RunRequest } from './run/run-command.js';
export { runSteps, type StepsRequest } from './run/steps.js';
export { runSweep, type SweepRequest, type SweepSetting } from './run/sweep.js';
export type { SessionOutputs } from './run/session.js';
export type { SessionResult } from './run/session-result.js';
export type { RepeatFlags } from './run/repetitions.js';
export { refuseIfPast, START_GRACE_MS } from './run/shard-start.js';
export type { ShardOptions } from './run/shard.js';
export type { RunOptions, SteadyStateOptions } from './run/workload-run.js';
export type { RunReport } from './results/run-file.js';
export { withTarget, withTargets, type TargetFlags } from './run/open-targets.js';
export { checkResultsDir } from './results/run-dir.js';
export type { Target, TargetOptions } from './targets/target.js';
export { RunSession } from './run/session.js';
export { RunDirectory } from './results/run-dir.js';
export { withoutHistograms } from './run/session.js';

// What the other commands call.
export { captureLive, restoreLive } from './capture/live.js';
export { captureFromLogs } from './capture/postgres/from-logs.js';
export {
  DEFAULT_STEADY_MAX_MS,
  DEFAULT_STEADY_RULE,
  STEADY_FIGURES,
  type SteadyFigure,
  type SteadyStateRule,
} from './metrics/steady-state.js';
export { readRepeatFile } from './results/repeat-file.js';
export { collectRuns, listRuns, resolveRunDir, tagRun, untagRun } from './results/store.js';
export { readShardFile } from './run/merge-files.js';
export { mergeShardFiles } from './run/merge-shards.js';
export { checkWorkload } from './workloads/checks.js';
export { dropWorkload, loadWorkload } from './workloads/loader.js';
export { describeOptions, optionFlags, parseWorkloadOptions } from './workloads/options.js';
export { DEFAULT_WORKLOAD, findWorkload, BUILT_IN_WORKLOADS } from './workloads/registry.js';

// `txbench replay`: a captured workload, driven by the run path.
export { checkReplayable } from './replay/plan.js';
export { openReplay, type Replay, type ReplayOptions } from './replay/replay-workload.js';
export { runReplay, type ReplayRequest, type ReplayOutcome } from './replay/run-replay.js';

// `txbench plan`: the CLI reads, checks and runs a plan through these.
export { readPlanFile } from './plan/plan-file.js';
export { planSchemaCheck } from './plan/plan-schema.js';
export { estimatePlan, formatEstimate } from './plan/estimate.js';
export { defaultPlanDir, openPlanDir, runPlan } from './plan/run-plan.js';
export type { CommandTable as PlanCommandTable } from './plan/plan-types.js';

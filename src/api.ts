/**
 * What a workload file (`--workload ./my-workload.ts`) imports from `txbench`: `defineWorkload`,
 * the types of the Workload interface, and `openConnections`, the target's portable connection
 * slots. Nothing else of txbench is public: the CLI, run path and reports are not an API.
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

// `txbench plan`: the CLI reads, checks and runs a plan through these.
export { readPlanFile } from './plan/plan-file.js';
export { planSchemaCheck } from './plan/plan-schema.js';
export { estimatePlan, formatEstimate } from './plan/estimate.js';
export { defaultPlanDir, openPlanDir, runPlan } from './plan/run-plan.js';
export type { CommandTable as PlanCommandTable } from './plan/plan-types.js';

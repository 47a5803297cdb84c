/**
 * run.json's content for one run, assembled once the measurement is over: the main window's
 * summary, the preconditioning's figures, faults, the audit, the encoded histograms and, for a
 * shard, what `txbench merge` needs.
 */
import type { EngineResult } from '../engine/engine-result.js';
import type { Counters, TransactionSpec } from '../engine/types.js';
import { encodeHistogram } from '../metrics/histogram.js';
import { typeSummaries, type TypeSummary } from '../metrics/window-summary.js';
import { RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { toolVersion } from '../util/tool-version.js';
import type { FaultCounts } from '../workloads/fault-policy.js';
import type { AuditCheck, PreparedRun, Workload } from '../workloads/workload.js';
import type { RunEnvironment } from '../results/environment.js';
import { faultsReport } from './fault-policy.js';
import type { Measured } from './measure.js';
import { shardBasis } from './shard.js';
import type { PreconditionReport, RunConfig, RunReport } from '../results/run-file.js';
import type { RunOptions } from './run-options.js';

/** What a report says when the workload has no disclaimer of its own. */
export const GENERIC_DISCLAIMER =
  'Results of txbench; compare them only with runs of the same workload and options.';

/** Each type's summary over the window, with the workload's own figures for it. */
export function transactionSummaries(
  workload: Workload,
  result: EngineResult<Counters>,
  prepared: PreparedRun,
): Record<string, TypeSummary> {
  return typeSummaries(result, workload.profiles, (i, c) => prepared.typeSummary?.(i, c) ?? {});
}

/** The preconditioning phase's figures: kept in the report, not scored. */
export function preconditionReport(
  workload: Workload,
  measured: Measured,
  prepared: PreparedRun,
): PreconditionReport {
  const { steadyState, ...summary } = measured.summary;
  return {
    seconds: measured.summary.windowSeconds,
    summary,
    transactions: transactionSummaries(workload, measured.result, prepared),
    outages: measured.result.outages,
    ...(steadyState ? { steadyState } : {}),
  };
}

export interface ReportParts {
  workload: Workload;
  transactions: readonly TransactionSpec[];
  options: RunOptions;
  prepared: PreparedRun;
  config: RunConfig;
  environment: RunEnvironment;
  startedAt: Date;
  precondition: PreconditionReport | undefined;
  main: Measured;
  faults: FaultCounts;
  audit: { checks: AuditCheck[]; [detail: string]: unknown };
}

export function runReport(parts: ReportParts): RunReport {
  const { workload, prepared, config, precondition, audit } = parts;
  const { result, summary, intervals, measurement } = parts.main;
  const histograms: Record<string, string> = {};
  parts.transactions.forEach((t, i) => (histograms[t.key] = encodeHistogram(result.perType[i]!.histogram)));
  return {
    schemaVersion: RUN_SCHEMA_VERSION,
    kind: 'run',
    tool: { name: 'txbench', version: toolVersion() },
    workload: config.workload,
    disclaimer: workload.disclaimer ?? GENERIC_DISCLAIMER,
    status: result.status,
    failure: result.failure,
    startedAt: parts.startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    config,
    environment: parts.environment,
    ...(precondition ? { precondition } : {}),
    summary,
    drain: result.drain,
    windowEdges: result.edges,
    outages: result.outages,
    faults: faultsReport(parts.options, result, parts.faults),
    transactions: transactionSummaries(workload, result, prepared),
    audit: { ...audit, pass: audit.checks.every((c) => c.pass !== false) },
    errors: result.errorsByClass,
    intervals,
    histograms,
    ...(config.shard !== undefined
      ? {
          shardBasis: shardBasis(prepared, result.windowSeconds, result.counters, measurement.windowCounters),
        }
      : {}),
  };
}

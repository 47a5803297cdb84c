/**
 * `txbench merge` from the files read: one target's shards into one run, or several targets'
 * shards into one run per target and their sum, as `txbench run` with several --db writes it.
 */
import { UsageError } from '../errors.js';
import { findWorkload, isWorkloadPath } from '../workloads/registry.js';
import type { Workload } from '../workloads/workload.js';
import { aggregate } from './aggregate.js';
import type { AggregateSummary } from '../results/targets-file.js';
import type { ShardFile } from './merge-files.js';
import { mergeShardReports } from './merge-run.js';
import { checkShardSet, splitByTarget, type ShardSetCheck, type ShardRun } from './shard-merge.js';
import { targetsContent } from './targets-content.js';
import type { PartialFigures, RunReport } from '../results/run-file.js';

export type MergedShards = (
  | { kind: 'run'; report: RunReport; set: ShardSetCheck }
  | {
      kind: 'targets';
      reports: RunReport[];
      summary: AggregateSummary & { partial?: PartialFigures };
      /** run.json's content, as `txbench run` writes several targets. */
      content: Record<string, unknown>;
      set: ShardSetCheck;
    }
) & {
  /** What the merged figures lack (merged with --allow-partial), one line; undefined when nothing. */
  partial: string | undefined;
};

/** A user workload file may not be on this machine: its figures are then summed, unreconciled. */
async function workloadOf(ref: string): Promise<Workload | undefined> {
  return findWorkload(ref).catch((err: unknown) => {
    if (isWorkloadPath(ref)) return undefined;
    throw err;
  });
}

export async function mergeShardFiles(
  files: readonly ShardFile[],
  allowPartial: boolean,
): Promise<MergedShards> {
  const runs = files.flatMap((f) => (f.kind === 'run' ? [f.run] : []));
  const several = files.flatMap((f) => (f.kind === 'targets' ? [f] : []));
  if (runs.length > 0 && several.length > 0) {
    throw new UsageError(
      `${several[0]!.dir} drove several targets and ${runs[0]!.dir} one; merge shards of one run only`,
    );
  }
  if (several.length === 0) {
    const set = checkShardSet(runs, allowPartial);
    const workload = await workloadOf(set.shards[0]!.report.config.workload);
    const report = mergeShardReports(set, workload);
    return { kind: 'run', report, set, partial: report.summary.partial?.reason };
  }
  const perTarget = splitByTarget(several).map(({ label, runs: targetRuns }) => ({
    label,
    set: checkShardSet(
      targetRuns.map((r): ShardRun => ({ dir: `${r.dir} [${label}]`, report: r.report })),
      allowPartial,
    ),
  }));
  const workload = await workloadOf(perTarget[0]!.set.shards[0]!.report.config.workload);
  const reports = perTarget.map((t) => mergeShardReports(t.set, workload));
  const lacking = reports.flatMap((r) =>
    r.summary.partial === undefined ? [] : [{ target: r.config.target, ...r.summary.partial }],
  );
  // The sum lacks what any target lacks.
  const partial: PartialFigures | undefined =
    lacking.length === 0
      ? undefined
      : {
          reason: lacking.map((p) => `${p.target}: ${p.reason}`).join('; '),
          shards: [...new Set(lacking.flatMap((p) => p.shards))].sort((a, b) => a - b),
        };
  const summary = { ...aggregate(reports, null), ...(partial !== undefined ? { partial } : {}) };
  const set = perTarget[0]!.set;
  const content = targetsContent(reports, summary, {
    schemaVersion: reports[0]!.schemaVersion,
    startedAt: reports.map((r) => r.startedAt).sort()[0],
    endedAt: reports
      .map((r) => r.endedAt)
      .sort()
      .at(-1),
    keepHistograms: false,
  });
  return { kind: 'targets', reports, summary, content, set, partial: partial?.reason };
}

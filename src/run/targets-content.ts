/**
 * run.json's content for several targets driven at the same moment and added up (kind
 * `targets`): as `txbench run` with several --db writes it, and as `txbench merge` writes their
 * shards merged. One place, so the two never differ in how they read.
 */
import { mergeStatus } from '../engine/merge.js';
import type { RunReport } from '../results/run-file.js';
import type { AggregateSummary } from '../results/targets-file.js';
import { GENERIC_DISCLAIMER } from './run-report.js';

export interface TargetsRun {
  schemaVersion: number;
  startedAt: string | undefined;
  endedAt: string | undefined;
  /** Each target's report keeps its histograms (a shard's, for `txbench merge`). */
  keepHistograms: boolean;
}

export function targetsContent(
  reports: readonly RunReport[],
  summary: AggregateSummary,
  run: TargetsRun,
): Record<string, unknown> {
  return {
    schemaVersion: run.schemaVersion,
    kind: 'targets',
    // The gravest of the targets' endings, as merged worker threads and shards end.
    status: mergeStatus(reports.map((r) => r.status)),
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    workload: reports[0]?.workload,
    disclaimer: reports[0]?.disclaimer ?? GENERIC_DISCLAIMER,
    config: {
      target: reports.map((r) => r.config.target).join(' + '),
      targets: reports.map((r) => r.config),
    },
    summary,
    targets: reports.map((r) => {
      const { histograms, ...report } = r;
      return { label: r.config.target, summary: r.summary, report: run.keepHistograms ? r : report };
    }),
  };
}

/** run.json's summary of several targets driven at once (kind `targets`, and a merge of shards). */
import type { ClientCpu } from '../metrics/client-cpu.js';
import type { LatencyMs } from '../metrics/histogram.js';
import type { HeadlineFigure } from '../workloads/workload.js';

export interface AggregateSummary {
  targets: number;
  windowSeconds: number;
  transactions: number;
  tps: number;
  /** TPC-C's New-Orders per minute, summed (absent for other workloads). */
  tpmC?: number | undefined;
  nopm?: number | null | undefined;
  /** The servers' transactions per minute, each server's counter counted once. */
  tpm: number | null;
  /** Each headline figure (as the first target labels it) summed over the targets; null when any target lacks it. */
  figures: HeadlineFigure[];
  responseMs: LatencyMs;
  errors: number;
  spread: { minTps: number; maxTps: number; maxOverMin: number | null };
  /**
   * The txbench process's CPU while any target's window was open, once for all targets (they share
   * the process, so per-target figures are null); null when it was not measured.
   */
  clientCpu: ClientCpu | null;
}

/**
 * run.json's shape (schemaVersion in run-dir.ts, documented in schema/run.schema.json): the
 * contract between the run path that writes it and the reports that read it. Types only, so that
 * a reader never imports the runner.
 */
import type { DrainReport, RunStatus, WindowEdges } from '../engine/engine-result.js';
import type { Outage } from '../engine/outages.js';
import type { ServerCounterWindow } from '../metrics/server-counter.js';
import type { WindowNoise } from '../metrics/window-noise.js';
import type { TypeSummary, WindowSummary } from '../metrics/window-summary.js';
import type { ClientCpu } from '../metrics/client-cpu.js';
import type { SteadyStateReport } from '../metrics/steady-state.js';
import type { DatabaseFigures, DeviceWindowFigures, HostFigures } from '../monitor/types.js';
import type { FaultCounts } from '../workloads/fault-policy.js';
import type { AuditCheck, HeadlineFigure, OptionValues } from '../workloads/workload.js';
import type { RunEnvironment } from './environment.js';
import type { IntervalRecord } from './interval.js';
import type { ShardBasis, ShardConfig } from './shard-file.js';
import type { WorkerSliceReport } from './worker-slice.js';

/** What a run's summary holds: the generic figures, the workload's headline figures, and its own fields. */
export interface RunSummary extends Omit<WindowSummary, 'tpm'> {
  /** New-Orders per minute (TPC-C only; called tpmC only for paced runs with a standard mix). */
  tpmC?: number | undefined;
  /** Committed New-Orders per minute (TPC-C only); null when it could not be read. */
  nopm?: number | null | undefined;
  /**
   * Database transactions per minute from the server's counters, txbench's own side statements
   * left out; null when unavailable. Several targets on one counter: each sees the whole counter.
   */
  tpm: number | null;
  /** The counter behind `tpm`, so that targets sharing it are added once. */
  serverCounter?: ServerCounterWindow | undefined;
  ceilingTpmC?: number | null | undefined;
  efficiencyPct?: number | null | undefined;
  /** The workload's headline figures, labelled for what they are. */
  figures?: HeadlineFigure[] | undefined;
  devices?: DeviceWindowFigures[] | undefined;
  host?: HostFigures | null | undefined;
  database?: DatabaseFigures | null | undefined;
  monitor?:
    | {
        source: string;
        notes: string[];
        /** When the snapshots bounding the window's device and host figures were read (ISO 8601). */
        windowStartedAt?: string | undefined;
        windowEndedAt?: string | undefined;
      }
    | undefined;
  clientCpu: ClientCpu | null;
  /** 95% confidence intervals of the headline figures, from the window's intervals (window-noise.ts). */
  ci95?: WindowNoise | undefined;
  /** Wall-clock edges of the measured window (ISO 8601), for lining it up with other clocks (iostat, shards). */
  windowStartedAt?: string | undefined;
  windowEndedAt?: string | undefined;
  /** A merge of shards that lacks some (`txbench merge --allow-partial`): what and which. */
  partial?: PartialFigures | undefined;
  /** Whether and when the warm-up reached steady state (with --warmup auto). */
  steadyState?: SteadyStateReport | undefined;
}

/** Figures that rest on part of what was measured: the reports mark them so. */
export interface PartialFigures {
  /** One line: what the figures lack. */
  reason: string;
  /** The shards (1-based) missing, out of line or without readable histograms. */
  shards: number[];
}

/** The preconditioning phase's figures: kept in the report, not scored. */
export interface PreconditionReport {
  seconds: number;
  summary: RunSummary;
  transactions: Record<string, TypeSummary>;
  /** Outages while preconditioning (start times from the phase's start). */
  outages: Outage[];
  /** Whether and when preconditioning reached steady state (with --precondition auto). */
  steadyState?: SteadyStateReport | undefined;
}

export interface RunConfig {
  target: string;
  /** The workload's name (`tpcc`), or the file a user workload came from. */
  workload: string;
  /** The workload's options as run. */
  workloadOptions: OptionValues;
  /** What is loaded and driven, in a few words (`2 warehouses`). */
  scale: string;
  terminals: number;
  connections: number;
  /** Worker threads that drove the terminals (--workers). */
  workers: number;
  /**
   * Each worker's slice of the terminals, its connections and the transactions it completed in
   * the measured window (their sum is the run's); filled in when the run ends.
   */
  workerSlices?: WorkerSliceReport[] | undefined;
  thinkScale: number;
  /** The warm-up; with `warmupAuto`, its cap. */
  warmupS: number;
  /** The warm-up ended on steady state (--warmup auto): summary.steadyState says when. */
  warmupAuto?: boolean | undefined;
  durationS: number;
  rampS: number;
  intervalS: number;
  deck: number[];
  /** The deck gives some type less than the spec's minimum share (run with --allow-nonstandard-mix). */
  nonstandardMix: boolean;
  seed: number;
  database: { product: string; version: string };
  /** How the progress lines name the interval figures, by key. */
  intervalLabels?: Record<string, string> | undefined;
  /**
   * The transaction types' names by key (`newOrder` → `New-Order`): in run.json from the start,
   * so a report of a run still going (the live dashboard) names the types the intervals carry.
   */
  typeNames?: Record<string, string> | undefined;
  /** One shard of a run on several load machines (--shard): `terminals` and `connections` are its own. */
  shard?: ShardConfig | undefined;
  /** The workload's own settings (TPC-C: warehouses, loadedWarehouses, constants, mode). */
  [setting: string]: unknown;
}

export interface RunReport {
  schemaVersion: number;
  kind: 'run';
  tool: { name: 'txbench'; version: string };
  workload: string;
  disclaimer: string;
  status: RunStatus;
  failure?: string | undefined;
  startedAt: string;
  endedAt: string;
  config: RunConfig;
  environment: RunEnvironment;
  precondition?: PreconditionReport | undefined;
  summary: RunSummary;
  /** What was still queued or running when the measured window closed and never finished. */
  drain: DrainReport;
  /** What ended across the window's edges, counted apart from it (absent in a merge of shards). */
  windowEdges?: WindowEdges | undefined;
  /** Stretches when the database was lost or did not answer, from warm-up to the end of the drain. */
  outages: Outage[];
  /** How faults were handled (--on-error, --txn-timeout) and what was done about them. */
  faults: FaultsReport;
  transactions: Record<string, TypeSummary>;
  audit: { checks: AuditCheck[]; pass: boolean; [detail: string]: unknown };
  errors: Record<string, number>;
  intervals: IntervalRecord[];
  histograms: Record<string, string>;
  /** A shard's figures that `txbench merge` needs beyond its summary (with --shard). */
  shardBasis?: ShardBasis | undefined;
}

export interface FaultsReport extends FaultCounts {
  onError: 'continue' | 'stop';
  /** null: no timeout. */
  txnTimeoutS: number | null;
  /** Failed transactions in the measured window, and their share of all that finished there (%). */
  failed: number;
  errorRatePct: number;
  maxErrors?: number | undefined;
  maxErrorRatePct?: number | undefined;
  /** Which threshold the failures exceeded (the run then exits 1), or null. */
  exceeded: string | null;
}

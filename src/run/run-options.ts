/**
 * What a caller gives a run (WorkloadRun): its options, and the listener that hears it in
 * process (the starting gate, phases for CPU accounting) beside its outputs.
 */
import type { Phase } from '../engine/engine-result.js';
import type { SteadyStateReport, SteadyStateRule } from '../metrics/steady-state.js';
import type { Output } from '../results/run-events.js';
import type { OptionValues, Workload } from '../workloads/workload.js';
import type { MonitoringOptions } from './monitoring.js';
import type { ShardOptions } from './shard.js';
import type { IntervalRecord } from '../results/interval.js';
import type { RunConfig } from '../results/run-file.js';

/** Phases that end on steady state (--warmup auto, --precondition auto), and the rule. */
export interface SteadyStateOptions {
  /** The warm-up ends when steady; `warmupMs` is then its cap. */
  warmup?: boolean | undefined;
  /** Preconditioning ends when steady; `preconditionMs` is then its cap. */
  precondition?: boolean | undefined;
  /** Default: DEFAULT_STEADY_RULE (SNIA's: 5 intervals, range 20%, slope 10%, TPS and response time). */
  rule?: SteadyStateRule | undefined;
}

export interface RunOptions {
  /** The workload to run (registry.ts `findWorkload`). */
  workload: Workload;
  /** How the user named it (a name, or a workload file's path), for run.json; default its name. */
  workloadRef?: string | undefined;
  /** The workload's options, parsed (options.ts); defaults applied when omitted. */
  workloadOptions?: OptionValues | undefined;
  terminals?: number | undefined;
  connections?: number | undefined;
  thinkScale: number;
  warmupMs: number;
  durationMs: number;
  rampMs: number;
  intervalMs: number;
  /** Whole percentages per transaction type; default: the workload's weights. */
  mix?: number[] | undefined;
  /** Run a mix below the spec's minimums (refused otherwise); the run is marked non-standard. */
  allowNonstandardMix?: boolean | undefined;
  seed?: number | undefined;
  drainMs?: number | undefined;
  /** A phase before warm-up (the reviews precondition for hours) whose figures are kept, not scored. */
  preconditionMs?: number | undefined;
  /** End the warm-up and/or preconditioning on steady state instead of after a fixed time. */
  steadyState?: SteadyStateOptions | undefined;
  /** The embedded server's data directory, to describe the device under test. */
  dataDir?: string | undefined;
  /**
   * Other targets run in this process at the same time: the process's CPU is theirs as much as this
   * run's, so this run reports none (summary.clientCpu null) and the caller measures it once.
   */
  otherTargetsInProcess?: boolean | undefined;
  /** Watch the disks, host and database while running (off with --no-monitor). Default on. */
  monitor?: boolean | undefined;
  /** Where and what to watch: a node_exporter, a named disk. */
  monitoring?: Pick<MonitoringOptions, 'nodeExporter' | 'device'> | undefined;
  /**
   * Where the run's events go, with the listener's own (`RunListener.outputs`): the progress
   * printer, the intervals file, the live dashboard, the Prometheus endpoint. Each output gets
   * them through its own bounded queue (outputs.ts), so none can slow the run.
   */
  outputs?: readonly Output[] | undefined;
  /**
   * A lost connection: `continue` (default) replaces it with backoff and carries on, counting
   * the failures and the outage; `stop` ends the run (status failed, exit 3).
   */
  onError?: 'continue' | 'stop' | undefined;
  /** A transaction still running after this long is cancelled and fails as `timeout` (default 60 s). */
  txnTimeoutMs?: number | undefined;
  /** One attempt to open a replacement connection gives up after this long (default 10 s or the txn timeout). */
  connectTimeoutMs?: number | undefined;
  /** More failed transactions than this in the measured window fail the run (exit 1). */
  maxErrors?: number | undefined;
  /** A larger share of failed transactions (percent of all finished) fails the run (exit 1). */
  maxErrorRatePct?: number | undefined;
  /** Drive only this shard's slice of the terminals (--shard I/N); `terminals` is the whole run's. */
  shard?: ShardOptions | undefined;
  /**
   * Worker threads driving the terminals (--workers), each with its own scheduler and
   * connections; default: workers.ts `chooseWorkers`. 1 runs everything in this thread.
   */
  workers?: number | undefined;
}

export interface RunListener {
  /** This run's outputs (its progress lines, its files), beside the options' shared ones. */
  outputs?: readonly Output[] | undefined;
  onStart?(config: RunConfig): void;
  /** Awaited after set-up, right before the terminals start (several targets start together). */
  ready?(): Promise<void>;
  onPhase?(phase: Phase | 'precondition'): void;
  onInterval?(interval: IntervalRecord): void;
  /** The warm-up (or preconditioning) reached steady state and ends now. */
  onSteadyState?(report: SteadyStateReport, phase: 'warmup' | 'precondition'): void;
  /**
   * A one-line warning of a wrapper of this listener (a shard's clock check), for the caller to
   * show. The run's own warnings (a disk that cannot be watched, an output that failed) are
   * `warning` events to its outputs, not calls of this.
   */
  onWarning?(message: string): void;
}

/**
 * One measurement of any workload on one target: validates the options against what was loaded,
 * opens the connection slots through the generic executor, drives the engine through warm-up and
 * the measured window, takes the database-side counters at the window's edges, and assembles the
 * run report (run.json's content). The workload is reached only through its interface.
 */
import path from 'node:path';
import { dialectFor } from '../dialects/for-url.js';
import type { DrainReport, WindowEdges, IntervalTypeStats, Phase, RunStatus } from '../engine/engine.js';
import type { Outage } from '../engine/outages.js';
import { explainOutages } from './outage-cause.js';
import type { ErrorClass, TransactionSpec } from '../engine/types.js';
import { describeEnvironment, type RunEnvironment } from './environment.js';
import type { ShardBasis, ShardConfig } from './shard.js';
import { boundedDb } from '../dialects/bounded-db.js';
import { countingDb } from '../dialects/counting-db.js';
import { scopeKey, type ServerCounterWindow } from '../metrics/server-counter.js';
import { startTargetMonitor, type TargetMonitor } from './monitoring.js';
import type { MonitorInterval } from '../monitor/types.js';
import type { WindowNoise } from '../metrics/window-noise.js';
import type { TypeSummary, WindowSummary } from '../metrics/window-summary.js';
import type { ClientCpu } from '../metrics/client-cpu.js';
import type { SteadyStateReport } from '../metrics/steady-state.js';
import type { DatabaseFigures, DeviceWindowFigures, HostFigures } from '../monitor/types.js';
import type { FaultCounts } from '../workloads/executor.js';
import { checkDialect } from '../workloads/loader.js';
import type { RunDrive, RunEngine, WorkerSliceReport } from './drive.js';
import { refuseWorkers } from './workers.js';
import { requireLoaded } from '../workloads/presence.js';
import type { AuditCheck, HeadlineFigure, OptionValues, Workload } from '../workloads/workload.js';
import { sideQueryTimeoutMs } from './fault-policy.js';
import { openRunDrive } from './open-drive.js';
import { measureWindows, type MeasureContext, type MeasureRun } from './measure.js';
import { startOutputs, type RunOutputs } from './outputs.js';
import { resolveConfig } from './run-config.js';
import { GENERIC_DISCLAIMER, preconditionReport, runReport } from './run-report.js';
import type { RunListener, RunOptions, SteadyStateOptions } from './run-options.js';

export type { TypeSummary };

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

export interface IntervalRecord {
  atS: number;
  phase: Phase | 'precondition';
  seconds: number;
  tps: number;
  /** The workload's interval figures (TPC-C: `tpmC`, New-Orders per minute), by key. */
  [figure: string]: unknown;
  /** Each type's count, errors and response times (ms) over the interval, from its HDR histogram. */
  perType: Record<string, IntervalTypeStats>;
  /** All types together over the interval (ms), for the window's confidence intervals. */
  responseMs?: { avg: number; p99: number } | undefined;
  /** The interval's failed transactions by class, all types together. */
  errorsByClass: Record<ErrorClass, number>;
  /** What monitoring saw over the interval (absent with --no-monitor). */
  devices?: MonitorInterval['devices'] | undefined;
  host?: MonitorInterval['host'] | undefined;
  database?: MonitorInterval['database'] | undefined;
  missing?: MonitorInterval['missing'] | undefined;
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

export type { RunListener, RunOptions, SteadyStateOptions };
export { GENERIC_DISCLAIMER };

export class WorkloadRun {
  private engine: RunEngine | undefined;
  private stopRequested = false;
  private readonly workload: Workload;
  private readonly transactions: readonly TransactionSpec[];

  constructor(
    private readonly url: string,
    private readonly label: string,
    private readonly options: RunOptions,
    private readonly listener: RunListener = {},
  ) {
    this.workload = options.workload;
    this.transactions = this.workload.profiles.map((p) => ({
      key: p.key,
      name: p.name,
      keyingS: p.keyingS ?? 0,
      thinkMeanS: p.thinkMeanS ?? 0,
    }));
  }

  /** Ctrl-C: stop the terminals, let in-flight transactions finish, keep what was measured. */
  stop(): void {
    this.stopRequested = true;
    this.engine?.stop('interrupted', 'interrupted by the user');
  }

  async run(): Promise<RunReport> {
    const target = this.label;
    // An output that fails is told through the others (the progress printer among them).
    const subscribers = [...(this.options.outputs ?? []), ...(this.listener.outputs ?? [])];
    const outputs: RunOutputs = startOutputs(subscribers, (message) =>
      outputs.emit({ kind: 'warning', target, message }),
    );
    const warn = (message: string): void => outputs.emit({ kind: 'warning', target, message });
    try {
      const report = await this.measureAll(outputs, warn);
      outputs.emit({ kind: 'summary', target, report });
      return report;
    } finally {
      await outputs.stop();
    }
  }

  private async measureAll(outputs: RunOutputs, warn: (message: string) => void): Promise<RunReport> {
    const workload = this.workload;
    const dialect = await dialectFor(this.url);
    checkDialect(workload, dialect);
    refuseWorkers(this.options.workers, dialect.capabilities.concurrentWriters);
    // The side connection (counters, audit, monitoring) is bounded too: see bounded-db.ts.
    const sideSent = countingDb(await dialect.connect(this.url, { max: 1 }));
    const monitor = boundedDb(
      sideSent,
      sideQueryTimeoutMs(this.options),
      (err) => dialect.classify(err) === 'connection',
    );
    let drive: RunDrive | undefined;
    let watch: TargetMonitor | undefined;
    try {
      const workloadOptions = this.options.workloadOptions ?? {};
      const { record } = await requireLoaded(workload, dialect, monitor, workloadOptions);
      const seed = this.options.seed ?? Math.floor(Math.random() * 2 ** 31);
      const prepared = await workload.prepareRun({
        options: workloadOptions,
        record,
        dialect,
        db: monitor,
        url: this.url,
        seed,
      });
      const config = await resolveConfig(
        {
          label: this.label,
          workload,
          transactions: this.transactions,
          options: this.options,
          onWarning: warn,
        },
        dialect,
        monitor,
        prepared,
        workloadOptions,
        seed,
      );
      drive = await openRunDrive(
        { url: this.url, options: this.options, workload },
        config,
        record,
        workloadOptions,
        prepared,
      );
      this.listener.onStart?.(config);
      outputs.emit({ kind: 'start', target: this.label, config });
      const environment = await describeEnvironment(dialect, monitor, {
        url: this.url,
        localDataDir: this.options.dataDir,
      });
      if (this.options.monitor !== false) {
        watch = await startTargetMonitor(dialect, monitor, environment, {
          ...this.options.monitoring,
          localDataDir: this.options.dataDir,
        });
        for (const note of watch.description.notes) warn(note);
      }
      // Several targets start their terminals together: each waits here until all are ready.
      await this.listener.ready?.();
      const startedAt = new Date();
      await prepared.beforeRun?.(monitor);
      const counterScope = scopeKey(await dialect.transactionCounter?.scope(monitor).catch(() => undefined));
      const ctx: MeasureContext = {
        dialect,
        monitor,
        sideSent,
        counterScope,
        prepared,
        drive,
        config,
        watch,
      };
      const measuring: MeasureRun = {
        label: this.label,
        options: this.options,
        transactions: this.transactions,
        listener: this.listener,
        outputs,
        engineReady: (engine) => {
          this.engine = engine;
          if (this.stopRequested) engine.stop('interrupted', 'interrupted by the user');
        },
      };
      const measured = await measureWindows(measuring, ctx, () => this.stopRequested);
      const main = measured.main;
      const precondition =
        measured.precondition && preconditionReport(workload, measured.precondition, prepared);
      const { result, measurement } = main;
      const localData =
        this.options.dataDir ?? (environment.device.kind === 'local' ? environment.device.path : undefined);
      await explainOutages(
        result.outages,
        localData,
        this.options.dataDir === undefined ? undefined : path.join(this.options.dataDir, 'log'),
      );
      drive.addRunTallies(prepared);
      config.workerSlices = drive.slices(result.perType.reduce((a, t) => a + t.count, 0));
      const shard = config.shard !== undefined;
      const audit = (await prepared.audit?.(measurement, monitor, { shard })) ?? { checks: [] };
      if (monitor.timedOut > 0) {
        warn(
          `the side connection (counters, audit, monitoring) did not answer ${monitor.timedOut} queries within ${sideQueryTimeoutMs(this.options) / 1000} s; the figures they were for are n/a`,
        );
      }
      return runReport({
        workload,
        transactions: this.transactions,
        options: this.options,
        prepared,
        config,
        environment,
        startedAt,
        precondition,
        main,
        faults: drive.faults(),
        audit,
      });
    } finally {
      await watch?.monitor.stop().catch(() => undefined);
      await drive?.close().catch(() => undefined);
      await monitor.close().catch(() => undefined);
    }
  }
}

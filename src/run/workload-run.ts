/**
 * One measurement of any workload on one target: validates the options against what was loaded,
 * opens the connection slots through the generic executor, drives the engine through warm-up and
 * the measured window, takes the database-side counters at the window's edges, and assembles the
 * run report (run.json's content). The workload is reached only through its interface.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import { cpuUsage } from 'node:process';
import type { Db, Dialect } from '../dialects/dialect.js';
import { dialectFor } from '../dialects/for-url.js';
import { deckFromPercentages } from '../engine/deck.js';
import type { EngineResult, IntervalStats, Phase } from '../engine/engine.js';
import { explainOutages } from './outage-cause.js';
import type { Counters, TransactionSpec } from '../engine/types.js';
import { describeEnvironment } from './environment.js';
import { shardBasis, shardConfig, type ShardOptions } from './shard.js';
import { boundedDb } from '../dialects/bounded-db.js';
import { countingDb, type CountingDb } from '../dialects/counting-db.js';
import { counterWindow, scopeKey, type CounterReading } from '../metrics/server-counter.js';
import { startTargetMonitor, type MonitoringOptions, type TargetMonitor } from './monitoring.js';
import type { MonitorWindow } from '../monitor/types.js';
import { figureLabel } from '../results/figures.js';
import type { MetricsServer } from '../report/prometheus.js';
import { encodeHistogram, latencyMs, newHistogram, type Histogram } from '../metrics/histogram.js';
import { windowNoise } from '../metrics/window-noise.js';
import { typeSummaries, windowSummary, type TypeSummary } from '../metrics/window-summary.js';
import {
  DEFAULT_STEADY_RULE,
  type SteadyStateReport,
  type SteadyStateRule,
} from '../metrics/steady-state.js';
import { SteadyWatch } from './steady-watch.js';
import { checkMixMinimums } from '../config/mix.js';
import { deriveSeed } from '../random/rng.js';
import { RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import type { IntervalRecord } from '../results/interval.js';
import type {
  FaultsReport,
  PreconditionReport,
  RunConfig,
  RunReport,
  RunSummary,
} from '../results/run-file.js';
import { DEFAULT_FAULT_POLICY, type FaultCounts, type FaultPolicy } from '../workloads/executor.js';
import { checkDialect } from '../workloads/loader.js';
import { workloadRef } from '../workloads/registry.js';
import { openLocalDrive, openThreadedDrive, type RunDrive, type RunEngine } from './drive.js';
import { chooseWorkers, refuseWorkers } from './workers.js';
import { requireLoaded } from '../workloads/presence.js';
import type {
  Measurement,
  OptionValues,
  PreparedRun,
  Workload,
  WindowCounters,
} from '../workloads/workload.js';

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
  /** The live Prometheus endpoint, shared by every target of the process. */
  metricsServer?: MetricsServer | undefined;
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

interface MeasureContext {
  dialect: Dialect;
  monitor: Db;
  /** Counts the side connection's transactions, which TPM leaves out. */
  sideSent: CountingDb;
  /** What the server's transaction counter covers (hashed), read once before the run. */
  counterScope: string | null;
  prepared: PreparedRun;
  drive: RunDrive;
  config: RunConfig;
  /** What watches the disks, host and database; undefined with --no-monitor. */
  watch: TargetMonitor | undefined;
}

interface MeasurePhases {
  warmupMs: number;
  durationMs: number;
  rampMs: number;
  /** End the phase before scoring on steady state (see `measure`). */
  steady?: boolean | undefined;
}

interface Measured {
  result: EngineResult<Counters>;
  measurement: Measurement;
  summary: RunSummary;
  intervals: IntervalRecord[];
}

export interface RunListener {
  onStart?(config: RunConfig): void;
  /** Awaited after set-up, right before the terminals start (several targets start together). */
  ready?(): Promise<void>;
  onPhase?(phase: Phase | 'precondition'): void;
  onInterval?(interval: IntervalRecord): void;
  /** The warm-up (or preconditioning) reached steady state and ends now. */
  onSteadyState?(report: SteadyStateReport, phase: 'warmup' | 'precondition'): void;
  /** A one-line warning worth showing once (a disk that cannot be watched, an unreachable exporter). */
  onWarning?(message: string): void;
}

/** What a report says when the workload has no disclaimer of its own. */
export const GENERIC_DISCLAIMER =
  'Results of txbench; compare them only with runs of the same workload and options.';
const DEFAULT_MAX_CONNECTIONS = 100;

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
    const workload = this.workload;
    const dialect = await dialectFor(this.url);
    checkDialect(workload, dialect);
    refuseWorkers(this.options.workers, dialect.capabilities.concurrentWriters);
    // The side connection (counters, audit, monitoring) is bounded too: see bounded-db.ts.
    const sideSent = countingDb(await dialect.connect(this.url, { max: 1 }));
    const monitor = boundedDb(
      sideSent,
      this.sideQueryTimeoutMs(),
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
      const config = await this.resolveConfig(dialect, monitor, prepared, workloadOptions, seed);
      drive = await this.openDrive(prepared, config, record, workloadOptions);
      this.listener.onStart?.(config);
      const environment = await describeEnvironment(dialect, monitor, {
        url: this.url,
        localDataDir: this.options.dataDir,
      });
      if (this.options.monitor !== false) {
        watch = await startTargetMonitor(dialect, monitor, environment, {
          ...this.options.monitoring,
          localDataDir: this.options.dataDir,
        });
        for (const note of watch.description.notes) this.listener.onWarning?.(note);
      }
      this.options.metricsServer?.setTerminals(this.label, config.terminals);
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
      let precondition: PreconditionReport | undefined;
      let main: Measured;
      const preconditionMs = this.options.preconditionMs ?? 0;
      if (preconditionMs > 0) {
        const p = await this.measure(
          ctx,
          {
            warmupMs: 0,
            durationMs: preconditionMs,
            rampMs: this.options.rampMs,
            steady: this.options.steadyState?.precondition === true,
          },
          1,
        );
        const { steadyState, ...summary } = p.summary;
        precondition = {
          seconds: p.summary.windowSeconds,
          summary,
          transactions: this.typeSummaries(p.result, prepared),
          outages: p.result.outages,
          ...(steadyState ? { steadyState } : {}),
        };
        main =
          this.stopRequested || p.result.status !== 'completed'
            ? p
            : await this.measure(ctx, this.mainPhases(), 0);
      } else {
        main = await this.measure(ctx, this.mainPhases(), 0);
      }
      const { result, summary, intervals, measurement } = main;
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
        this.listener.onWarning?.(
          `the side connection (counters, audit, monitoring) did not answer ${monitor.timedOut} queries within ${this.sideQueryTimeoutMs() / 1000} s; the figures they were for are n/a`,
        );
      }
      const histograms: Record<string, string> = {};
      this.transactions.forEach(
        (t, i) => (histograms[t.key] = encodeHistogram(result.perType[i]!.histogram)),
      );
      return {
        schemaVersion: RUN_SCHEMA_VERSION,
        kind: 'run',
        tool: { name: 'txbench', version: toolVersion() },
        workload: config.workload,
        disclaimer: workload.disclaimer ?? GENERIC_DISCLAIMER,
        status: result.status,
        failure: result.failure,
        startedAt: startedAt.toISOString(),
        endedAt: new Date().toISOString(),
        config,
        environment,
        ...(precondition ? { precondition } : {}),
        summary,
        drain: result.drain,
        windowEdges: result.edges,
        outages: result.outages,
        faults: this.faultsReport(result, drive.faults()),
        transactions: this.typeSummaries(result, prepared),
        audit: { ...audit, pass: audit.checks.every((c) => c.pass !== false) },
        errors: result.errorsByClass,
        intervals,
        histograms,
        ...(shard
          ? {
              shardBasis: shardBasis(
                prepared,
                result.windowSeconds,
                result.counters,
                measurement.windowCounters,
              ),
            }
          : {}),
      };
    } finally {
      await watch?.monitor.stop().catch(() => undefined);
      await drive?.close().catch(() => undefined);
      await monitor.close().catch(() => undefined);
    }
  }

  /** This thread's executor (one worker), or worker threads that set up the same run for their slices. */
  private openDrive(
    prepared: PreparedRun,
    config: RunConfig,
    record: unknown,
    workloadOptions: OptionValues,
  ): Promise<RunDrive> {
    // A shard drives its slice of the run's terminals; otherwise this process drives them all.
    const total = config.shard?.totalTerminals ?? config.terminals;
    const slice = { first: config.shard?.firstTerminal ?? 0, count: config.terminals };
    if (config.workers <= 1)
      return openLocalDrive(prepared, this.url, slice, total, config.connections, this.faultPolicy());
    return openThreadedDrive(
      {
        url: this.url,
        workload: workloadRef(this.options.workloadRef ?? this.workload.name),
        workloadOptions,
        record,
        seed: config.seed,
        totalTerminals: total,
        faultPolicy: this.faultPolicy(),
      },
      config.workers,
      config.connections,
      slice,
    );
  }

  private faultsReport(result: EngineResult<Counters>, counts: FaultCounts): FaultsReport {
    const failed = Object.values(result.errorsByClass).reduce((a, b) => a + b, 0);
    const finished = failed + result.perType.reduce((a, t) => a + t.count, 0);
    const errorRatePct = finished > 0 ? Math.round((failed / finished) * 1e6) / 1e4 : 0;
    const { maxErrors, maxErrorRatePct } = this.options;
    const exceeded =
      maxErrors !== undefined && failed > maxErrors
        ? `${failed} failed transactions, more than --max-errors ${maxErrors}`
        : maxErrorRatePct !== undefined && errorRatePct > maxErrorRatePct
          ? `${errorRatePct}% of transactions failed, more than --max-error-rate ${maxErrorRatePct}%`
          : null;
    return {
      onError: this.options.onError ?? 'continue',
      txnTimeoutS: Number.isFinite(this.txnTimeoutMs()) ? this.txnTimeoutMs() / 1000 : null,
      ...counts,
      failed,
      errorRatePct,
      ...(maxErrors !== undefined ? { maxErrors } : {}),
      ...(maxErrorRatePct !== undefined ? { maxErrorRatePct } : {}),
      exceeded,
    };
  }

  /**
   * The side connection's bound: its audit counts read whole tables, so it is generous (4 times
   * the transaction timeout, at least 30 s); with no transaction timeout, 10 minutes.
   */
  private sideQueryTimeoutMs(): number {
    const txn = this.txnTimeoutMs();
    return Number.isFinite(txn) ? Math.max(30_000, 4 * txn) : 600_000;
  }

  private txnTimeoutMs(): number {
    return this.options.txnTimeoutMs ?? DEFAULT_FAULT_POLICY.txnTimeoutMs;
  }

  private faultPolicy(): Partial<FaultPolicy> {
    const txnTimeoutMs = this.txnTimeoutMs();
    return {
      reconnect: this.options.onError !== 'stop',
      txnTimeoutMs,
      connectTimeoutMs:
        this.options.connectTimeoutMs ?? Math.min(DEFAULT_FAULT_POLICY.connectTimeoutMs, txnTimeoutMs),
    };
  }

  private typeSummaries(result: EngineResult<Counters>, prepared: PreparedRun): Record<string, TypeSummary> {
    return typeSummaries(result, this.workload.profiles, (i, c) => prepared.typeSummary?.(i, c) ?? {});
  }

  private mainPhases(): MeasurePhases {
    const { warmupMs, durationMs, rampMs } = this.options;
    return { warmupMs, durationMs, rampMs, steady: this.options.steadyState?.warmup === true };
  }

  /**
   * One engine run: warm-up, then a measured window, with the database's counters at its edges.
   * With `steady`, the phase before the window's scoring (the warm-up; when preconditioning, the
   * window itself) ends at the first interval that makes it steady, or at its length (the cap).
   */
  private async measure(ctx: MeasureContext, phases: MeasurePhases, round: number): Promise<Measured> {
    const { dialect, monitor, prepared, drive, config, watch, sideSent, counterScope } = ctx;
    const engine = drive.engine(
      {
        transactions: this.transactions,
        deck: config.deck,
        thinkScale: config.thinkScale,
        warmupMs: phases.warmupMs,
        durationMs: phases.durationMs,
        rampMs: phases.rampMs,
        intervalMs: this.options.intervalMs,
        drainMs: this.options.drainMs ?? 30_000,
        seed: deriveSeed(config.seed, round),
        stopOnLostConnection: this.options.onError === 'stop',
      },
      () => prepared.newCounters(),
    );
    const label = round === 1 ? 'precondition' : undefined;
    // Preconditioning is this engine's window (warm-up 0): there the window is what settles.
    const watchedPhase: Phase = label ? 'measure' : 'warmup';
    const steady = phases.steady
      ? new SteadyWatch(
          this.options.steadyState?.rule ?? DEFAULT_STEADY_RULE,
          label ? phases.durationMs : phases.warmupMs,
          this.options.intervalMs,
        )
      : undefined;
    const intervals: IntervalRecord[] = [];
    const readCounters = (): Promise<WindowCounters | undefined> =>
      prepared.windowCounters?.(monitor).catch(() => undefined) ?? Promise.resolve(undefined);
    let countersStart: Promise<WindowCounters | undefined> = Promise.resolve(undefined);
    let serverTxStart: Promise<CounterReading | undefined> = Promise.resolve(undefined);
    let countersEnd: Promise<WindowCounters | undefined> = Promise.resolve(undefined);
    let serverTxEnd: Promise<CounterReading | undefined> = Promise.resolve(undefined);
    // The side connection runs its statements in the order sent: those sent before a reading are
    // in it, the reading's own and later ones are not.
    const eachStatement = dialect.transactionCounter?.countsEachStatement ?? false;
    const readServerTx = (): Promise<CounterReading | undefined> => {
      const sent = sideSent.sent(eachStatement);
      return dialect
        .serverTransactions(monitor)
        .then((count) => (count === undefined ? undefined : { count, sent }));
    };
    // Process-wide CPU: charged to this run only when no other target shares the process.
    const ownCpu = this.options.otherTargetsInProcess !== true;
    let cpuStart = cpuUsage();
    let cpuEnd = cpuStart;
    let watched: Promise<MonitorWindow | undefined> = Promise.resolve(undefined);
    let windowStartedAt: Date | undefined;
    let windowEndedAt: Date | undefined;
    // Intervals reach the listener in order, each once its monitoring figures are in.
    let delivered: Promise<void> = Promise.resolve();
    engine.on('phase', (phase) => {
      if (phase === 'measure') {
        windowStartedAt = new Date();
        if (watch) void watch.monitor.openWindow().catch(() => undefined);
        cpuStart = cpuUsage();
        countersStart = readCounters();
        serverTxStart = readServerTx();
      } else if (phase === 'drain') {
        if (windowStartedAt !== undefined) windowEndedAt ??= new Date();
        cpuEnd = cpuUsage(cpuStart);
        if (watch) watched = watch.monitor.closeWindow().catch(() => undefined);
        countersEnd = readCounters();
        serverTxEnd = readServerTx();
      }
      // Behind the intervals still waiting for their monitoring figures, so that a listener sees
      // the window's last interval before the drain begins.
      const shown = phase === 'measure' && label ? 'precondition' : phase;
      delivered = delivered.then(() => this.listener.onPhase?.(shown));
    });
    engine.on('interval', (stats) => {
      if (steady !== undefined && stats.phase === watchedPhase && steady.add(stats)) {
        // After this event is delivered: the engine cuts an interval as the phase ends.
        queueMicrotask(() => (label ? engine.endWindow() : engine.beginWindow()));
        this.listener.onSteadyState?.(steady.report(), label ?? 'warmup');
      }
      const record = this.intervalRecord(stats, prepared, label);
      if (stats.phase === 'measure') intervals.push(record);
      this.options.metricsServer?.recordInterval(this.label, this.perTypeOf(stats));
      const sampled = watch?.monitor.interval();
      delivered = delivered.then(async () => {
        if (sampled) {
          const figures = await sampled.catch((err: unknown) => ({
            devices: [],
            host: null,
            database: null,
            missing: [`monitoring: ${err instanceof Error ? err.message : String(err)}`],
          }));
          Object.assign(record, figures);
          this.options.metricsServer?.recordMonitor(this.label, figures);
        }
        this.listener.onInterval?.(record);
      });
    });
    this.engine = engine;
    if (this.stopRequested) engine.stop('interrupted', 'interrupted by the user');
    const result = await engine.run();
    const [c0, c1, tx0, tx1, window] = await Promise.all([
      countersStart,
      countersEnd,
      serverTxStart,
      serverTxEnd,
      watched,
    ]);
    await delivered;
    const measurement: Measurement = {
      windowSeconds: result.windowSeconds,
      counts: result.perType.map((t) => t.count),
      errors: result.perType.map((t) => t.errors),
      counters: result.counters,
      terminals: config.terminals,
      deck: config.deck,
      thinkScale: config.thinkScale,
      windowCounters: c0 !== undefined && c1 !== undefined ? { start: c0, end: c1 } : undefined,
    };
    const serverCounter =
      tx0 !== undefined && tx1 !== undefined
        ? counterWindow(counterScope, tx0, tx1, result.windowSeconds)
        : undefined;
    const generic = windowSummary(
      result,
      // The counter's advance less the side transactions this target sent in the window.
      serverCounter !== undefined
        ? { start: 0, end: serverCounter.transactions - serverCounter.ownTransactions }
        : undefined,
      !ownCpu
        ? null
        : result.measured
          ? { userUs: cpuEnd.user, systemUs: cpuEnd.system }
          : { userUs: 0, systemUs: 0 },
    );
    const { tpm, ...rest } = generic;
    const figures = prepared.figures(measurement);
    const summary: RunSummary = {
      ...rest,
      ...prepared.summary?.(measurement),
      tpm,
      ...(serverCounter !== undefined ? { serverCounter } : {}),
      figures: figures.map((f) => (f.pacedSpec === true ? { ...f, shownAs: figureLabel(f, config) } : f)),
      ...(windowStartedAt !== undefined && windowEndedAt !== undefined
        ? { windowStartedAt: windowStartedAt.toISOString(), windowEndedAt: windowEndedAt.toISOString() }
        : {}),
      ...(steady ? { steadyState: steady.report() } : {}),
    };
    if (watch) {
      summary.devices = window?.devices ?? [];
      summary.host = window?.host ?? null;
      summary.database = window?.database ?? null;
      summary.monitor = {
        source: watch.description.source,
        // The sampler repeats the set-up notes in every window's missing list: each line once.
        notes: [...new Set([...watch.description.notes, ...(window?.missing ?? [])])],
        ...(window?.startedAt !== undefined && window.endedAt !== undefined
          ? { windowStartedAt: window.startedAt, windowEndedAt: window.endedAt }
          : {}),
      };
    }
    // After the monitoring figures are in (`delivered`): the device latencies are among them.
    summary.ci95 = windowNoise(
      intervals,
      figures.map((f) => f.key),
    );
    return { result, measurement, summary, intervals };
  }

  private async resolveConfig(
    dialect: Dialect,
    monitor: Db,
    prepared: PreparedRun,
    workloadOptions: OptionValues,
    seed: number,
  ): Promise<RunConfig> {
    const profiles = this.workload.profiles;
    const terminals = this.options.terminals ?? prepared.defaultTerminals ?? 1;
    const maxConnections = dialect.capabilities.concurrentWriters ? DEFAULT_MAX_CONNECTIONS : 1;
    const allConnections = Math.min(terminals, this.options.connections ?? maxConnections);
    const shard = this.options.shard
      ? await shardConfig(this.options.shard, { terminals, connections: allConnections }, dialect, monitor)
      : undefined;
    const driven = shard?.config.terminals ?? terminals;
    // Workers split what this process drives: the whole run, or this shard's slice of it.
    const choice = chooseWorkers(this.options.workers, driven, dialect.capabilities.concurrentWriters);
    if (choice.warning !== undefined) this.listener.onWarning?.(choice.warning);
    const deck = this.options.mix ? deckFromPercentages(this.options.mix) : profiles.map((p) => p.weight);
    // The CLI refuses such a mix up front; this guards callers of the API as well.
    const nonstandardMix = checkMixMinimums(
      this.options.mix ?? deck,
      { minimums: profiles.map((p) => p.minimumSharePct ?? 0), names: profiles.map((p) => p.name) },
      this.options.allowNonstandardMix === true,
    );
    const labels =
      prepared.intervalFigures?.(
        profiles.map(() => 0),
        1,
      ) ?? [];
    return {
      target: this.label,
      workload: this.options.workloadRef ?? this.workload.name,
      workloadOptions,
      scale: prepared.scale,
      ...prepared.config,
      terminals: driven,
      connections: shard?.connections ?? allConnections,
      workers: choice.workers,
      thinkScale: this.options.thinkScale,
      warmupS: this.options.warmupMs / 1000,
      ...(this.options.steadyState?.warmup === true ? { warmupAuto: true } : {}),
      durationS: this.options.durationMs / 1000,
      rampS: this.options.rampMs / 1000,
      intervalS: this.options.intervalMs / 1000,
      deck,
      nonstandardMix,
      seed,
      ...(labels.length > 0
        ? { intervalLabels: Object.fromEntries(labels.map((f) => [f.key, f.label])) }
        : {}),
      typeNames: Object.fromEntries(this.transactions.map((t) => [t.key, t.name])),
      database: await dialect.serverInfo(monitor),
      ...(shard ? { shard: shard.config } : {}),
    };
  }

  private intervalRecord(
    stats: IntervalStats,
    prepared: PreparedRun,
    label?: 'precondition',
  ): IntervalRecord {
    const perType: IntervalRecord['perType'] = {};
    let count = 0;
    this.transactions.forEach((t, i) => {
      const s = stats.perType[i]!;
      perType[t.key] = {
        count: s.count,
        errors: s.errors,
        avgMs: s.avgMs,
        p50Ms: s.p50Ms,
        p90Ms: s.p90Ms,
        p95Ms: s.p95Ms,
        p99Ms: s.p99Ms,
      };
      count += s.count;
    });
    const figures: Record<string, number> = {};
    for (const f of prepared.intervalFigures?.(
      stats.perType.map((s) => s.count),
      stats.seconds,
    ) ?? [])
      figures[f.key] = f.value;
    return {
      atS: Math.round(stats.atS * 1000) / 1000,
      phase: label && stats.phase === 'measure' ? label : stats.phase,
      seconds: Math.round(stats.seconds * 1000) / 1000,
      tps: Math.round((count / stats.seconds) * 100) / 100,
      ...figures,
      perType,
      responseMs: overallLatency(stats.histograms),
      errorsByClass: stats.errorsByClass,
    };
  }

  /** The interval's counts and response-time histograms by transaction key, for the metrics endpoint. */
  private perTypeOf(
    stats: IntervalStats,
  ): Record<string, { count: number; errors: number; histogram: Histogram }> {
    const out: Record<string, { count: number; errors: number; histogram: Histogram }> = {};
    this.transactions.forEach((t, i) => {
      const s = stats.perType[i]!;
      out[t.key] = { count: s.count, errors: s.errors, histogram: stats.histograms[i]! };
    });
    return out;
  }
}

/** All types' average and p99 over an interval, from their histograms merged. */
function overallLatency(histograms: readonly Histogram[]): { avg: number; p99: number } {
  const all = newHistogram();
  for (const h of histograms) all.add(h);
  const { avg, p99 } = latencyMs(all);
  return { avg, p99 };
}

function toolVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

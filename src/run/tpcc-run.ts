/**
 * One TPC-C measurement on a PostgreSQL target: validates the options against what was loaded,
 * opens the connection slots, drives the engine through warm-up and the measured window, takes the
 * database-side counters at the window's edges, and assembles the run report (run.json's content).
 */
import { createRequire } from 'node:module';
import { cpuUsage } from 'node:process';
import type { Db } from '../dialects/dialect.js';
import { deckFromPercentages } from '../engine/deck.js';
import {
  Engine,
  type DrainReport,
  type EngineResult,
  type IntervalStats,
  type Phase,
  type RunStatus,
} from '../engine/engine.js';
import { describeEnvironment, type RunEnvironment } from './environment.js';
import { startTargetMonitor, type MonitoringOptions, type TargetMonitor } from './monitoring.js';
import type { MonitorInterval, MonitorWindow } from '../monitor/types.js';
import type { MetricsServer } from '../report/prometheus.js';
import { encodeHistogram, type Histogram } from '../metrics/histogram.js';
import { UsageError } from '../errors.js';
import { tpccDialectFor } from '../workloads/tpcc/tpcc-dialect.js';
import type { TpccDialect, TpccExecutor } from '../workloads/tpcc/tpcc-types.js';
import { schemaState } from '../workloads/tpcc/meta.js';
import { checkMixMinimums } from '../config/mix.js';
import {
  MIX_MINIMUMS,
  newTpccCounters,
  TPCC_DECK,
  TPCC_TRANSACTIONS,
  type TpccCounters,
} from '../workloads/tpcc/profile.js';
import { deriveSeed, Rng } from '../random/rng.js';
import { runConstants, type NurandConstants } from '../workloads/tpcc/random.js';
import {
  auditChecks,
  summarize,
  summarizeTypes,
  type AuditCheck,
  type RunSummary,
  type TypeSummary,
} from '../workloads/tpcc/summary.js';
import { RUN_SCHEMA_VERSION } from '../results/run-dir.js';

export interface RunOptions {
  warehouses?: number | undefined;
  terminals?: number | undefined;
  connections?: number | undefined;
  thinkScale: number;
  warmupMs: number;
  durationMs: number;
  rampMs: number;
  intervalMs: number;
  /** Whole percentages per type; default: the spec's 23-card deck. */
  mix?: number[] | undefined;
  /** Run a mix below the spec's minimums (refused otherwise); the run is marked non-standard. */
  allowNonstandardMix?: boolean | undefined;
  seed?: number | undefined;
  drainMs?: number | undefined;
  /** Server-side procedures (one round trip per transaction) instead of client-side SQL. */
  procedures?: boolean | undefined;
  /** A phase before warm-up (the reviews precondition for hours) whose figures are kept, not scored. */
  preconditionMs?: number | undefined;
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
}

interface MeasureContext {
  tpcc: TpccDialect;
  monitor: Db;
  executor: TpccExecutor;
  config: RunConfig;
  /** What watches the disks, host and database; undefined with --no-monitor. */
  watch: TargetMonitor | undefined;
}

interface Measured {
  result: EngineResult<TpccCounters>;
  summary: RunSummary;
  intervals: IntervalRecord[];
}

/** The preconditioning phase's figures: kept in the report, not scored. */
export interface PreconditionReport {
  seconds: number;
  summary: RunSummary;
  transactions: Record<string, TypeSummary>;
}

export interface IntervalRecord {
  atS: number;
  phase: Phase | 'precondition';
  seconds: number;
  tps: number;
  tpmC: number;
  perType: Record<string, { count: number; errors: number; avgMs: number; p90Ms: number }>;
  /** What monitoring saw over the interval (absent with --no-monitor). */
  devices?: MonitorInterval['devices'] | undefined;
  host?: MonitorInterval['host'] | undefined;
  database?: MonitorInterval['database'] | undefined;
  missing?: MonitorInterval['missing'] | undefined;
}

export interface RunConfig {
  target: string;
  warehouses: number;
  loadedWarehouses: number;
  terminals: number;
  connections: number;
  thinkScale: number;
  warmupS: number;
  durationS: number;
  rampS: number;
  intervalS: number;
  deck: number[];
  /** The deck gives some type less than the spec's minimum share (run with --allow-nonstandard-mix). */
  nonstandardMix: boolean;
  seed: number;
  constants: { load: NurandConstants; run: NurandConstants };
  mode: 'client-sql' | 'procedures';
  database: { product: string; version: string };
}

export interface RunReport {
  schemaVersion: number;
  kind: 'run';
  tool: { name: 'txbench'; version: string };
  workload: 'tpcc';
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
  transactions: Record<string, TypeSummary>;
  audit: {
    counters: TpccCounters;
    checks: AuditCheck[];
    pass: boolean;
    /** Whole run (warm-up and drain included): New-Orders txbench saw commit against orders the database gained. */
    wholeRun: { newOrdersCommitted: number; ordersAddedInDatabase: number | null; match: boolean | null };
  };
  errors: Record<string, number>;
  intervals: IntervalRecord[];
  histograms: Record<string, string>;
}

export interface RunListener {
  onStart?(config: RunConfig): void;
  /** Awaited after set-up, right before the terminals start (several targets start together). */
  ready?(): Promise<void>;
  onPhase?(phase: Phase | 'precondition'): void;
  onInterval?(interval: IntervalRecord): void;
  /** A one-line warning worth showing once (a disk that cannot be watched, an unreachable exporter). */
  onWarning?(message: string): void;
}

export const DISCLAIMER =
  'Workload derived from TPC-C; not a TPC-C implementation and not comparable with published TPC-C results.';
const DEFAULT_MAX_CONNECTIONS = 100;

export class TpccRun {
  private engine: Engine<TpccCounters> | undefined;
  private stopRequested = false;

  constructor(
    private readonly url: string,
    private readonly label: string,
    private readonly options: RunOptions,
    private readonly listener: RunListener = {},
  ) {}

  /** Ctrl-C: stop the terminals, let in-flight transactions finish, keep what was measured. */
  stop(): void {
    this.stopRequested = true;
    this.engine?.stop('interrupted', 'interrupted by the user');
  }

  async run(): Promise<RunReport> {
    const tpcc = await tpccDialectFor(this.url);
    const monitor = await tpcc.dialect.connect(this.url, { max: 1 });
    let executor: TpccExecutor | undefined;
    let watch: TargetMonitor | undefined;
    try {
      const config = await this.resolveConfig(tpcc, monitor);
      executor = await tpcc.openExecutor(
        this.url,
        config.connections,
        { warehouses: config.warehouses, constants: config.constants.run },
        { procedures: config.mode === 'procedures' },
      );
      this.listener.onStart?.(config);
      const environment = await describeEnvironment(tpcc.dialect, monitor, {
        url: this.url,
        localDataDir: this.options.dataDir,
      });
      if (this.options.monitor !== false) {
        watch = await startTargetMonitor(tpcc.dialect, monitor, environment, {
          ...this.options.monitoring,
          localDataDir: this.options.dataDir,
        });
        for (const note of watch.description.notes) this.listener.onWarning?.(note);
      }
      this.options.metricsServer?.setTerminals(this.label, config.terminals);
      // Several targets start their terminals together: each waits here until all are ready.
      await this.listener.ready?.();
      const startedAt = new Date();
      const idsBefore = await sumNextOrderIds(monitor, config.loadedWarehouses);
      const ctx: MeasureContext = { tpcc, monitor, executor, config, watch };
      let precondition: PreconditionReport | undefined;
      let main: Measured;
      const preconditionMs = this.options.preconditionMs ?? 0;
      if (preconditionMs > 0) {
        const p = await this.measure(
          ctx,
          { warmupMs: 0, durationMs: preconditionMs, rampMs: this.options.rampMs },
          1,
        );
        precondition = {
          seconds: p.summary.windowSeconds,
          summary: p.summary,
          transactions: summarizeTypes(p.result),
        };
        main =
          this.stopRequested || p.result.status !== 'completed'
            ? p
            : await this.measure(ctx, this.options, 0);
      } else {
        main = await this.measure(ctx, this.options, 0);
      }
      const { result, summary, intervals } = main;
      const idsAfter = await sumNextOrderIds(monitor, config.loadedWarehouses);
      const ordersAdded = idsBefore !== undefined && idsAfter !== undefined ? idsAfter - idsBefore : null;
      const checks = auditChecks(result, config.warehouses);
      const histograms: Record<string, string> = {};
      TPCC_TRANSACTIONS.forEach(
        (t, i) => (histograms[t.key] = encodeHistogram(result.perType[i]!.histogram)),
      );
      return {
        schemaVersion: RUN_SCHEMA_VERSION,
        kind: 'run',
        tool: { name: 'txbench', version: toolVersion() },
        workload: 'tpcc',
        disclaimer: DISCLAIMER,
        status: result.status,
        failure: result.failure,
        startedAt: startedAt.toISOString(),
        endedAt: new Date().toISOString(),
        config,
        environment,
        ...(precondition ? { precondition } : {}),
        summary,
        drain: result.drain,
        transactions: summarizeTypes(result),
        audit: {
          counters: result.counters,
          checks,
          pass: checks.every((c) => c.pass !== false),
          wholeRun: {
            newOrdersCommitted: executor.committedNewOrders,
            ordersAddedInDatabase: ordersAdded,
            match: ordersAdded === null ? null : ordersAdded === executor.committedNewOrders,
          },
        },
        errors: result.errorsByClass,
        intervals,
        histograms,
      };
    } finally {
      await watch?.monitor.stop().catch(() => undefined);
      await executor?.close().catch(() => undefined);
      await monitor.close().catch(() => undefined);
    }
  }

  /** One engine run: warm-up, then a measured window, with the database's counters at its edges. */
  private async measure(
    ctx: MeasureContext,
    phases: { warmupMs: number; durationMs: number; rampMs: number },
    round: number,
  ): Promise<Measured> {
    const { tpcc, monitor, executor, config, watch } = ctx;
    const engine = new Engine<TpccCounters>(
      {
        terminals: config.terminals,
        transactions: TPCC_TRANSACTIONS,
        deck: config.deck,
        thinkScale: config.thinkScale,
        warmupMs: phases.warmupMs,
        durationMs: phases.durationMs,
        rampMs: phases.rampMs,
        intervalMs: this.options.intervalMs,
        drainMs: this.options.drainMs ?? 30_000,
        seed: deriveSeed(config.seed, round),
        home: (i) => ({ w: (i % config.warehouses) + 1, d: (Math.floor(i / config.warehouses) % 10) + 1 }),
      },
      executor,
      newTpccCounters,
    );
    const label = round === 1 ? 'precondition' : undefined;
    const intervals: IntervalRecord[] = [];
    let nextIdsStart: Promise<number | undefined> = Promise.resolve(undefined);
    let serverTxStart: Promise<number | undefined> = Promise.resolve(undefined);
    let nextIdsEnd: Promise<number | undefined> = Promise.resolve(undefined);
    let serverTxEnd: Promise<number | undefined> = Promise.resolve(undefined);
    // Process-wide CPU: charged to this run only when no other target shares the process.
    const ownCpu = this.options.otherTargetsInProcess !== true;
    let cpuStart = cpuUsage();
    let cpuEnd = cpuStart;
    let watched: Promise<MonitorWindow | undefined> = Promise.resolve(undefined);
    // Intervals reach the listener in order, each once its monitoring figures are in.
    let delivered: Promise<void> = Promise.resolve();
    engine.on('phase', (phase) => {
      if (phase === 'measure') {
        if (watch) void watch.monitor.openWindow().catch(() => undefined);
        cpuStart = cpuUsage();
        nextIdsStart = sumNextOrderIds(monitor, config.warehouses);
        serverTxStart = tpcc.dialect.serverTransactions(monitor);
      } else if (phase === 'drain') {
        cpuEnd = cpuUsage(cpuStart);
        if (watch) watched = watch.monitor.closeWindow().catch(() => undefined);
        nextIdsEnd = sumNextOrderIds(monitor, config.warehouses);
        serverTxEnd = tpcc.dialect.serverTransactions(monitor);
      }
      this.listener.onPhase?.(phase === 'measure' && label ? 'precondition' : phase);
    });
    engine.on('interval', (stats) => {
      const record = intervalRecord(stats, label);
      if (stats.phase === 'measure') intervals.push(record);
      this.options.metricsServer?.recordInterval(this.label, perTypeOf(stats));
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
    const [ids0, ids1, tx0, tx1, window] = await Promise.all([
      nextIdsStart,
      nextIdsEnd,
      serverTxStart,
      serverTxEnd,
      watched,
    ]);
    await delivered;
    const summary = summarize({
      engine: result,
      warehouses: config.warehouses,
      terminals: config.terminals,
      deck: config.deck,
      thinkScale: config.thinkScale,
      nextOrderIds: ids0 !== undefined && ids1 !== undefined ? { start: ids0, end: ids1 } : undefined,
      serverTransactions: tx0 !== undefined && tx1 !== undefined ? { start: tx0, end: tx1 } : undefined,
      cpu: !ownCpu
        ? null
        : result.measured
          ? { userUs: cpuEnd.user, systemUs: cpuEnd.system }
          : { userUs: 0, systemUs: 0 },
    });
    if (watch) {
      summary.devices = window?.devices ?? [];
      summary.host = window?.host ?? null;
      summary.database = window?.database ?? null;
      summary.monitor = {
        source: watch.description.source,
        // The sampler repeats the set-up notes in every window's missing list: each line once.
        notes: [...new Set([...watch.description.notes, ...(window?.missing ?? [])])],
      };
    }
    return { result, summary, intervals };
  }

  private async resolveConfig(tpcc: TpccDialect, monitor: Db): Promise<RunConfig> {
    if (this.options.procedures && !tpcc.dialect.capabilities.procedures) {
      throw new UsageError(`--procedures is not available for ${tpcc.dialect.name}; run without it`);
    }
    const state = await schemaState(tpcc.dialect, monitor);
    if (state.kind === 'empty')
      throw new UsageError('nothing is loaded here; run `txbench load --warehouses N` first');
    if (state.kind === 'interrupted') {
      throw new UsageError(
        'the last load was interrupted; run `txbench load --replace --warehouses N` first',
      );
    }
    if (state.kind === 'foreign') {
      throw new UsageError('these TPC-C tables were not loaded by txbench; load them with `txbench load`');
    }
    if (state.kind === 'corrupt') throw new UsageError(state.message);
    const loaded = state.meta.warehouses;
    const warehouses = this.options.warehouses ?? loaded;
    if (warehouses > loaded) {
      throw new UsageError(
        `--warehouses ${warehouses} is more than the ${loaded} loaded; load more or use fewer`,
      );
    }
    const terminals = this.options.terminals ?? 10 * warehouses;
    const maxConnections = tpcc.dialect.capabilities.concurrentWriters ? DEFAULT_MAX_CONNECTIONS : 1;
    const connections = Math.min(terminals, this.options.connections ?? maxConnections);
    const seed = this.options.seed ?? Math.floor(Math.random() * 2 ** 31);
    const deck = this.options.mix ? deckFromPercentages(this.options.mix) : [...TPCC_DECK];
    // The CLI refuses such a mix up front; this guards callers of the API as well.
    const nonstandardMix = checkMixMinimums(
      this.options.mix ?? deck,
      { minimums: MIX_MINIMUMS, names: TPCC_TRANSACTIONS.map((t) => t.name) },
      this.options.allowNonstandardMix === true,
    );
    return {
      target: this.label,
      warehouses,
      loadedWarehouses: loaded,
      terminals,
      connections,
      thinkScale: this.options.thinkScale,
      warmupS: this.options.warmupMs / 1000,
      durationS: this.options.durationMs / 1000,
      rampS: this.options.rampMs / 1000,
      intervalS: this.options.intervalMs / 1000,
      deck,
      nonstandardMix,
      seed,
      constants: {
        load: state.meta.loadConstants,
        run: runConstants(new Rng(seed ^ 0x5bd1e995), state.meta.loadConstants),
      },
      mode: this.options.procedures ? 'procedures' : 'client-sql',
      database: await tpcc.dialect.serverInfo(monitor),
    };
  }
}

function intervalRecord(stats: IntervalStats, label?: 'precondition'): IntervalRecord {
  const perType: IntervalRecord['perType'] = {};
  let count = 0;
  TPCC_TRANSACTIONS.forEach((t, i) => {
    const s = stats.perType[i]!;
    perType[t.key] = { count: s.count, errors: s.errors, avgMs: s.avgMs, p90Ms: s.p90Ms };
    count += s.count;
  });
  const newOrders = stats.perType[0]?.count ?? 0;
  return {
    atS: Math.round(stats.atS * 1000) / 1000,
    phase: label && stats.phase === 'measure' ? label : stats.phase,
    seconds: Math.round(stats.seconds * 1000) / 1000,
    tps: Math.round((count / stats.seconds) * 100) / 100,
    tpmC: Math.floor((newOrders * 60) / stats.seconds),
    perType,
  };
}

/** The interval's counts and response-time histograms by transaction key, for the metrics endpoint. */
function perTypeOf(
  stats: IntervalStats,
): Record<string, { count: number; errors: number; histogram: Histogram }> {
  const out: Record<string, { count: number; errors: number; histogram: Histogram }> = {};
  TPCC_TRANSACTIONS.forEach((t, i) => {
    const s = stats.perType[i]!;
    out[t.key] = { count: s.count, errors: s.errors, histogram: stats.histograms[i]! };
  });
  return out;
}

/** Committed New-Orders so far, as the spec's NOPM counts them: sum(D_NEXT_O_ID) over active warehouses. */
async function sumNextOrderIds(db: Db, warehouses: number): Promise<number | undefined> {
  try {
    const [row] = await db.query<{ s: unknown }>(
      `select sum(d_next_o_id) as s from district where d_w_id <= ${warehouses}`,
    );
    return row ? Number(row.s) : undefined;
  } catch {
    return undefined;
  }
}

function toolVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

/**
 * One engine run of a target: warm-up, then a measured window, with the database's counters and
 * the monitoring window read at its edges. Each interval goes to the run's outputs in order, once
 * its monitoring figures are in; the outputs never hold the engine up.
 */
import { cpuUsage } from 'node:process';
import type { Db, Dialect } from '../dialects/dialect.js';
import type { CountingDb } from '../dialects/counting-db.js';
import type { EngineResult, Phase } from '../engine/engine-result.js';
import type { Counters, TransactionSpec } from '../engine/types.js';
import { DEFAULT_STEADY_RULE } from '../metrics/steady-state.js';
import type { CounterReading } from '../metrics/server-counter.js';
import type { MonitorWindow } from '../monitor/types.js';
import { deriveSeed } from '../random/rng.js';
import type { Measurement, PreparedRun, WindowCounters } from '../workloads/workload.js';
import type { RunDrive, RunEngine } from './drive.js';
import { intervalRecord, typeIntervals } from './interval-record.js';
import { measuredSummary } from './measured-summary.js';
import type { TargetMonitor } from './monitoring.js';
import type { RunOutputs } from './outputs.js';
import { SteadyWatch } from './steady-watch.js';
import type { IntervalRecord } from '../results/interval.js';
import type { RunConfig, RunSummary } from '../results/run-file.js';
import type { RunListener, RunOptions } from './run-options.js';

export interface MeasureContext {
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

export interface MeasurePhases {
  warmupMs: number;
  durationMs: number;
  rampMs: number;
  /** End the phase before scoring on steady state (see `measure`). */
  steady?: boolean | undefined;
}

export interface Measured {
  result: EngineResult<Counters>;
  measurement: Measurement;
  summary: RunSummary;
  intervals: IntervalRecord[];
}

/** What measuring needs of the run it is part of. */
export interface MeasureRun {
  label: string;
  options: RunOptions;
  transactions: readonly TransactionSpec[];
  listener: RunListener;
  outputs: RunOutputs;
  /** Hands over the engine about to run, for Ctrl-C. */
  engineReady(engine: RunEngine): void;
}

/**
 * One engine run: warm-up, then a measured window, with the database's counters at its edges.
 * With `steady`, the phase before the window's scoring (the warm-up; when preconditioning, the
 * window itself) ends at the first interval that makes it steady, or at its length (the cap).
 */
export async function measure(
  run: MeasureRun,
  ctx: MeasureContext,
  phases: MeasurePhases,
  round: number,
): Promise<Measured> {
  const { dialect, monitor, prepared, drive, config, watch, sideSent } = ctx;
  const { options, listener, outputs, label: target } = run;
  const engine = drive.engine(
    {
      transactions: run.transactions,
      deck: config.deck,
      thinkScale: config.thinkScale,
      warmupMs: phases.warmupMs,
      durationMs: phases.durationMs,
      rampMs: phases.rampMs,
      intervalMs: options.intervalMs,
      drainMs: options.drainMs ?? 30_000,
      seed: deriveSeed(config.seed, round),
      stopOnLostConnection: options.onError === 'stop',
    },
    () => prepared.newCounters(),
  );
  const label = round === 1 ? 'precondition' : undefined;
  // Preconditioning is this engine's window (warm-up 0): there the window is what settles.
  const watchedPhase: Phase = label ? 'measure' : 'warmup';
  const steady = phases.steady
    ? new SteadyWatch(
        options.steadyState?.rule ?? DEFAULT_STEADY_RULE,
        label ? phases.durationMs : phases.warmupMs,
        options.intervalMs,
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
  const ownCpu = options.otherTargetsInProcess !== true;
  let cpuStart = cpuUsage();
  let cpuEnd = cpuStart;
  let watched: Promise<MonitorWindow | undefined> = Promise.resolve(undefined);
  let windowStartedAt: Date | undefined;
  let windowEndedAt: Date | undefined;
  // Intervals reach the listener and the outputs in order, each once its monitoring figures are in.
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
    delivered = delivered.then(() => {
      listener.onPhase?.(shown);
      outputs.emit({ kind: 'phase', target, phase: shown });
    });
  });
  engine.on('interval', (stats) => {
    if (steady !== undefined && stats.phase === watchedPhase && steady.add(stats)) {
      // After this event is delivered: the engine cuts an interval as the phase ends.
      queueMicrotask(() => (label ? engine.endWindow() : engine.beginWindow()));
      const report = steady.report();
      const phase = label ?? 'warmup';
      listener.onSteadyState?.(report, phase);
      outputs.emit({ kind: 'steady', target, report, phase });
    }
    const record = intervalRecord(stats, run.transactions, prepared, label);
    if (stats.phase === 'measure') intervals.push(record);
    // Copied now: the engine resets its histograms when this returns.
    const perType = outputs.wantsHistograms ? typeIntervals(stats, run.transactions) : undefined;
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
      }
      listener.onInterval?.(record);
      outputs.emit({ kind: 'interval', target, interval: record, perType });
    });
  });
  // As it happens, in its place among the intervals (those before it delivered first).
  engine.on('outage', (edge, outage) => {
    delivered = delivered.then(() => outputs.emit({ kind: 'outage', target, edge, outage }));
  });
  run.engineReady(engine);
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
  const summary = measuredSummary(ctx, {
    result,
    measurement,
    intervals,
    serverTx: tx0 !== undefined && tx1 !== undefined ? { start: tx0, end: tx1 } : undefined,
    cpu: !ownCpu ? null : result.measured ? cpuEnd : { user: 0, system: 0 },
    windowStartedAt,
    windowEndedAt,
    steadyState: steady?.report(),
    window,
  });
  return { result, measurement, summary, intervals };
}

/**
 * The run's engine runs: with preconditioning, that phase first (its figures kept, not scored),
 * then warm-up and the measured window unless it was stopped; otherwise those alone.
 */
export async function measureWindows(
  run: MeasureRun,
  ctx: MeasureContext,
  stopRequested: () => boolean,
): Promise<{ precondition?: Measured | undefined; main: Measured }> {
  const { options } = run;
  const { warmupMs, durationMs, rampMs } = options;
  const mainPhases = { warmupMs, durationMs, rampMs, steady: options.steadyState?.warmup === true };
  const preconditionMs = options.preconditionMs ?? 0;
  if (preconditionMs <= 0) return { main: await measure(run, ctx, mainPhases, 0) };
  const precondition = await measure(
    run,
    ctx,
    {
      warmupMs: 0,
      durationMs: preconditionMs,
      rampMs: options.rampMs,
      steady: options.steadyState?.precondition === true,
    },
    1,
  );
  const main =
    stopRequested() || precondition.result.status !== 'completed'
      ? precondition
      : await measure(run, ctx, mainPhases, 0);
  return { precondition, main };
}

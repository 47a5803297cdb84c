/**
 * A replay through the engine: the plan's sessions as scripted terminals, the executor on the
 * target, intervals and the run report as every run has them, and the fidelity report beside.
 */
import { createRequire } from 'node:module';
import { Engine, type IntervalStats, type Phase } from '../engine/engine.js';
import { schemeOf, SCHEMES } from '../dialects/dialect.js';
import { UsageError } from '../errors.js';
import { encodeHistogram, latencyMs, newHistogram, type Histogram } from '../metrics/histogram.js';
import { assessFidelity, type Fidelity, type TemplateFidelity } from '../report/fidelity.js';
import { RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { newReplayCounters, ReplayExecutor, type ReplayDriver } from './executor.js';
import { loadPlan, ReplayScript, type ReplayPlan } from './plan.js';

export interface ReplayOptions {
  /** Offsets divided by this; Infinity for `--speed max`. */
  speed: number;
  warmupMs: number;
  /** The measured window's limit; Infinity = until every session is done. */
  durationMs: number;
  intervalMs: number;
  maxErrorRatePct: number | null;
}

export interface ReplayInterval {
  atS: number;
  phase: Phase;
  seconds: number;
  tps: number;
  statements: number;
  errors: number;
}

export interface ReplayListener {
  onStart?(plan: ReplayPlan): void;
  onPhase?(phase: Phase): void;
  onInterval?(interval: ReplayInterval): void;
}

export const REPLAY_DISCLAIMER =
  'Replay of a captured workload; its figures describe that workload on this target, nothing else.';

export class ReplayRun {
  private engine: Engine<ReturnType<typeof newReplayCounters>> | undefined;
  private stopped = false;

  constructor(
    private readonly file: string,
    private readonly url: string,
    private readonly label: string,
    private readonly options: ReplayOptions,
    private readonly listener: ReplayListener = {},
  ) {}

  stop(): void {
    this.stopped = true;
    this.engine?.stop('interrupted', 'interrupted by the user');
  }

  async run(): Promise<{
    report: Record<string, unknown>;
    fidelity: Fidelity;
    histograms: Record<string, string>;
  }> {
    const plan = await loadPlan(this.file);
    const dialect = SCHEMES[schemeOf(this.url) ?? ''];
    const source = plan.header.source.kind;
    if (dialect !== source) {
      throw new UsageError(
        `the workload was captured on ${source}, and replays onto the same kind of database; give a ${source} --db`,
      );
    }
    const driver = await driverFor(dialect, this.url);
    const script = new ReplayScript(plan, this.options.speed);
    const executor = new ReplayExecutor(script, driver, plan.sessions.length);
    const n = plan.templates.length;
    const engine = new Engine(
      {
        terminals: plan.sessions.length,
        transactions: plan.templates.map((t) => ({ key: t.id, name: t.text, keyingS: 0, thinkMeanS: 0 })),
        // Unused with a script (every terminal's next statement is its session's), but a valid deck.
        deck: plan.templates.map(() => 1),
        thinkScale: 0,
        warmupMs: this.options.warmupMs,
        durationMs: this.options.durationMs,
        rampMs: 0,
        intervalMs: this.options.intervalMs,
        drainMs: 30_000,
        seed: 0,
        script,
      },
      executor,
      newReplayCounters,
    );
    this.engine = engine;
    if (this.stopped) engine.stop('interrupted', 'interrupted by the user');
    // The whole replay's figures per template (warm-up included): the capture is compared whole.
    const counts = new Float64Array(n);
    const errors = new Float64Array(n);
    const whole: Histogram[] = plan.templates.map(() => newHistogram());
    const intervals: ReplayInterval[] = [];
    engine.on('phase', (p) => this.listener.onPhase?.(p));
    engine.on('interval', (s: IntervalStats) => {
      let statements = 0;
      let errs = 0;
      s.perType.forEach((t, i) => {
        counts[i]! += t.count;
        errors[i]! += t.errors;
        if (i >= 2) {
          statements += t.count;
          errs += t.errors;
        }
        if (t.count > 0) whole[i]!.add(s.histograms[i]!);
      });
      const record: ReplayInterval = {
        atS: round3(s.atS),
        phase: s.phase,
        seconds: round3(s.seconds),
        tps: s.seconds > 0 ? Math.round((statements / s.seconds) * 100) / 100 : 0,
        statements,
        errors: errs,
      };
      intervals.push(record);
      this.listener.onInterval?.(record);
    });
    this.listener.onStart?.(plan);
    const startedAt = new Date();
    let result;
    try {
      result = await engine.run();
    } finally {
      await executor.close();
    }
    const window = result.perType;
    const statementsInWindow = window.slice(2).reduce((a, t) => a + t.count, 0);
    const errorsInWindow = window.slice(2).reduce((a, t) => a + t.errors, 0);
    const all = newHistogram();
    for (const t of window.slice(2)) all.add(t.histogram);
    const replayedOk = sum(counts, 2);
    const replayedErrors = sum(errors, 2);
    const templates: TemplateFidelity[] = plan.templates.map((t, i) => ({
      id: t.id,
      text: t.text,
      captured: {
        count: t.captured.count,
        errors: t.captured.errors,
        avgMs: t.captured.timed > 0 ? t.captured.durations.mean / 1000 : null,
        p95Ms: t.captured.timed > 0 ? t.captured.durations.getValueAtPercentile(95) / 1000 : null,
      },
      replayed: {
        count: counts[i]!,
        errors: errors[i]!,
        avgMs: whole[i]!.totalCount > 0 ? whole[i]!.mean / 1000 : null,
        p95Ms: whole[i]!.totalCount > 0 ? whole[i]!.getValueAtPercentile(95) / 1000 : null,
      },
    }));
    const lag = result.lateness;
    const speed = this.options.speed === Infinity ? 'max' : this.options.speed;
    const fidelity = assessFidelity({
      speed,
      sessions: plan.sessions.length,
      statements: {
        captured: plan.statements,
        replayed: replayedOk + replayedErrors,
        // A statement that failed in the capture and succeeds now completed, but not as captured.
        asCaptured: replayedOk - executor.replayed.unexpectedSuccesses,
        unexpectedErrors: replayedErrors,
        unexpectedSuccesses: executor.replayed.unexpectedSuccesses,
      },
      // Both whole, as the statements are: the capture's every transaction, the replay's warm-up included.
      transactions: { captured: plan.transactions, replayed: executor.replayed.transactions },
      errorsByClass: result.errorsByClass,
      templates,
      throughput: throughput(plan, intervals, this.options.speed),
      lagMs:
        speed === 'max' || lag.totalCount === 0
          ? null
          : {
              p50: lag.getValueAtPercentile(50) / 1000,
              p99: lag.getValueAtPercentile(99) / 1000,
              max: lag.maxValue / 1000,
            },
      maxErrorRatePct: this.options.maxErrorRatePct,
    });
    const histograms: Record<string, string> = {};
    plan.templates.forEach((t, i) => {
      if (window[i]!.count > 0) histograms[t.id] = encodeHistogram(window[i]!.histogram);
    });
    const seconds = result.windowSeconds;
    const report = {
      schemaVersion: RUN_SCHEMA_VERSION,
      kind: 'run',
      tool: { name: 'txbench', version: toolVersion() },
      workload: 'replay',
      disclaimer: REPLAY_DISCLAIMER,
      status: result.status,
      failure: result.failure,
      startedAt: startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      config: {
        target: this.label,
        workloadFile: this.file,
        source: plan.header.source,
        captureStart: plan.header.captureStart,
        speed,
        warehouses: 0,
        terminals: Math.max(1, plan.sessions.length),
        connections: Math.max(1, plan.sessions.length),
        thinkScale: 0,
        warmupS: this.options.warmupMs / 1000,
        durationS: Number.isFinite(this.options.durationMs) ? this.options.durationMs / 1000 : seconds,
        deck: [],
        mode: 'replay',
        nonstandardMix: false,
      },
      summary: {
        windowSeconds: round3(seconds),
        transactions: statementsInWindow,
        tps: seconds > 0 ? Math.round((statementsInWindow / seconds) * 100) / 100 : 0,
        tpmC: 0,
        nopm: null,
        tpm: null,
        responseMs: latencyMs(all),
        ceilingTpmC: null,
        efficiencyPct: null,
        errors: errorsInWindow,
        retries: 0,
        clientCpu: null,
        schedulerLatenessMs: fidelity.lagMs,
      },
      drain: result.drain,
      transactions: Object.fromEntries(
        plan.templates.map((t, i) => [
          t.id,
          {
            name: t.text,
            count: window[i]!.count,
            errors: window[i]!.errors,
            retries: 0,
            responseMs: latencyMs(window[i]!.histogram),
          },
        ]),
      ),
      audit: { checks: [], pass: fidelity.pass },
      errors: result.errorsByClass,
      intervals: intervals.filter((iv) => iv.phase === 'measure'),
      fidelity,
    };
    return { report, fidelity, histograms };
  }
}

async function driverFor(dialect: string | undefined, url: string): Promise<ReplayDriver> {
  if (dialect === 'postgres') return (await import('./postgres-driver.js')).postgresDriver(url);
  if (dialect === 'mysql') return (await import('./mysql-driver.js')).mysqlDriver(url);
  throw new UsageError('txbench replay runs on PostgreSQL and MySQL/MariaDB targets; give such a --db');
}

/** Statements per second per interval, the capture's at the replay's speed beside the replay's. */
function throughput(
  plan: ReplayPlan,
  intervals: readonly ReplayInterval[],
  speed: number,
): Fidelity['throughput'] {
  return intervals
    .filter((iv) => iv.seconds >= 0.5)
    .map((iv) => {
      let original: number | null = null;
      if (Number.isFinite(speed)) {
        const from = (iv.atS - iv.seconds) * 1000 * speed;
        const to = iv.atS * 1000 * speed;
        let n = 0;
        for (const at of plan.offsetsMs) if (at > from && at <= to) n++;
        original = Math.round((n / iv.seconds) * 100) / 100;
      }
      return { atS: iv.atS, originalPerS: original, replayedPerS: iv.tps };
    });
}

function sum(a: Float64Array, from: number): number {
  let s = 0;
  for (let i = from; i < a.length; i++) s += a[i]!;
  return s;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function toolVersion(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

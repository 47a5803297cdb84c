/**
 * A captured workload as a `Workload` the generic run path drives (run/workload-run.ts): the plan's
 * sessions as scripted terminals, each replaying its statements at its captured offsets, on the
 * executor every run has (so device monitoring, outages, --on-error, the dashboard, Prometheus and
 * report.html hold for a replay as for any run). Over worker threads (--workers), each thread
 * makes the same workload again from its ref (replay-ref.ts) and replays its slice of the sessions,
 * each session on one thread in its own order. The replay's own figures, the fidelity report
 * (statements as captured, unexpected successes, the verdict, speed against the capture), are
 * made from what it saw over the whole replay and go into run.json beside the run's.
 */
import type { IntervalStats, Phase } from '../engine/engine-result.js';
import { UsageError } from '../errors.js';
import { newHistogram, type Histogram } from '../metrics/histogram.js';
import { assessFidelity, type Fidelity, type TemplateFidelity } from '../report/fidelity.js';
import type { PreparedRun, RunSetup, Workload } from '../workloads/workload.js';
import { driverFor, REPLAY_DIALECTS } from './drivers.js';
import { loadPlan, ReplayScript, type ReplayPlan } from './plan.js';
import { parseReplayRef, replayRef } from './replay-ref.js';
import { newReplayCounters, ReplaySessions, type ReplayCounters } from './sessions.js';

export interface ReplayOptions {
  /** Offsets divided by this; Infinity for `--speed max`. */
  speed: number;
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

export const REPLAY_DISCLAIMER =
  'Replay of a captured workload; its figures describe that workload on this target, nothing else.';

/** What run.json's report needs of a finished run to assess its fidelity. */
export interface ReplayRunFigures {
  errors: Record<string, number>;
  summary: { windowSeconds: number; schedulerLatenessMs: { p50: number; p99: number; max: number } | null };
  config: { durationS: number };
  audit: { pass: boolean };
}

/** A workload file, ready to be driven: its plan, its workload, and its fidelity once run. */
export interface Replay {
  readonly plan: ReplayPlan;
  readonly workload: Workload;
  /** Sessions replayed at once: the run's terminals and connections. */
  readonly sessions: number;
  /**
   * The finished run's fidelity, written into its report (`fidelity`, the audit's verdict, the
   * measured window's length for a replay measured until its sessions were done).
   */
  finish<R extends ReplayRunFigures>(report: R): R & { fidelity: Fidelity };
}

export async function openReplay(file: string, options: ReplayOptions): Promise<Replay> {
  const plan = await loadPlan(file);
  const sessions = Math.max(1, plan.sessions.length);
  const n = plan.templates.length;
  // The whole replay's figures per template (warm-up included): the capture is compared whole.
  const counts = new Float64Array(n);
  const errors = new Float64Array(n);
  const whole: Histogram[] = plan.templates.map(() => newHistogram());
  const intervals: ReplayInterval[] = [];
  let run: ReplaySessions | undefined;
  // What the worker threads' sessions tallied over the whole replay (none without workers).
  const fromWorkers = newReplayCounters();
  const speed = options.speed === Infinity ? 'max' : options.speed;

  const observeInterval = (s: IntervalStats): void => {
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
    intervals.push({
      atS: round3(s.atS),
      phase: s.phase,
      seconds: round3(s.seconds),
      tps: s.seconds > 0 ? Math.round((statements / s.seconds) * 100) / 100 : 0,
      statements,
      errors: errs,
    });
  };

  const prepareRun = async (setup: RunSetup): Promise<PreparedRun<undefined, ReplayCounters>> => {
    const source = plan.header.source.kind;
    if (setup.dialect.name !== source) {
      throw new UsageError(
        `the workload was captured on ${source}, and replays onto the same kind of database; give a ${source} --db`,
      );
    }
    const driver = await driverFor(setup.dialect.name, setup.url);
    const script = new ReplayScript(plan, options.speed);
    return {
      config: {
        workloadFile: file,
        source: plan.header.source,
        captureStart: plan.header.captureStart,
        speed,
        mode: 'replay',
      },
      defaultTerminals: plan.sessions.length,
      scale: `${plan.statements.toLocaleString('en-US')} statements of ${plan.sessions.length} sessions`,
      script,
      terminal: () => undefined,
      newCounters: newReplayCounters,
      open: (_url, slots) => {
        run = new ReplaySessions(script, driver, setup.dialect.name, plan.sessions.length, slots);
        return Promise.resolve(run);
      },
      // A replay's transactions are its statements: the sessions' connects and disconnects are not.
      summary: (m) => {
        const statements = m.counts.slice(2).reduce((a, c) => a + c, 0);
        return {
          transactions: statements,
          tps: m.windowSeconds > 0 ? Math.round((statements / m.windowSeconds) * 100) / 100 : 0,
        };
      },
      figures: (m) => {
        const statements = m.counts.slice(2).reduce((a, c) => a + c, 0);
        return [
          {
            key: 'tps',
            label: 'Statements/s',
            value: m.windowSeconds > 0 ? Math.round((statements / m.windowSeconds) * 100) / 100 : 0,
            unit: 'statements/s',
          },
        ];
      },
      observeInterval,
      runTallies: () => ({ ...(run?.replayed ?? newReplayCounters()) }),
      addRunTallies: (tallies) => addCounters(fromWorkers, tallies),
    };
  };

  const workload: Workload = {
    name: 'replay',
    ref: replayRef(file, options.speed),
    title: `replay of ${file}`,
    disclaimer: REPLAY_DISCLAIMER,
    dialects: REPLAY_DIALECTS,
    options: [],
    profiles: plan.templates.map((t) => ({ key: t.id, name: t.text, weight: 1 })),
    tables: () => [],
    // A replay runs on whatever the database holds: it loads nothing and needs nothing loaded.
    inspect: () => Promise.resolve({ kind: 'loaded', record: {} }),
    parseRecord: () => ({ record: {} }),
    detect: () => Promise.resolve(undefined),
    loader: {
      plan: () => ({}),
      tasks: () => [],
      generate: () => [],
    },
    prepareRun: prepareRun as Workload['prepareRun'],
  };

  const finish = <R extends ReplayRunFigures>(report: R): R & { fidelity: Fidelity } => {
    // This thread's sessions, or the worker threads': one of the two replayed them all.
    const replayed = addCounters({ ...(run?.replayed ?? newReplayCounters()) }, fromWorkers);
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
    const lag = report.summary.schedulerLatenessMs;
    const fidelity = assessFidelity({
      speed,
      sessions: plan.sessions.length,
      statements: {
        captured: plan.statements,
        replayed: replayedOk + replayedErrors,
        // A statement that failed in the capture and succeeds now completed, but not as captured.
        asCaptured: replayedOk - replayed.unexpectedSuccesses,
        unexpectedErrors: replayedErrors,
        unexpectedSuccesses: replayed.unexpectedSuccesses,
      },
      // Both whole, as the statements are: the capture's every transaction, the replay's warm-up included.
      transactions: { captured: plan.transactions, replayed: replayed.transactions },
      errorsByClass: report.errors,
      templates,
      throughput: throughput(plan, intervals, options.speed),
      lagMs: speed === 'max' || lag === null ? null : lag,
      maxErrorRatePct: options.maxErrorRatePct,
    });
    const durationS = Number.isFinite(report.config.durationS)
      ? report.config.durationS
      : report.summary.windowSeconds;
    return {
      ...report,
      config: { ...report.config, durationS },
      audit: { ...report.audit, pass: fidelity.pass },
      fidelity,
    };
  };

  return { plan, workload, sessions, finish };
}

/** The replay workload a worker thread makes again from its ref (registry.ts `findWorkload`). */
export async function replayWorkload(ref: string): Promise<Workload> {
  const { file, speed } = parseReplayRef(ref);
  // The error limit is judged once, on the main thread, with the fidelity.
  return (await openReplay(file, { speed, maxErrorRatePct: null })).workload;
}

/** Adds `tallies` into `into`, key by key (the replay's counters). */
function addCounters(
  into: ReplayCounters,
  tallies: Readonly<Partial<Record<string, number>>>,
): ReplayCounters {
  for (const k of Object.keys(into) as (keyof ReplayCounters)[]) into[k] += tallies[k] ?? 0;
  return into;
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

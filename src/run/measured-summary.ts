/**
 * A measured window's summary (run.json's `summary`): the generic figures, the workload's own and
 * its headline figures, TPM from the server's counter less txbench's side transactions, the
 * monitoring window, and the confidence intervals from the window's intervals.
 */
import type { EngineResult } from '../engine/engine-result.js';
import type { Counters } from '../engine/types.js';
import { counterWindow, type CounterReading } from '../metrics/server-counter.js';
import type { SteadyStateReport } from '../metrics/steady-state.js';
import { windowNoise } from '../metrics/window-noise.js';
import { windowSummary } from '../metrics/window-summary.js';
import type { MonitorWindow } from '../monitor/types.js';
import { figureLabel } from '../results/figures.js';
import type { TargetMonitor } from './monitoring.js';
import type { Measurement, PreparedRun } from '../workloads/workload.js';
import type { IntervalRecord } from '../results/interval.js';
import type { RunConfig, RunSummary } from '../results/run-file.js';

/** What the engine run and the readings at the window's edges gave. */
export interface WindowReadings {
  result: EngineResult<Counters>;
  measurement: Measurement;
  /** The window's intervals, their monitoring figures in. */
  intervals: readonly IntervalRecord[];
  /** The server's transaction counter at the window's edges, when it could be read. */
  serverTx: { start: CounterReading; end: CounterReading } | undefined;
  /** The process's CPU over the window; null when other targets share the process. */
  cpu: NodeJS.CpuUsage | null;
  windowStartedAt: Date | undefined;
  windowEndedAt: Date | undefined;
  steadyState: SteadyStateReport | undefined;
  window: MonitorWindow | undefined;
}

export function measuredSummary(
  ctx: {
    prepared: PreparedRun;
    config: RunConfig;
    /** What watched the disks, host and database; undefined with --no-monitor. */
    watch: TargetMonitor | undefined;
    /** What the server's transaction counter covers (hashed). */
    counterScope: string | null;
  },
  readings: WindowReadings,
): RunSummary {
  const { prepared, config, watch, counterScope } = ctx;
  const { result, measurement, serverTx, cpu, windowStartedAt, windowEndedAt, window } = readings;
  const serverCounter =
    serverTx !== undefined
      ? counterWindow(counterScope, serverTx.start, serverTx.end, result.windowSeconds)
      : undefined;
  const generic = windowSummary(
    result,
    // The counter's advance less the side transactions this target sent in the window.
    serverCounter !== undefined
      ? { start: 0, end: serverCounter.transactions - serverCounter.ownTransactions }
      : undefined,
    cpu === null ? null : { userUs: cpu.user, systemUs: cpu.system },
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
    ...(readings.steadyState ? { steadyState: readings.steadyState } : {}),
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
    readings.intervals,
    figures.map((f) => f.key),
  );
  return summary;
}

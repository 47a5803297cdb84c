/**
 * The figures every run reports, whatever its workload: TPS, response times overall and per
 * transaction type, errors and retries, the database's own transaction rate, and the tool's own
 * CPU and scheduler lateness. Pure, so the arithmetic is unit-tested.
 */
import type { EngineResult } from '../engine/engine-result.js';
import type { Counters } from '../engine/types.js';
import { clientCpuFigures, type ClientCpu, type ProcessCpu } from './client-cpu.js';
import { latencyMs, newHistogram, type LatencyMs } from './histogram.js';

export interface WindowSummary {
  windowSeconds: number;
  transactions: number;
  tps: number;
  /** Database transactions per minute from the server's counters; null when unavailable. */
  tpm: number | null;
  responseMs: LatencyMs;
  errors: number;
  retries: number;
  /**
   * The txbench process's CPU over the window. null when other targets ran in the same process at
   * the same time: process CPU cannot be split between targets on one thread, so it is reported
   * once, in the several-target summary, instead.
   */
  clientCpu: ClientCpu | null;
  /**
   * How late the scheduler handed transactions to the connection pool (due time to submission),
   * over every submission in the window; null only when nothing was submitted in it.
   */
  schedulerLatenessMs: { p50: number; p99: number; max: number } | null;
}

export interface TypeSummary {
  name: string;
  /** Completed in the measured window (intended rollbacks included). */
  count: number;
  errors: number;
  retries: number;
  /** Share of all completed transactions, percent. */
  mixPct: number;
  responseMs: LatencyMs;
  /** The spec's 90th-percentile limit, where the workload has one. */
  p90LimitMs?: number | undefined;
  p90Pass?: boolean | undefined;
  /** Workload-specific per-type figures (TPC-C: New-Order's intended rollbacks). */
  [extra: string]: unknown;
}

export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
export const pct = (part: number, whole: number): number => (whole > 0 ? round((100 * part) / whole, 3) : 0);

export function windowSummary(
  engine: EngineResult<Counters>,
  serverTransactions: { start: number; end: number } | undefined,
  cpu: ProcessCpu | null,
): WindowSummary {
  const seconds = engine.windowSeconds;
  const minutes = seconds / 60;
  const transactions = engine.perType.reduce((a, t) => a + t.count, 0);
  const all = newHistogram();
  for (const t of engine.perType) all.add(t.histogram);
  return {
    windowSeconds: round(seconds, 3),
    transactions,
    tps: seconds > 0 ? round(transactions / seconds) : 0,
    tpm:
      serverTransactions === undefined || minutes <= 0
        ? null
        : round((serverTransactions.end - serverTransactions.start) / minutes, 1),
    responseMs: latencyMs(all),
    errors: engine.perType.reduce((a, t) => a + t.errors, 0),
    retries: engine.perType.reduce((a, t) => a + t.retries, 0),
    clientCpu: cpu === null ? null : clientCpuFigures(cpu, seconds, transactions),
    schedulerLatenessMs:
      engine.lateness.totalCount === 0
        ? null
        : {
            p50: round(engine.lateness.getValueAtPercentile(50) / 1000, 3),
            p99: round(engine.lateness.getValueAtPercentile(99) / 1000, 3),
            max: round(engine.lateness.maxValue / 1000, 3),
          },
  };
}

/** Per type, by key: counts, mix share, response times, and the p90 limit where there is one. */
export function typeSummaries<C extends Counters>(
  engine: EngineResult<C>,
  types: readonly { key: string; name: string; p90LimitMs?: number | undefined }[],
  extra: (type: number, counters: C) => Record<string, number> = () => ({}),
): Record<string, TypeSummary> {
  const total = engine.perType.reduce((a, t) => a + t.count, 0);
  const out: Record<string, TypeSummary> = {};
  types.forEach((spec, i) => {
    const stats = engine.perType[i]!;
    const responseMs = latencyMs(stats.histogram);
    out[spec.key] = {
      name: spec.name,
      count: stats.count,
      errors: stats.errors,
      retries: stats.retries,
      mixPct: pct(stats.count, total),
      responseMs,
      ...(spec.p90LimitMs === undefined
        ? {}
        : { p90LimitMs: spec.p90LimitMs, p90Pass: responseMs.p90 <= spec.p90LimitMs }),
      ...extra(i, engine.counters),
    };
  });
  return out;
}

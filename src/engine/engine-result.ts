/**
 * What an engine tells: its phases, each interval's figures, and its result at the end (the
 * measured window, what the drain left, what straddled the window's edges, the outages).
 */
import { meanOf, type Histogram } from '../metrics/histogram.js';
import type { Outage, OutageEdge } from './outages.js';
import type { Counters, ErrorClass } from './types.js';

export type Phase = 'warmup' | 'measure' | 'drain' | 'done';
/**
 * `incomplete-drain`: the window ran its course, but transactions were still running when the
 * drain gave up; the figures cover what finished, and `drain` says what did not.
 */
export type RunStatus = 'completed' | 'incomplete-drain' | 'interrupted' | 'failed';

/** What was due when the window closed and never finished. */
export interface DrainReport {
  /** How long the drain was allowed, ms. */
  limitMs: number;
  /**
   * Due but not yet started when the window closed (waiting for a connection slot, or for their
   * turn of the event loop): never run, since they could no longer finish inside the window.
   */
  queued: number;
  /** Still running when the drain gave up; 0 when every one finished within `limitMs`. */
  inFlight: number;
  /** queued + inFlight: transactions that were due and never finished. */
  abandoned: number;
  /** How long the oldest abandoned transaction had been due when the drain ended, ms; null when none. */
  oldestAgeMs: number | null;
  /** The terminals (0-based ids) whose transactions were still running when the drain gave up (at most 50). */
  terminals?: number[] | undefined;
}

/**
 * Transactions that straddle an edge of the measured window. The window counts a transaction due
 * at or after it opened that ended (committed, rolled back or failed) before it closed: response
 * time runs from the due time, so one due in the warm-up has part of its time there, and one still
 * running at the close has no end inside the window. Neither is in the window's figures nor in its
 * intervals; both are counted here so they stay in sight.
 */
export interface WindowEdges {
  /** Due before the window opened (in the warm-up) and ended inside it. */
  dueBefore: number;
  /** Still running when the window closed and ended during the drain. */
  drained: number;
}

export interface TypeStats {
  count: number;
  errors: number;
  retries: number;
  histogram: Histogram;
}

/** One type over one interval; response times in ms, 0 when the type completed nothing. */
export interface IntervalTypeStats {
  count: number;
  errors: number;
  avgMs: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
}

export interface IntervalStats {
  /** Seconds since the run started, at the end of the interval. */
  atS: number;
  phase: Phase;
  seconds: number;
  perType: IntervalTypeStats[];
  /**
   * Each type's response times over the interval (µs). Valid only while the event is being
   * delivered: the engine resets them right after, so a listener that keeps one must copy it.
   */
  histograms: readonly Histogram[];
  /** The interval's failed transactions by class, all types together. */
  errorsByClass: Record<ErrorClass, number>;
}

export interface EngineResult<C extends Counters> {
  status: RunStatus;
  /** The measured window as it actually ran (shorter when interrupted). */
  windowSeconds: number;
  measured: boolean;
  perType: TypeStats[];
  errorsByClass: Record<ErrorClass, number>;
  /** The workload's counters, summed over exactly the transactions the window counts. */
  counters: C;
  /**
   * How late the scheduler handed each transaction to the connection pool (µs), over the measured
   * window: every submission, whether it came off the timer heap or the think-scale-0 ready ring.
   */
  lateness: Histogram;
  drain: DrainReport;
  /** What ended across the window's edges, counted apart from it. */
  edges: WindowEdges;
  /** Each stretch from a transaction failing for a lost or unanswering database to one succeeding again. */
  outages: Outage[];
  failure?: string | undefined;
}

/** One type's interval figures: its counts, and response times read from its histogram (µs). */
export function intervalTypeStats(count: number, errors: number, h: Histogram): IntervalTypeStats {
  const empty = h.totalCount === 0;
  // HDR reports a bucket's upper edge, which can exceed the largest value recorded.
  const at = (p: number): number => (empty ? 0 : Math.min(h.getValueAtPercentile(p), h.maxValue) / 1000);
  return {
    count,
    errors,
    avgMs: empty ? 0 : Math.round(meanOf(h)) / 1000,
    p50Ms: at(50),
    p90Ms: at(90),
    p95Ms: at(95),
    p99Ms: at(99),
  };
}

export interface EngineEvents {
  phase: [phase: Phase];
  interval: [stats: IntervalStats];
  /** An outage as it opens and as it ends (the result's `outages` list them all at the end). */
  outage: [edge: OutageEdge, outage: Outage];
  /** Every scripted terminal is done and idle, under `externalPhases` (EngineConfig.script). */
  scriptsDone: [];
}

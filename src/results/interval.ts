/** One line of intervals.ndjson, and an entry of run.json's `intervals`. */
import type { IntervalTypeStats, Phase } from '../engine/engine-result.js';
import type { ErrorClass } from '../engine/types.js';
import type { MonitorInterval } from '../monitor/types.js';

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

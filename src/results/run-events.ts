/**
 * What a run tells its outputs, as k6's outputs hear a test (DESIGN.md, layer 11): the run emits
 * these events and knows no output by name; the progress printer, the intervals file, the
 * Prometheus endpoint, the live dashboard and report.html subscribe. Each output gets them through
 * its own bounded queue (run/outputs.ts), so none can slow the run.
 */
import type { Phase } from '../engine/engine-result.js';
import type { Outage } from '../engine/outages.js';
import type { Histogram } from '../metrics/histogram.js';
import type { SteadyStateReport } from '../metrics/steady-state.js';
import type { IntervalRecord } from './interval.js';
import type { RunConfig, RunReport } from './run-file.js';

/** One transaction type over one interval, with its response times whole (not only percentiles). */
export interface TypeInterval {
  /** Transactions that finished ok in the interval. */
  count: number;
  errors: number;
  /** Response times (µs) of the ok ones. */
  histogram: Histogram;
}

/**
 * Every event of a run names the target it comes from (its label); several targets may share an
 * output. `written` is the command's: its run directory (every target's) is on disk.
 */
export type RunEvent =
  | { kind: 'start'; target: string; config: RunConfig }
  | { kind: 'phase'; target: string; phase: Phase | 'precondition' }
  | {
      kind: 'interval';
      target: string;
      /** The interval as intervals.ndjson holds it, with its monitoring figures when monitored. */
      interval: IntervalRecord;
      /** Each type's interval by key, its histogram a copy: only for outputs that ask (`wantsHistograms`). */
      perType?: Readonly<Record<string, TypeInterval>> | undefined;
    }
  | { kind: 'steady'; target: string; report: SteadyStateReport; phase: 'warmup' | 'precondition' }
  | { kind: 'warning'; target: string; message: string }
  | { kind: 'outage'; target: string; edge: 'start' | 'end'; outage: Outage }
  | { kind: 'summary'; target: string; report: RunReport }
  /** run.json is written into `dir`: what reads the run directory (report.html) may now. */
  | { kind: 'written'; dir: string };

/** A subscriber to a run's events (k6's `output.Output`: start, add samples, stop). */
export interface Output {
  /** What it is, for the one line that says it failed ("dashboard", "intervals file"). */
  readonly name: string;
  /** Interval events carry each type's histogram (copied: the engine reuses its own). */
  readonly wantsHistograms?: boolean | undefined;
  /** Before the run's first event. */
  start?(): void | Promise<void>;
  /**
   * One event, in the order emitted. A promise holds back this output's next events (never the
   * run's); a throw or rejection detaches the output, told once.
   */
  event(event: RunEvent): void | Promise<void>;
  /** After its last event was handled. */
  stop?(): void | Promise<void>;
  /**
   * The files it was to write and could not (a full disk) since it was last asked: the command
   * exits 1 naming them (the output's own warning says why).
   */
  unwritten?(): readonly string[];
}

/**
 * What the HTML report's page and its browser script share: the charts as plain data (computed on
 * the server, drawn by the script), so the numbers tables and the pictures come from one source.
 */
import { millis, twoDecimals } from '../numbers.js';

/** One line or set of bars; null where the figure was not measured (a gap, not a zero). */
export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** The right-hand axis (a second unit), else the left. */
  axis?: 'y2' | undefined;
}

export interface ChartAxis {
  label: string;
}

export interface ChartSpec {
  /** Unique in the page; also the anchor of the chart's figure. */
  id: string;
  title: string;
  /** Lines over a numeric x; bars over categories; points joined by lines over categories. */
  kind: 'line' | 'bars' | 'categories';
  x: {
    label: string;
    values: number[];
    /** Names of the categories (kind bars or categories): x value i is categories[i]. */
    categories?: string[] | undefined;
    /** Percentiles plotted at percentileToX(p) (a log scale of the tail), labelled as percentiles. */
    percentile?: boolean | undefined;
  };
  y: ChartAxis;
  y2?: ChartAxis | undefined;
  series: ChartSeries[];
  /** Shaded x ranges (warm-up, preconditioning). */
  bands?: { from: number; to: number; label: string }[] | undefined;
  /**
   * Horizontal bands: a figure's 95% confidence interval (y from `from` to `to`, on the left axis)
   * over the measured window (x from `x0` to `x1`), behind the line of its per-interval values.
   */
  levels?: { from: number; to: number; x0: number; x1: number; label: string }[] | undefined;
  /** Vertical marks (the knee). */
  marks?: { x: number; label: string }[] | undefined;
}

/** One device over one interval, as intervals.ndjson has it. */
export interface IntervalDevice {
  name: string;
  role: string;
  readIops: number;
  writeIops: number;
  readMBps: number;
  writeMBps: number;
  readLatencyMs: number | null;
  writeLatencyMs: number | null;
  queueDepth: number;
  busyPct?: number;
}

/**
 * One type over one interval (ms). Files written before p50/p95/p99 were recorded have only avgMs
 * and p90Ms; the live dashboard's updates carry only the count and p50/p95/p99.
 */
export interface IntervalTypeRow {
  count: number;
  errors?: number;
  avgMs?: number;
  p50Ms?: number;
  p90Ms?: number;
  p95Ms?: number;
  p99Ms?: number;
}

/** One interval as intervals.ndjson has it (fields read by the report; the rest is ignored). */
export interface IntervalRow {
  atS: number;
  phase: string;
  seconds: number;
  tps: number;
  tpmC?: number;
  /** The target's label, with several targets. */
  target?: string;
  perType?: Record<string, IntervalTypeRow>;
  devices?: IntervalDevice[];
  host?: {
    cpuUserPct: number;
    cpuSystemPct: number;
    cpuIowaitPct: number;
    cpuStealPct: number;
    txbenchCpuPct: number | null;
  } | null;
  missing?: string[];
}

/**
 * The target's label as a run writes it: several targets' interval lines carry the progress
 * prefix `[label]`.
 */
export function targetLabel(raw: string): string {
  return raw.replace(/^\[(.*)\]$/, '$1');
}

/** The JSON embedded in the page for the browser script. */
export interface PageData {
  charts: ChartSpec[];
  /** Set by a live dashboard: where its updates come from, and what they are added to. */
  live?: { eventsPath: string; sections: LiveSection[] } | undefined;
}

/** The kinds of run whose charts are drawn over time. */
export type TimeSeriesKind = 'run' | 'targets' | 'steps' | 'sweep';

/**
 * What a section's charts over time are drawn from, so the live page can redraw them with each
 * interval pushed, through the same functions the server used (time-charts.ts).
 */
export interface TimeSeriesSource {
  kind: TimeSeriesKind;
  /** Transaction type names by key (`newOrder` → `New-Order`). */
  names: Record<string, string>;
  /** The targets (or steps, or setting values) in order, when run.json names them; else as seen. */
  labels: string[];
  rows: IntervalRow[];
}

export interface LiveSection extends TimeSeriesSource {
  /** The section's anchor: the charts' ids start with it. */
  anchor: string;
}

/** The id of the <script type="application/json"> holding PageData. */
export const PAGE_DATA_ID = 'txbench-data';

/**
 * Where percentile p sits on the x axis: log10(1/(1 - p/100)), so 50% is at 0.3, 90% at 1, 99% at
 * 2 … 99.999% at 5. The axis is linear in this value: a log scale of the tail, drawn without
 * relying on the chart library's log scales (which snap their range to whole decades).
 */
export function percentileToX(p: number): number {
  return Math.log10(1 / (1 - p / 100));
}

/** The inverse of percentileToX, for axis labels. */
export function xToPercentile(x: number): number {
  return 100 - 100 / 10 ** x;
}

/**
 * A chart's numbers table as text (the page's and, as intervals arrive, the live script's): a
 * heading per column with its unit, and a row per x value.
 */
export function numbersTable(c: ChartSpec): { head: string[]; rows: string[][] } {
  const xText = (v: number, i: number): string =>
    c.x.categories?.[i] ?? (c.x.percentile ? `${xToPercentile(v).toFixed(3)}%` : String(v));
  const cell = (v: number | null): string =>
    v === null ? '–' : Math.abs(v) >= 100 ? twoDecimals(v) : millis(v);
  return {
    head: [c.x.label, ...c.series.map((s) => `${s.label} (${s.axis === 'y2' ? c.y2?.label : c.y.label})`)],
    rows: c.x.values.map((v, i) => [xText(v, i), ...c.series.map((s) => cell(s.values[i] ?? null))]),
  };
}

/** What the numbers toggle says it holds. */
export const numbersSummary = (c: ChartSpec): string =>
  `numbers (${c.series.length} series × ${c.x.values.length} points)`;

/**
 * The noise of a run's headline figures: a 95% confidence interval for each, from the measured
 * window's own intervals by batch means (confidence.ts). Pure, so the arithmetic is unit-tested.
 *
 * Each figure is taken once per interval (TPS, the workload's interval figures such as TPC-C's
 * New-Orders per minute, each type's and all types' average and p99 response time, each disk's
 * read and write latency per I/O) and the interval of that series' mean is what run.json keeps as
 * `summary.ci95`. A p99 is a percentile of each interval: the interval of the mean of per-interval
 * p99s stands in for the uncertainty of the window's p99, an approximation (a percentile of the
 * whole window is not the mean of the intervals' percentiles), good enough to say whether two
 * runs' tails differ beyond noise.
 */
import { batchMeansInterval, MIN_BATCHES } from './confidence.js';

/** One figure's 95% interval: `mean ± halfWidth`, over `n` batches of `batchSize` intervals. */
export interface FigureInterval {
  /** The mean of the per-interval values (close to, not always equal to, the window's figure). */
  mean: number;
  /** null with fewer than MIN_BATCHES intervals: too few to say. */
  halfWidth: number | null;
  n: number;
  batchSize: number;
}

export interface LatencyIntervals {
  avg: FigureInterval | null;
  p99: FigureInterval | null;
}

export interface DeviceLatencyIntervals {
  name: string;
  role: string;
  readLatencyMs: FigureInterval | null;
  writeLatencyMs: FigureInterval | null;
}

export interface WindowNoise {
  method: 'batch-means';
  /** The measured intervals the figures rest on (a sliver at the window's end left out). */
  intervals: number;
  tps: FigureInterval | null;
  /** The workload's interval figures by key (TPC-C: `tpmC`, New-Orders per minute). */
  figures: Record<string, FigureInterval>;
  /** All types together. */
  responseMs: LatencyIntervals;
  /** Each type, by key. */
  transactions: Record<string, LatencyIntervals>;
  devices: DeviceLatencyIntervals[];
}

/** One measured interval as intervals.ndjson has it (the fields read here; the rest ignored). */
export interface NoiseInterval {
  seconds: number;
  tps: number;
  perType?: Record<string, { count: number; avgMs?: number | undefined; p99Ms?: number | undefined }>;
  /** All types together over the interval (newer files only). */
  responseMs?: { avg: number; p99: number } | undefined;
  devices?:
    | readonly { name: string; role: string; readLatencyMs: number | null; writeLatencyMs: number | null }[]
    | undefined;
  [figure: string]: unknown;
}

/** Fields of an interval that are not workload figures. */
const NOT_FIGURES: ReadonlySet<string> = new Set(['atS', 'seconds', 'tps', 'phase', 'target']);

/**
 * The 95% intervals of a window's figures from its measured intervals. An interval shorter than
 * half the longest (the sliver a phase change cuts off) is left out: its rates over a few
 * milliseconds would be noise of their own. `figureKeys`: the workload's interval figures to cover.
 */
export function windowNoise(measured: readonly NoiseInterval[], figureKeys: readonly string[]): WindowNoise {
  const longest = Math.max(0, ...measured.map((i) => i.seconds));
  const rows = measured.filter((i) => i.seconds > 0 && i.seconds >= longest / 2);
  const of = (value: (i: NoiseInterval) => number | null | undefined): FigureInterval | null =>
    intervalOf(rows.map(value).filter((v): v is number => typeof v === 'number' && Number.isFinite(v)));
  const figures: Record<string, FigureInterval> = {};
  for (const key of figureKeys.filter((k) => !NOT_FIGURES.has(k))) {
    const ci = of((i) => (typeof i[key] === 'number' ? i[key] : null));
    if (ci !== null) figures[key] = ci;
  }
  const types = [...new Set(rows.flatMap((i) => Object.keys(i.perType ?? {})))];
  const transactions: Record<string, LatencyIntervals> = {};
  for (const type of types) {
    // An interval in which the type completed nothing has no response time (its 0 is not one).
    const busy = (
      i: NoiseInterval,
    ): { avgMs?: number | undefined; p99Ms?: number | undefined } | undefined => {
      const t = i.perType?.[type];
      return t !== undefined && t.count > 0 ? t : undefined;
    };
    transactions[type] = { avg: of((i) => busy(i)?.avgMs), p99: of((i) => busy(i)?.p99Ms) };
  }
  const names = new Map<string, string>();
  for (const i of rows) for (const d of i.devices ?? []) if (!names.has(d.name)) names.set(d.name, d.role);
  const device = (
    name: string,
    i: NoiseInterval,
  ): NonNullable<NoiseInterval['devices']>[number] | undefined => i.devices?.find((d) => d.name === name);
  return {
    method: 'batch-means',
    intervals: rows.length,
    tps: of((i) => i.tps),
    figures,
    responseMs: {
      avg: of((i) => i.responseMs?.avg ?? weightedAvgMs(i)),
      p99: of((i) => (hasTraffic(i) ? i.responseMs?.p99 : null)),
    },
    transactions,
    devices: [...names].map(([name, role]) => ({
      name,
      role,
      readLatencyMs: of((i) => device(name, i)?.readLatencyMs),
      writeLatencyMs: of((i) => device(name, i)?.writeLatencyMs),
    })),
  };
}

const hasTraffic = (i: NoiseInterval): boolean => Object.values(i.perType ?? {}).some((t) => t.count > 0);

/** All types' average over an interval from each type's (files without the interval's own). */
function weightedAvgMs(i: NoiseInterval): number | null {
  let count = 0;
  let sum = 0;
  for (const t of Object.values(i.perType ?? {})) {
    if (t.count === 0 || t.avgMs === undefined) continue;
    count += t.count;
    sum += t.count * t.avgMs;
  }
  return count > 0 ? sum / count : null;
}

const round = (x: number): number => Number(x.toPrecision(4));

/** null for no values at all; a null half width for fewer than MIN_BATCHES. */
function intervalOf(values: readonly number[]): FigureInterval | null {
  if (values.length === 0) return null;
  const ci = batchMeansInterval(values);
  // A constant series' variance comes out as rounding dust (1e-17), not as noise.
  const dust = 1e-9 * Math.abs(ci.mean);
  return {
    mean: round(ci.mean),
    halfWidth:
      ci.halfWidth === null || values.length < MIN_BATCHES
        ? null
        : ci.halfWidth <= dust
          ? 0
          : round(ci.halfWidth),
    n: ci.n,
    batchSize: ci.batchSize,
  };
}

/**
 * Merging the figures of engines that each drove one slice of a run's terminals (worker threads,
 * shards) into the figures of the whole run, exactly: counts and counters summed, histograms added
 * (percentiles are read again from the sum, never averaged), drain reports and outages combined.
 */
import { newHistogram, type Histogram } from '../metrics/histogram.js';
import { mergeDrain } from './drain.js';
import {
  intervalTypeStats,
  type EngineResult,
  type IntervalTypeStats,
  type RunStatus,
  type TypeStats,
} from './engine-result.js';
import type { Outage, OutageEdge } from './outages.js';
import { emptyErrorCounts, ERROR_CLASSES, type Counters, type ErrorClass } from './types.js';

/** One slice's share of an interval: what a worker's engine counted since its previous one. */
export interface IntervalPart {
  perType: readonly { count: number; errors: number }[];
  /** Each type's response times (µs). */
  histograms: readonly Histogram[];
  errorsByClass: Readonly<Record<ErrorClass, number>>;
}

/** Several slices' intervals as one: counts summed, histograms added, percentiles read from the sum. */
export function mergeIntervalParts(
  parts: readonly IntervalPart[],
  types: number,
): { perType: IntervalTypeStats[]; histograms: Histogram[]; errorsByClass: Record<ErrorClass, number> } {
  const histograms = Array.from({ length: types }, () => newHistogram());
  const counts = new Array<number>(types).fill(0);
  const errors = new Array<number>(types).fill(0);
  parts.forEach((part, i) => {
    for (let t = 0; t < types; t++) {
      const count = part.perType[t]?.count ?? 0;
      counts[t]! += count;
      errors[t]! += part.perType[t]?.errors ?? 0;
      addSlice(histograms[t]!, part.histograms[t], count, i, t);
    }
  });
  return {
    perType: histograms.map((h, t) => intervalTypeStats(counts[t]!, errors[t]!, h)),
    histograms,
    errorsByClass: sumErrorCounts(parts.map((p) => p.errorsByClass)),
  };
}

export function sumErrorCounts(
  list: readonly Readonly<Record<ErrorClass, number>>[],
): Record<ErrorClass, number> {
  const out = emptyErrorCounts();
  for (const e of list) for (const cls of ERROR_CLASSES) out[cls] += e[cls] ?? 0;
  return out;
}

/** Named tallies summed by key (every key of every part kept). */
export function sumCounters<C extends Counters>(list: readonly C[], zero: C): C {
  const out = { ...zero };
  for (const c of list) for (const [k, v] of Object.entries(c)) (out as Counters)[k] = (out[k] ?? 0) + v;
  return out;
}

export function mergeTypeStats(lists: readonly (readonly TypeStats[])[], types: number): TypeStats[] {
  return Array.from({ length: types }, (_, t) => {
    const merged: TypeStats = { count: 0, errors: 0, retries: 0, histogram: newHistogram() };
    lists.forEach((list, i) => {
      const s = list[t];
      if (s === undefined) return;
      merged.count += s.count;
      merged.errors += s.errors;
      merged.retries += s.retries;
      addSlice(merged.histogram, s.histogram, s.count, i, t);
    });
    return merged;
  });
}

/**
 * Adds one slice's histogram of one type into the merged one. A slice's histogram holds one
 * response time per transaction it counted; one that does not (missing, or another total) would
 * keep the slice's counts in the merged figures and leave its response times out of the merged
 * percentiles, silently: that is a broken slice, and the merge fails on it instead.
 */
function addSlice(
  into: Histogram,
  h: Histogram | undefined,
  count: number,
  slice: number,
  type: number,
): void {
  const held = h?.totalCount ?? 0;
  if (held !== count) {
    throw new Error(
      `slice ${slice + 1}'s histogram of transaction type ${type + 1} holds ${held} response times for ${count} transactions; its response times would drop out of the merged percentiles`,
    );
  }
  if (held > 0) into.add(h!);
}

/**
 * Every slice's outages on one clock, overlapping stretches joined into one: the database was out
 * for the run as long as any slice saw it out. `offsetS` moves a slice's times onto the run's
 * clock (its engine started that many seconds after the run's origin).
 */
export function mergeOutages(slices: readonly { outages: readonly Outage[]; offsetS: number }[]): Outage[] {
  const all = slices
    .flatMap((s) => s.outages.map((o) => onRunClock(o, s.offsetS)))
    .sort((a, b) => a.startS - b.startS);
  const merged: Outage[] = [];
  let endAt = -Infinity;
  for (const o of all) {
    const last = merged[merged.length - 1];
    const oEnd = o.startS + o.durationS;
    if (last === undefined || o.startS > endAt) {
      merged.push(o);
      endAt = oEnd;
      continue;
    }
    endAt = absorb(last, o, endAt);
  }
  return merged;
}

/** A slice's outage on the run's clock (a copy): the slice's engine started `offsetS` seconds after the run's origin. */
export function onRunClock(o: Outage, offsetS: number): Outage {
  return {
    ...o,
    startS: round3(o.startS + offsetS),
    endS: o.endS === null ? null : round3(o.endS + offsetS),
    failedByClass: { ...o.failedByClass },
  };
}

/** Adds `o` into the joined outage `into`, which so far ends at `endAt`; returns where it ends now. */
function absorb(into: Outage, o: Outage, endAt: number): number {
  const end = Math.max(endAt, o.startS + o.durationS);
  into.failed += o.failed;
  for (const cls of ERROR_CLASSES) into.failedByClass[cls] += o.failedByClass[cls];
  into.recovered = into.recovered && o.recovered;
  into.durationS = round3(end - into.startS);
  into.endS = into.recovered ? round3(end) : null;
  return end;
}

/**
 * The run's outages as they happen, from its slices' edges as each slice tells them: the run is
 * out from a slice's outage opening while no other is open to the last open one ending, as
 * `mergeOutages` joins them afterwards (overlapping stretches are one outage).
 */
export class LiveOutages {
  private readonly open = new Set<number>();
  /** The slices' outages that ended within the stretch open now. */
  private ended: Outage[] = [];

  /** Slice `slice`'s outage at `edge`, on the run's clock: the run's own edge when it makes one. */
  note(slice: number, edge: OutageEdge, outage: Outage): Outage | undefined {
    if (edge === 'start') {
      if (this.open.has(slice)) return undefined;
      this.open.add(slice);
      if (this.open.size > 1) return undefined;
      this.ended = [];
      return outage;
    }
    if (!this.open.delete(slice)) return undefined;
    this.ended.push(outage);
    if (this.open.size > 0) return undefined;
    const [first, ...rest] = [...this.ended].sort((a, b) => a.startS - b.startS);
    const joined = { ...first!, failedByClass: { ...first!.failedByClass } };
    let endAt = joined.startS + joined.durationS;
    for (const o of rest) endAt = absorb(joined, o, endAt);
    return joined;
  }
}

/** How the whole run ended: the gravest of its slices' endings. */
export function mergeStatus(statuses: readonly RunStatus[]): RunStatus {
  for (const s of ['failed', 'interrupted', 'incomplete-drain'] as const) if (statuses.includes(s)) return s;
  return 'completed';
}

/** The slices' results as the whole run's, over the window the coordinator kept. */
export function mergeResults<C extends Counters>(
  parts: readonly EngineResult<C>[],
  types: number,
  zero: C,
  windowSeconds: number,
  outageOffsetsS: readonly number[],
): EngineResult<C> {
  const lateness = newHistogram();
  for (const p of parts) if (p.lateness.totalCount > 0) lateness.add(p.lateness);
  const measured = parts.some((p) => p.measured);
  return {
    status: mergeStatus(parts.map((p) => p.status)),
    windowSeconds: measured ? windowSeconds : 0,
    measured,
    perType: mergeTypeStats(
      parts.map((p) => p.perType),
      types,
    ),
    errorsByClass: sumErrorCounts(parts.map((p) => p.errorsByClass)),
    counters: sumCounters(
      parts.map((p) => p.counters),
      zero,
    ),
    lateness,
    drain: mergeDrain(parts.map((p) => p.drain)),
    edges: {
      dueBefore: parts.reduce((a, p) => a + p.edges.dueBefore, 0),
      drained: parts.reduce((a, p) => a + p.edges.drained, 0),
    },
    outages: mergeOutages(parts.map((p, i) => ({ outages: p.outages, offsetS: outageOffsetsS[i] ?? 0 }))),
    failure: parts.find((p) => p.failure !== undefined)?.failure,
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

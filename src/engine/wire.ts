/**
 * An engine's interval and result as plain data that crosses a thread or process boundary
 * (structured clone, JSON): histograms travel encoded and are decoded on the other side.
 */
import { decodeHistogram, encodeHistogram } from '../metrics/histogram.js';
import type { EngineResult, IntervalStats } from './engine-result.js';
import type { IntervalPart } from './merge.js';
import type { Counters } from './types.js';

export interface WireInterval {
  perType: { count: number; errors: number }[];
  histograms: string[];
  errorsByClass: IntervalStats['errorsByClass'];
}

export type WireResult<C extends Counters> = Omit<EngineResult<C>, 'perType' | 'lateness'> & {
  perType: { count: number; errors: number; retries: number; histogram: string }[];
  lateness: string;
};

export function encodeInterval(stats: IntervalStats): WireInterval {
  return {
    perType: stats.perType.map((t) => ({ count: t.count, errors: t.errors })),
    histograms: stats.histograms.map((h) => encodeHistogram(h)),
    errorsByClass: { ...stats.errorsByClass },
  };
}

export function decodeInterval(wire: WireInterval): IntervalPart {
  return { ...wire, histograms: wire.histograms.map((h) => decodeHistogram(h)) };
}

export function encodeResult<C extends Counters>(result: EngineResult<C>): WireResult<C> {
  return {
    ...result,
    perType: result.perType.map((t) => ({ ...t, histogram: encodeHistogram(t.histogram) })),
    lateness: encodeHistogram(result.lateness),
  };
}

export function decodeResult<C extends Counters>(wire: WireResult<C>): EngineResult<C> {
  return {
    ...wire,
    perType: wire.perType.map((t) => ({ ...t, histogram: decodeHistogram(t.histogram) })),
    lateness: decodeHistogram(wire.lateness),
  };
}

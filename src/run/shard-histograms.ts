/**
 * A shard's response-time histograms as `txbench merge` adds them: each transaction type's
 * histogram stands for that type's transactions only when it holds exactly as many response times
 * as the shard counted. One that is missing, unreadable or holds another number is a gap: adding
 * the shard's counts but not its response times would leave it out of the merged percentiles.
 */
import { decodeHistogram, type Histogram } from '../metrics/histogram.js';
import type { RunReport } from '../results/run-file.js';

/** A shard as read: where from, its report, why its histograms could not be read. */
interface ShardSource {
  dir: string;
  report: RunReport;
  histogramsUnread?: string | undefined;
}

/** One shard's transaction type whose histogram cannot stand for its transactions. */
export interface HistogramGap {
  /** Shard number (1-based). */
  shard: number;
  dir: string;
  /** Transaction type key and name. */
  key: string;
  name: string;
  /** Transactions the shard counted of this type in its window. */
  count: number;
  /** What is wrong, e.g. `no histograms.json`, `its Payment histogram holds 12 response times`. */
  why: string;
}

/** The shard's histograms that hold every transaction they stand for, and the gaps. */
export function readShardHistograms(shard: ShardSource): {
  histograms: Map<string, Histogram>;
  gaps: HistogramGap[];
} {
  const histograms = new Map<string, Histogram>();
  const gaps: HistogramGap[] = [];
  for (const [key, t] of Object.entries(shard.report.transactions ?? {})) {
    const gap = (why: string): void => {
      gaps.push({
        shard: shard.report.config.shard?.index ?? 0,
        dir: shard.dir,
        key,
        name: t.name,
        count: t.count,
        why,
      });
    };
    const encoded = shard.report.histograms?.[key];
    if (encoded === undefined) {
      if (t.count > 0) gap(shard.histogramsUnread ?? `it has no ${t.name} histogram`);
      continue;
    }
    let h: Histogram;
    try {
      h = decodeHistogram(encoded);
    } catch {
      gap(`its ${t.name} histogram is unreadable`);
      continue;
    }
    if (h.totalCount !== t.count) {
      gap(`its ${t.name} histogram holds ${h.totalCount} response times`);
      continue;
    }
    histograms.set(key, h);
  }
  return { histograms, gaps };
}

export function histogramGaps(shard: ShardSource): HistogramGap[] {
  return readShardHistograms(shard).gaps;
}

/**
 * The figures of a run that was killed before it wrote its summary (SIGKILL, a power cut), from
 * what it flushed to intervals.ndjson: its measured intervals up to the last one. Throughput and
 * the New-Order rate are exact over those intervals; response times come from each interval's
 * per-type figures, so the average is weighted by count and p90/p99 are the worst interval's
 * (an upper bound: percentiles of intervals cannot be merged without the histograms).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const INTERVALS_FILE = 'intervals.ndjson';

interface TypeFigures {
  count?: unknown;
  avgMs?: unknown;
  p90Ms?: unknown;
  p99Ms?: unknown;
}

/** A crashed run's summary, in run.json's summary shape plus where it came from. */
export interface CrashedSummary {
  tps: number;
  tpmC: number | null;
  responseMs: { avg: number; p90: number; p99: number };
  /** Where these figures come from: the measured intervals flushed before the crash. */
  fromIntervals: { intervals: number; seconds: number; lastAtS: number };
}

const num = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0);

/** Sums the measured intervals of `runDir`'s intervals.ndjson; undefined when it has none. */
export async function summaryFromIntervals(runDir: string): Promise<CrashedSummary | undefined> {
  const text = await readFile(path.join(runDir, INTERVALS_FILE), 'utf8').catch(() => '');
  let seconds = 0;
  let transactions = 0;
  let newOrderRateSum = 0;
  let hasRate = false;
  let count = 0;
  let weightedAvg = 0;
  let p90 = 0;
  let p99 = 0;
  let intervals = 0;
  let lastAtS = 0;
  for (const line of text.split('\n')) {
    let row: Record<string, unknown>;
    try {
      row = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // an empty line, or the last one cut short by the crash
    }
    // A run on several targets writes a row per target: the sum over them is not one run's.
    if (row.phase !== 'measure' || row.target !== undefined) continue;
    const s = num(row.seconds);
    if (s <= 0) continue;
    intervals++;
    seconds += s;
    transactions += num(row.tps) * s;
    lastAtS = Math.max(lastAtS, num(row.atS));
    if (typeof row.tpmC === 'number') {
      hasRate = true;
      newOrderRateSum += row.tpmC * s;
    }
    const perType = (row.perType ?? {}) as Record<string, TypeFigures>;
    for (const t of Object.values(perType)) {
      const c = num(t.count);
      if (c === 0) continue;
      count += c;
      weightedAvg += num(t.avgMs) * c;
      p90 = Math.max(p90, num(t.p90Ms));
      p99 = Math.max(p99, num(t.p99Ms));
    }
  }
  if (intervals === 0) return undefined;
  return {
    tps: transactions / seconds,
    tpmC: hasRate ? newOrderRateSum / seconds : null,
    responseMs: { avg: count > 0 ? weightedAvg / count : 0, p90, p99 },
    fromIntervals: { intervals, seconds, lastAtS },
  };
}

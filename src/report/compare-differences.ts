/**
 * Each row of a comparison against the first (the baseline): the difference of each headline
 * figure with its 95% interval and its verdict, as lines of a table and as one line over it.
 */
import type { CompareRow, HeadlineKey } from './compare-rows.js';
import { HEADLINE_FIGURES } from './compare-rows.js';
import { millis, twoDecimals, whole } from './numbers.js';
import { difference, noNoiseLine, type Difference } from './verdict.js';

/** Each row against the baseline: the difference of each headline figure, with its verdict. */
export interface RowDifferences {
  row: CompareRow;
  differences: Record<HeadlineKey, Difference>;
}

/**
 * Every row but the first against the first (the baseline): with the default sort, the highest
 * TPS, as hyperfine compares every command with the fastest.
 */
export function differencesFromFirst(rows: readonly CompareRow[]): RowDifferences[] {
  const [baseline, ...others] = rows;
  if (baseline === undefined) return [];
  return others.map((row) => {
    const differences = {} as Record<HeadlineKey, Difference>;
    for (const f of HEADLINE_FIGURES) {
      differences[f.key] = difference(
        { value: row[f.key], halfWidth: row.noise[f.key] },
        { value: baseline[f.key], halfWidth: baseline.noise[f.key] },
        f.higherIsFaster,
      );
    }
    return { row, differences };
  });
}

/**
 * The line over the table when the rows differ only by noise on some headline figures (a figure
 * none of the rows has, such as a sysbench run's New-Order rate, is left out); undefined otherwise.
 */
export function noiseSummaryLine(rows: readonly CompareRow[]): string | undefined {
  const diffs = differencesFromFirst(rows);
  return noNoiseLine(
    HEADLINE_FIGURES.filter((f) => diffs.some((d) => d.differences[f.key].delta !== null)).map((f) => ({
      name: f.name,
      verdicts: diffs.map((d) => d.differences[f.key].verdict),
    })),
  );
}

/** `+12.30 ± 4.10`: a difference as the tables show it (`n/a` without one). */
export function formatDifference(d: Difference, format: (x: number) => string): string {
  if (d.delta === null) return 'n/a';
  const signed = `${d.delta > 0 ? '+' : d.delta < 0 ? '−' : '±'}${format(Math.abs(d.delta))}`;
  return d.halfWidth === null ? signed : `${signed} ± ${format(d.halfWidth)}`;
}

const FORMAT_OF: Record<HeadlineKey, (x: number) => string> = {
  tps: twoDecimals,
  tpmC: whole,
  avgMs: millis,
  p99Ms: millis,
};

export interface DifferenceLine {
  label: string;
  figure: string;
  difference: string;
  verdict: string;
}

export function differenceLines(rows: readonly CompareRow[]): DifferenceLine[] {
  return differencesFromFirst(rows).flatMap(({ row, differences }) =>
    HEADLINE_FIGURES.filter((f) => differences[f.key].delta !== null || row[f.key] !== null).map((f) => ({
      label: row.label,
      figure: f.name,
      difference: formatDifference(differences[f.key], FORMAT_OF[f.key]),
      verdict: differences[f.key].verdict,
    })),
  );
}

/** The title of the differences table: what each row was set against, and how. */
export function differencesTitle(rows: readonly CompareRow[]): string {
  return (
    `Difference from the first row (${rows[0]?.label ?? ''}), with its 95% interval ` +
    `(sqrt(h1² + h2²) of each run's batch-means half widths); "faster" for a response time is lower:`
  );
}

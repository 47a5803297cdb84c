/**
 * From run directories to the HTML report: reads them, lays out each run's part and, for several
 * runs, the comparison (and the cost table when costs are given).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { differenceLines, differencesTitle, noiseSummaryLine } from '../compare-differences.js';
import { compareRuns } from '../compare-rows.js';
import type { CompareRow } from '../compare-rows.js';
import { costRows, type CostEntry } from '../cost.js';
import { MIN_BATCHES } from '../../metrics/confidence.js';
import { comparisonChart } from './charts.js';
import { loadRunDir, type LoadedRun } from './load.js';
import { renderReportHtml, type RenderOptions, type ReportInput } from './page.js';
import { runSection } from './sections.js';

export const REPORT_FILE = 'report.html';

export function reportInput(runs: readonly LoadedRun[], costs?: ReadonlyMap<string, CostEntry>): ReportInput {
  const records = runs.flatMap((r) => (r.record ? [r.record] : []));
  const comparison = compareRuns(records);
  // One run's own rows (its steps, targets or values) are in its section already.
  const shown = (runs.length > 1 && comparison.rows.length > 1) || costs !== undefined;
  const title = runs.length === 1 ? `txbench report: ${runs[0]!.id}` : `txbench report: ${runs.length} runs`;
  return {
    title,
    sections: runs.map(runSection),
    comparison: shown
      ? {
          rows: comparison.rows,
          warnings: [...comparison.warnings, ...withoutNoise(comparison.rows)],
          noise: noiseSummaryLine(comparison.rows),
          differences: {
            title: differencesTitle(comparison.rows),
            columns: ['label', 'figure', 'difference (95% CI)', 'verdict'],
            rows: differenceLines(comparison.rows).map((l) => [l.label, l.figure, l.difference, l.verdict]),
          },
          chart: comparisonChart(
            'comparison-chart',
            comparison.rows.map((r) => ({
              // The comparison names a run already when two rows share a label.
              label: r.label.includes(r.run) ? r.label : `${r.label} (${r.run})`,
              tps: r.tps,
              avgMs: r.avgMs,
            })),
          ),
        }
      : undefined,
    cost: costs === undefined ? undefined : costRows(comparison.rows, costs),
    disclaimers: disclaimersOf(runs),
    generatedAt: new Date().toISOString(),
  };
}

/**
 * Rows without a ± have "n/a" for every verdict. Say why, once: a short window measured over a
 * long interval (a plan scaled down to minutes) is the usual cause, and a flag is the remedy; a
 * sum over several targets has none of its own (its targets' rows have theirs).
 */
function withoutNoise(rows: readonly CompareRow[]): string[] {
  if (rows.length < 2) return [];
  const none = rows.filter((r) => r.noise.tps === null);
  const sums = none.filter((r) => r.costLabels.length > 1).map((r) => r.label);
  const others = none.filter((r) => r.costLabels.length <= 1).map((r) => r.label);
  return [
    ...(others.length === 0
      ? []
      : [
          `no 95% interval for ${someOf(others)}: a window of fewer than ${MIN_BATCHES} measured intervals (or a run.json from before intervals were kept) has none, so its verdicts are n/a; measure over ${MIN_BATCHES} intervals or more (a shorter --interval, or a longer --duration)`,
        ]),
    ...(sums.length === 0
      ? []
      : [
          `no 95% interval for ${someOf(sums)}: a sum over several targets has none of its own (each target's row has its own), so its verdicts are n/a`,
        ]),
  ];
}

/** Up to three labels, then how many more. */
function someOf(labels: readonly string[]): string {
  return labels.length > 3
    ? `${labels.slice(0, 3).join(', ')} and ${labels.length - 3} more`
    : labels.join(', ');
}

/** Files written before run.json carried a disclaimer were all of the TPC-C-derived workload. */
const LEGACY_DISCLAIMER =
  'The workload is derived from TPC-C and is not comparable with published TPC-C results.';

/** Each run's workload disclaimer, each distinct one once, in the order of the runs. */
function disclaimersOf(runs: readonly LoadedRun[]): string[] {
  const said = runs.map((r) => {
    const d = r.raw?.disclaimer;
    return typeof d === 'string' && d.trim() !== '' ? d.trim() : LEGACY_DISCLAIMER;
  });
  return [...new Set(said)];
}

/** Writes `report.html` into a run directory (at the end of a run); returns its path. */
export async function writeRunDirReport(dir: string, options?: RenderOptions): Promise<string> {
  const run = await loadRunDir(dir);
  const file = path.join(dir, REPORT_FILE);
  await writeFile(file, renderReportHtml(reportInput([run]), options));
  return file;
}

/**
 * The reviewers' table across runs: label | TPS | avg response ms | tpmC | p90 ms | p99 ms.
 *
 * A single run is one row labelled with its target (config.target). Later run shapes (issue 6)
 * give several rows: `steps` one per step (`label @ N users`), `sweep` one per value
 * (`label @ setting=value`), `targets` one per target plus the aggregate (`label (sum)`).
 */
import type { RunRecord, SummaryFigures } from '../results/store.js';
import { millis, orNa, twoDecimals, whole } from './numbers.js';
import { formatTable, type Column, type TableFormat } from './table.js';

export interface CompareRow {
  /** What the table shows. */
  label: string;
  /** The labels in a costs file whose drives this row's figures were measured on (added up). */
  costLabels: string[];
  /** The run directory's id. */
  run: string;
  tps: number;
  tpmC: number | null;
  avgMs: number;
  p90Ms: number;
  p99Ms: number;
}

export type SortKey = 'tps' | 'tpmC' | 'avg' | 'label';
export const SORT_KEYS: readonly SortKey[] = ['tps', 'tpmC', 'avg', 'label'];

export interface Comparison {
  rows: CompareRow[];
  /** Runs that gave no row, one line each. */
  notes: string[];
}

export function compareRuns(runs: readonly RunRecord[], sort: SortKey = 'tps'): Comparison {
  const rows: CompareRow[] = [];
  const notes: string[] = [];
  for (const run of runs) {
    const runRows = rowsFromRun(run);
    if (runRows.length === 0) notes.push(`${run.id}: no summary in its run.json (nothing was measured?)`);
    rows.push(...runRows);
  }
  return { rows: disambiguate(sortRows(rows, sort)), notes };
}

export function rowsFromRun(run: RunRecord): CompareRow[] {
  const label = run.label || run.id;
  const row = (shown: string, costLabels: string[], s: SummaryFigures): CompareRow => ({
    label: shown,
    costLabels,
    run: run.id,
    tps: s.tps,
    tpmC: s.tpmC ?? null,
    avgMs: s.responseMs.avg,
    p90Ms: s.responseMs.p90,
    p99Ms: s.responseMs.p99,
  });
  if (run.steps?.length) {
    return run.steps.map((s) =>
      row(`${label} @ ${s.users} user${s.users === 1 ? '' : 's'}`, [label], s.summary),
    );
  }
  if (run.sweep?.length) {
    return run.sweep.map((s) => row(`${label} @ ${s.setting}=${String(s.value)}`, [label], s.summary));
  }
  if (run.targets?.length) {
    const targets = run.targets.map((t) => row(t.label, [t.label], t.summary));
    if (run.summary === undefined) return targets;
    const all = run.targets.map((t) => t.label);
    return [...targets, row(`${label} (sum)`, all, run.summary)];
  }
  return run.summary === undefined ? [] : [row(label, [label], run.summary)];
}

/** TPS and tpmC highest first, response time lowest first, labels A-Z (numbers in order). */
export function sortRows(rows: readonly CompareRow[], key: SortKey): CompareRow[] {
  const byLabel = (a: CompareRow, b: CompareRow): number =>
    a.label.localeCompare(b.label, 'en', { numeric: true }) || a.run.localeCompare(b.run);
  const primary: Record<SortKey, (a: CompareRow, b: CompareRow) => number> = {
    tps: (a, b) => b.tps - a.tps,
    tpmC: (a, b) => (b.tpmC ?? -Infinity) - (a.tpmC ?? -Infinity) || 0,
    avg: (a, b) => a.avgMs - b.avgMs,
    label: () => 0,
  };
  return [...rows].sort((a, b) => primary[key](a, b) || byLabel(a, b));
}

/** The same label from different runs: each gets its run id, so every row says which run it is. */
function disambiguate(rows: CompareRow[]): CompareRow[] {
  const runsPerLabel = new Map<string, Set<string>>();
  for (const r of rows) runsPerLabel.set(r.label, (runsPerLabel.get(r.label) ?? new Set()).add(r.run));
  return rows.map((r) =>
    (runsPerLabel.get(r.label)?.size ?? 0) > 1 ? { ...r, label: `${r.label} (${r.run})` } : r,
  );
}

export const COMPARE_COLUMNS: readonly Column<CompareRow>[] = [
  { header: 'label', align: 'left', text: (r) => r.label },
  { header: 'TPS', align: 'right', text: (r) => twoDecimals(r.tps), csv: (r) => r.tps },
  { header: 'avg response ms', align: 'right', text: (r) => millis(r.avgMs), csv: (r) => r.avgMs },
  { header: 'tpmC', align: 'right', text: (r) => orNa(r.tpmC, whole), csv: (r) => r.tpmC },
  { header: 'p90 ms', align: 'right', text: (r) => millis(r.p90Ms), csv: (r) => r.p90Ms },
  { header: 'p99 ms', align: 'right', text: (r) => millis(r.p99Ms), csv: (r) => r.p99Ms },
];

/** CSV carries the run id too, so a script can find each row's run. */
const RUN_COLUMN: Column<CompareRow> = { header: 'run', align: 'left', text: (r) => r.run };

export function formatComparison(rows: readonly CompareRow[], format: TableFormat): string {
  const columns = format === 'csv' ? [...COMPARE_COLUMNS, RUN_COLUMN] : COMPARE_COLUMNS;
  return formatTable(columns, rows, format);
}

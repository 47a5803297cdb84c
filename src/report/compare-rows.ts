/**
 * The rows of the reviewers' table across runs (compare.ts formats them), and a warning for each
 * condition the rows were measured under that differs.
 *
 * A single run is one row labelled with its target (config.target). The other kinds give several
 * rows: `steps` one per step (`label @ N users`), `sweep` one per value (`label @ setting=value`),
 * `targets` one per target plus the aggregate (`label (sum)`). Each row carries its own status and
 * conditions (from its nested report). The New-Order rate sits under `tpmC` only for the rows
 * where it is tpmC (new-order-rate.ts); other rows have it in a column that says what it is.
 */
import { formatDuration } from '../config/duration.js';
import { conditionsOf, sumConditions, type RowConditions } from './conditions.js';
import { deviceTotals, distinctDevices, type DeviceRates, type DeviceTotals } from './device-totals.js';
import type { RunRecord, StoredEntryReport, SummaryFigures } from '../results/store.js';
import { figuresOf } from '../results/figures.js';

export type { RowConditions };

export interface CompareRow {
  /** What the table shows. */
  label: string;
  /** The labels in a costs file whose drives this row's figures were measured on (added up). */
  costLabels: string[];
  /** The run directory's id. */
  run: string;
  /** completed, interrupted, failed, incomplete-drain (or running, for a run still going). */
  status: string;
  conditions: RowConditions;
  tps: number;
  /** New-Orders per minute (run.json's `tpmC`), whether or not it is tpmC; null for other workloads. */
  tpmC: number | null;
  /**
   * The workload's other headline figures (sysbench: QPS, reads, writes, other per second), best
   * first; TPC-C's New-Order rate and NOPM are not among them (the rate has its own column).
   */
  figures: readonly OtherFigure[];
  avgMs: number;
  p90Ms: number;
  p99Ms: number;
  /** The row's disks over its window, together; null (n/a) without device figures. */
  device: DeviceTotals | null;
  /** The 95% half widths of the headline figures (summary.ci95); null where the run has none. */
  noise: Record<HeadlineKey, number | null>;
}

/** The figures every comparison gives a verdict on. */
export type HeadlineKey = 'tps' | 'tpmC' | 'avgMs' | 'p99Ms';

/** Each headline figure: how the verdicts name it, and whether more of it is faster. */
export const HEADLINE_FIGURES: readonly { key: HeadlineKey; name: string; higherIsFaster: boolean }[] = [
  { key: 'tps', name: 'TPS', higherIsFaster: true },
  { key: 'tpmC', name: 'New-Order rate', higherIsFaster: true },
  { key: 'avgMs', name: 'avg response ms', higherIsFaster: false },
  { key: 'p99Ms', name: 'p99 response ms', higherIsFaster: false },
];

/** A headline figure beside TPS and the New-Order rate, as a column shows it. */
export interface OtherFigure {
  key: string;
  label: string;
  unit: string;
  value: number | null;
}

/** The New-Order rate and NOPM are TPC-C's: shown in the rate columns, or not at all. */
const RATE_KEYS: ReadonlySet<string> = new Set(['tpmC', 'nopm']);

export type SortKey = 'tps' | 'tpmC' | 'avg' | 'label';
export const SORT_KEYS: readonly SortKey[] = ['tps', 'tpmC', 'avg', 'label'];

export interface Comparison {
  rows: CompareRow[];
  /** Runs that gave no row, one line each. */
  notes: string[];
  /** One line per condition that differs between the rows (they may not be comparable). */
  warnings: string[];
}

export function compareRuns(runs: readonly RunRecord[], sort: SortKey = 'tps'): Comparison {
  const rows: CompareRow[] = [];
  const notes: string[] = [];
  for (const run of runs) {
    const runRows = rowsFromRun(run);
    if (runRows.length === 0) notes.push(`${run.id}: no summary in its run.json (nothing was measured?)`);
    const partial = crashedSpan(run);
    if (partial !== undefined && runRows.length > 0) {
      notes.push(
        `${run.id}: ${run.status} before its summary was written; its figures are its ${partial.intervals} measured intervals up to ${partial.lastAtS} s from intervals.ndjson (p90/p99: the worst interval's)`,
      );
    }
    rows.push(...runRows);
  }
  const shown = disambiguate(sortRows(rows, sort));
  return { rows: shown, notes, warnings: comparabilityWarnings(shown) };
}

/** What a crashed run's figures were read from (results/crashed.ts), if they were. */
function crashedSpan(run: RunRecord): { intervals: number; lastAtS: number } | undefined {
  const from = (run.summary as { fromIntervals?: { intervals: number; lastAtS: number } } | undefined)
    ?.fromIntervals;
  return from;
}

export function rowsFromRun(run: RunRecord): CompareRow[] {
  const label = run.label || run.id;
  const row = (
    shown: string,
    costLabels: string[],
    s: SummaryFigures,
    status: string,
    conditions: RowConditions,
    devices: readonly DeviceRates[] | undefined = s.devices,
  ): CompareRow => ({
    label: shown,
    costLabels,
    run: run.id,
    // A merge that lacks shards or their response times (summary.partial) says so on its row.
    status: s.partial === undefined ? status : `${status}, partial`,
    conditions,
    tps: s.tps,
    tpmC: s.tpmC ?? null,
    figures: figuresOf(s)
      .filter((f) => !RATE_KEYS.has(f.key))
      .map(({ key, label, unit, value }) => ({ key, label, unit, value })),
    avgMs: s.responseMs.avg,
    p90Ms: s.responseMs.p90,
    p99Ms: s.responseMs.p99,
    device: deviceTotals(devices),
    noise: noiseOf(s),
  });
  const ofEntry = (report: StoredEntryReport | undefined): [string, RowConditions] => [
    report?.status ?? run.status,
    conditionsOf(report?.config, report?.workload ?? run.workload),
  ];
  if (run.steps?.length) {
    return run.steps.map((s) =>
      row(`${label} @ ${s.users} user${s.users === 1 ? '' : 's'}`, [label], s.summary, ...ofEntry(s.report)),
    );
  }
  if (run.sweep?.length) {
    return run.sweep.map((s) =>
      row(`${label} @ ${s.setting}=${String(s.value)}`, [label], s.summary, ...ofEntry(s.report)),
    );
  }
  if (run.targets?.length) {
    const targets = run.targets.map((t) => row(t.label, [t.label], t.summary, ...ofEntry(t.report)));
    if (run.summary === undefined) return targets;
    const all = run.targets.map((t) => t.label);
    const sum = sumConditions(targets.map((t) => t.conditions));
    const devices = run.summary.devices ?? distinctDevices(run.targets.map((t) => t.summary));
    return [...targets, row(`${label} (sum)`, all, run.summary, run.status, sum, devices)];
  }
  return run.summary === undefined
    ? []
    : [row(label, [label], run.summary, run.status, conditionsOf(run.config, run.workload))];
}

/** A number at `path` in an object read from a file, else null (older files have no ci95). */
function numberAt(value: unknown, path: readonly string[]): number | null {
  let v = value;
  for (const key of path)
    v = typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[key] : undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function noiseOf(s: SummaryFigures): Record<HeadlineKey, number | null> {
  const ci = (s as { ci95?: unknown }).ci95;
  return {
    tps: numberAt(ci, ['tps', 'halfWidth']),
    tpmC: numberAt(ci, ['figures', 'tpmC', 'halfWidth']),
    avgMs: numberAt(ci, ['responseMs', 'avg', 'halfWidth']),
    p99Ms: numberAt(ci, ['responseMs', 'p99', 'halfWidth']),
  };
}

/** The conditions that make rows comparable, each shown as the warning names it. */
const CONDITIONS: readonly { name: string; value: (c: RowConditions) => string | undefined }[] = [
  { name: 'workload', value: (c) => c.workload },
  { name: 'warehouses', value: (c) => c.warehouses?.toString() },
  { name: 'terminals', value: (c) => c.terminals?.toString() },
  { name: 'think-scale', value: (c) => c.thinkScale?.toString() },
  { name: 'mode', value: (c) => c.mode },
  {
    name: 'window',
    value: (c) => (c.durationS === undefined ? undefined : formatDuration(c.durationS * 1000)),
  },
  { name: 'mix', value: (c) => c.deck?.join('/') },
];

/**
 * One line per condition on which the rows differ: each value with the rows measured under it
 * (a run.json that does not say counts as `unknown`, since it cannot be shown to match).
 */
export function comparabilityWarnings(rows: readonly CompareRow[]): string[] {
  const warnings: string[] = [];
  for (const condition of CONDITIONS) {
    const byValue = new Map<string, string[]>();
    for (const r of rows) {
      const value = condition.value(r.conditions) ?? 'unknown';
      byValue.set(value, [...(byValue.get(value) ?? []), r.label]);
    }
    if (byValue.size < 2) continue;
    const groups = [...byValue].map(([value, labels]) => `${value} (${someOf(labels)})`);
    warnings.push(`${condition.name} differs between rows: ${groups.join('; ')}; they may not be comparable`);
  }
  return warnings;
}

/** Up to three labels, then how many more: a warning stays one readable line. */
function someOf(labels: readonly string[]): string {
  const shown = labels.slice(0, 3).join(', ');
  return labels.length > 3 ? `${shown} and ${labels.length - 3} more` : shown;
}

/**
 * Completed rows first, then the rest (interrupted, failed, incomplete-drain): a ranking is among
 * runs that measured their whole window. Within each, TPS and New-Orders per minute highest first,
 * response time lowest first, labels A-Z (numbers in order).
 */
export function sortRows(rows: readonly CompareRow[], key: SortKey): CompareRow[] {
  const unfinished = (r: CompareRow): number => (r.status === 'completed' ? 0 : 1);
  const byLabel = (a: CompareRow, b: CompareRow): number =>
    a.label.localeCompare(b.label, 'en', { numeric: true }) || a.run.localeCompare(b.run);
  const primary: Record<SortKey, (a: CompareRow, b: CompareRow) => number> = {
    tps: (a, b) => b.tps - a.tps,
    tpmC: (a, b) => (b.tpmC ?? -Infinity) - (a.tpmC ?? -Infinity) || 0,
    avg: (a, b) => a.avgMs - b.avgMs,
    label: () => 0,
  };
  return [...rows].sort((a, b) => unfinished(a) - unfinished(b) || primary[key](a, b) || byLabel(a, b));
}

/** The same label from different runs: each gets its run id, so every row says which run it is. */
function disambiguate(rows: CompareRow[]): CompareRow[] {
  const runsPerLabel = new Map<string, Set<string>>();
  for (const r of rows) runsPerLabel.set(r.label, (runsPerLabel.get(r.label) ?? new Set()).add(r.run));
  return rows.map((r) =>
    (runsPerLabel.get(r.label)?.size ?? 0) > 1 ? { ...r, label: `${r.label} (${r.run})` } : r,
  );
}

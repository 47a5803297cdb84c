/**
 * The reviewers' table across runs: label | TPS | avg response ms | device MB/s | device latency ms
 * | New-Order rate | p90 ms | p99 ms | status, and a warning for each condition the rows were
 * measured under that differs.
 *
 * A single run is one row labelled with its target (config.target). The other kinds give several
 * rows: `steps` one per step (`label @ N users`), `sweep` one per value (`label @ setting=value`),
 * `targets` one per target plus the aggregate (`label (sum)`). Each row carries its own status and
 * conditions (from its nested report). The New-Order rate sits under `tpmC` only for the rows
 * where it is tpmC (new-order-rate.ts); other rows have it in a column that says what it is.
 */
import { formatDuration } from '../config/duration.js';
import { conditionsOf, sumConditions, type RowConditions } from './conditions.js';
import {
  DEVICE_COLUMNS,
  deviceTotals,
  distinctDevices,
  type DeviceRates,
  type DeviceTotals,
} from './device-totals.js';
import type { RunRecord, StoredEntryReport, SummaryFigures } from '../results/store.js';
import {
  countsAsTpmC,
  newOrderRateLabel,
  rateLabelsInOrder,
  statusWithMix,
} from '../results/new-order-rate.js';
import { figuresOf } from '../results/figures.js';
import { millis, orNa, twoDecimals, whole } from './numbers.js';
import { formatTable, type Column, type TableFormat } from './table.js';
import { difference, noNoiseLine, type Difference } from './verdict.js';

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

/** The differences from the first row as a table: one line per row and figure. */
const DIFFERENCE_COLUMNS: readonly Column<DifferenceLine>[] = [
  { header: 'label', align: 'left', text: (l) => l.label },
  { header: 'figure', align: 'left', text: (l) => l.figure },
  { header: 'difference (95% CI)', align: 'right', text: (l) => l.difference },
  { header: 'verdict', align: 'left', text: (l) => l.verdict },
];

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

/** A row's figure with its 95% half width, when it has one: `331.00 ± 22.66`. */
const withHalfWidth = (r: CompareRow, key: HeadlineKey, format: (x: number) => string): string => {
  const value = r[key];
  const h = r.noise[key];
  return value === null ? 'n/a' : h === null ? format(value) : `${format(value)} ± ${format(h)}`;
};

const LABEL_COLUMN: Column<CompareRow> = { header: 'label', align: 'left', text: (r) => r.label };
const TPS_COLUMNS: readonly Column<CompareRow>[] = [
  { header: 'TPS', align: 'right', text: (r) => withHalfWidth(r, 'tps', twoDecimals), csv: (r) => r.tps },
  {
    header: 'avg response ms',
    align: 'right',
    text: (r) => withHalfWidth(r, 'avgMs', millis),
    csv: (r) => r.avgMs,
  },
];
const PERCENTILE_COLUMNS: readonly Column<CompareRow>[] = [
  { header: 'p90 ms', align: 'right', text: (r) => millis(r.p90Ms), csv: (r) => r.p90Ms },
  { header: 'p99 ms', align: 'right', text: (r) => withHalfWidth(r, 'p99Ms', millis), csv: (r) => r.p99Ms },
];

/**
 * Text and Markdown: one New-Order rate column per label among the rows (`tpmC`, `New-Orders/min
 * (paced ×0.25)`, `New-Orders/min (unpaced)`, ...), each row's figure under its own label and `-`
 * under the others; the status says when a run's mix was non-standard.
 */
function readableColumns(rows: readonly CompareRow[]): Column<CompareRow>[] {
  // Only rows that have a New-Order rate (TPC-C's) give its column: a sysbench table has none.
  const labels = rateLabelsInOrder(rows.filter(hasNewOrderRate).map((r) => r.conditions));
  const rates = labels.map((label): Column<CompareRow> => ({
    header: label,
    align: 'right',
    text: (r) =>
      hasNewOrderRate(r) && newOrderRateLabel(r.conditions) === label ? withHalfWidth(r, 'tpmC', whole) : '-',
  }));
  const status: Column<CompareRow> = {
    header: 'status',
    align: 'left',
    text: (r) => statusWithMix(r.status, r.conditions),
  };
  // Each workload's best other figure (sysbench: QPS), under its label; the rest are in the CSV.
  const best = distinctFigures(rows.map((r) => r.figures.slice(0, 1)));
  const figures = best.map((f): Column<CompareRow> => ({
    header: f.label,
    align: 'right',
    text: (r) => {
      const mine = r.figures.find((g) => g.key === f.key);
      return mine === undefined ? '-' : orNa(mine.value, whole);
    },
  }));
  return [
    LABEL_COLUMN,
    ...TPS_COLUMNS,
    ...figures,
    ...DEVICE_COLUMNS,
    ...rates,
    ...PERCENTILE_COLUMNS,
    status,
  ];
}

/** TPC-C rows (and older files, which do not name their workload) have a New-Order rate, measured or not. */
function hasNewOrderRate(r: CompareRow): boolean {
  return r.tpmC !== null || r.conditions.workload === undefined || r.conditions.workload === 'tpcc';
}

/** The figures of the rows by key, first seen first. */
function distinctFigures(lists: readonly (readonly OtherFigure[])[]): OtherFigure[] {
  const seen = new Map<string, OtherFigure>();
  for (const list of lists) for (const f of list) if (!seen.has(f.key)) seen.set(f.key, f);
  return [...seen.values()];
}

/** CSV's raw per-direction device figures, all disks of the row together. */
const DIRECTION_COLUMNS: readonly Column<CompareRow>[] = (
  [
    ['device read IOPS', (d) => d.readIops],
    ['device write IOPS', (d) => d.writeIops],
    ['device read MB/s', (d) => d.readMBps],
    ['device write MB/s', (d) => d.writeMBps],
    ['device read latency ms', (d) => d.readLatencyMs],
    ['device write latency ms', (d) => d.writeLatencyMs],
  ] as const satisfies readonly (readonly [string, (d: DeviceTotals) => number | null])[]
).map(([header, value]) => ({
  header,
  align: 'right',
  text: () => '',
  csv: (r) => (r.device === null ? null : value(r.device)),
}));

/**
 * CSV keeps the same columns whatever the rows (scripts read them by name): `tpmC` only where the
 * figure is tpmC, `New-Orders/min` always, the think-scale and mix that decide which and what that
 * makes it (`tpmC`, `New-Orders/min (paced ×0.25)`; empty for a workload without one), the status
 * and the run id.
 */
const CSV_COLUMNS: readonly Column<CompareRow>[] = [
  LABEL_COLUMN,
  ...TPS_COLUMNS,
  {
    header: 'tpmC',
    align: 'right',
    text: () => '',
    csv: (r) => (countsAsTpmC(r.conditions) ? r.tpmC : null),
  },
  { header: 'New-Orders/min', align: 'right', text: () => '', csv: (r) => r.tpmC },
  ...PERCENTILE_COLUMNS,
  ...DEVICE_COLUMNS,
  ...DIRECTION_COLUMNS,
  { header: 'think-scale', align: 'right', text: () => '', csv: (r) => r.conditions.thinkScale ?? null },
  {
    header: 'mix',
    align: 'left',
    text: (r) => (r.conditions.nonstandardMix === true ? 'non-standard' : 'standard'),
  },
  {
    header: 'New-Orders/min is',
    align: 'left',
    text: (r) => (hasNewOrderRate(r) ? newOrderRateLabel(r.conditions) : ''),
  },
  { header: 'status', align: 'left', text: (r) => r.status },
  { header: 'run', align: 'left', text: (r) => r.run },
];

/**
 * CSV's noise columns, after the fixed ones: each headline figure's 95% half width, and its
 * difference from the first row with that difference's half width and the verdict (`baseline`
 * on the first row; empty where unknown).
 */
function csvNoiseColumns(rows: readonly CompareRow[]): Column<CompareRow>[] {
  const byRow = new Map(differencesFromFirst(rows).map((d) => [d.row, d.differences]));
  const header = (f: (typeof HEADLINE_FIGURES)[number]): string =>
    f.key === 'tpmC' ? 'New-Orders/min' : f.name;
  return HEADLINE_FIGURES.flatMap((f): Column<CompareRow>[] => [
    { header: `${header(f)} ±`, align: 'right', text: () => '', csv: (r) => r.noise[f.key] },
    {
      header: `${header(f)} difference`,
      align: 'right',
      text: () => '',
      csv: (r) => byRow.get(r)?.[f.key].delta ?? null,
    },
    {
      header: `${header(f)} difference ±`,
      align: 'right',
      text: () => '',
      csv: (r) => byRow.get(r)?.[f.key].halfWidth ?? null,
    },
    {
      header: `${header(f)} verdict`,
      align: 'left',
      text: (r) => byRow.get(r)?.[f.key].verdict ?? 'baseline',
    },
  ]);
}

/**
 * The other figures in CSV, after the fixed columns (which keep their places): one column per
 * figure among the rows, named with its unit (`QPS (queries/s)`), empty where a row lacks it.
 */
function csvFigureColumns(rows: readonly CompareRow[]): Column<CompareRow>[] {
  return distinctFigures(rows.map((r) => r.figures)).map((f) => ({
    header: `${f.label} (${f.unit})`,
    align: 'right',
    text: () => '',
    csv: (r) => r.figures.find((g) => g.key === f.key)?.value ?? null,
  }));
}

/** The table (CSV: with each headline figure's ±, difference from the first row and verdict). */
export function formatComparison(rows: readonly CompareRow[], format: TableFormat): string {
  return formatTable(
    format === 'csv'
      ? [...CSV_COLUMNS, ...csvNoiseColumns(rows), ...csvFigureColumns(rows)]
      : readableColumns(rows),
    rows,
    format,
  );
}

/**
 * Text and Markdown, around the table: the line over it when its rows differ only by noise, and
 * under it the differences from the first row with their verdicts (undefined for one row).
 */
export function formatVerdicts(
  rows: readonly CompareRow[],
  format: Exclude<TableFormat, 'csv'>,
): { over: string | undefined; under: string | undefined } {
  const lines = differenceLines(rows);
  // Runs recorded without intervals (before txbench kept them) give only n/a: no table of them.
  const judged = rows.some((r) => HEADLINE_FIGURES.some((f) => r.noise[f.key] !== null));
  if (lines.length === 0 || !judged) return { over: undefined, under: undefined };
  const noise = noiseSummaryLine(rows);
  return {
    over: noise === undefined ? undefined : format === 'markdown' ? `**${noise}.**` : `${noise}.`,
    under: [
      differencesTitle(rows),
      ...(format === 'markdown' ? [''] : []),
      formatTable(DIFFERENCE_COLUMNS, lines, format),
    ].join('\n'),
  };
}

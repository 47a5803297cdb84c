/**
 * The reviewers' table across runs, as text, Markdown or CSV: label | TPS | avg response ms |
 * device MB/s | device latency ms | New-Order rate | p90 ms | p99 ms | status, and around it the
 * line that says when the rows differ only by noise and the differences from the first row with
 * their verdicts. The rows are compare-rows.ts's, their differences compare-differences.ts's.
 */
import { DEVICE_COLUMNS, type DeviceTotals } from './device-totals.js';
import { HEADLINE_FIGURES, type CompareRow, type HeadlineKey, type OtherFigure } from './compare-rows.js';
import {
  differenceLines,
  differencesFromFirst,
  differencesTitle,
  noiseSummaryLine,
  type DifferenceLine,
} from './compare-differences.js';
import {
  countsAsTpmC,
  newOrderRateLabel,
  rateLabelsInOrder,
  statusWithMix,
} from '../results/new-order-rate.js';
import { millis, orNa, twoDecimals, whole } from './numbers.js';
import { formatTable, type Column, type TableFormat } from './table.js';

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

/** The differences from the first row as a table: one line per row and figure. */
const DIFFERENCE_COLUMNS: readonly Column<DifferenceLine>[] = [
  { header: 'label', align: 'left', text: (l) => l.label },
  { header: 'figure', align: 'left', text: (l) => l.figure },
  { header: 'difference (95% CI)', align: 'right', text: (l) => l.difference },
  { header: 'verdict', align: 'left', text: (l) => l.verdict },
];

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

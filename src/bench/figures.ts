/**
 * Targets and the summary table: every target is a figure compared with a limit, and its ratio is
 * value ÷ limit (so ≤ 1 passes an upper limit, ≥ 1 a lower one). A section that failed still lists
 * its targets, as missed, with the reason.
 */
import { formatTable, type Column } from '../report/table.js';

export type Op = '<=' | '<' | '>=';

export interface TargetDef<T> {
  figure: string;
  unit: string;
  op: Op;
  limit: number;
  /** The figure, or why there is none (a string: the run that should have measured it failed). */
  value: (data: T) => number | string | null | undefined;
}

export interface SummaryRow {
  section: string;
  figure: string;
  value: number | null;
  unit: string;
  target: string;
  limit: number;
  ratio: number | null;
  pass: boolean;
  /** Why there is no value (the section or the run failed). */
  note?: string;
  /** A missed target that another section measured out of this machine's reach: that measurement. */
  outOfReach?: string;
}

export function evaluate<T>(
  section: string,
  defs: readonly TargetDef<T>[],
  data: T | undefined,
  failure: string | undefined,
): SummaryRow[] {
  return defs.map((d) => {
    let value: number | null = null;
    let reason = failure;
    if (data !== undefined) {
      try {
        const v = d.value(data);
        if (typeof v === 'string') reason = v;
        else value = v ?? null;
      } catch (err) {
        reason = err instanceof Error ? err.message : String(err);
      }
    }
    if (value !== null && !Number.isFinite(value)) value = null;
    const ratio = value === null || d.limit === 0 ? null : value / d.limit;
    const pass =
      value !== null &&
      (d.op === '<=' ? value <= d.limit : d.op === '<' ? value < d.limit : value >= d.limit);
    return {
      section,
      figure: d.figure,
      value,
      unit: d.unit,
      target: `${d.op === '>=' ? '≥' : d.op === '<=' ? '≤' : '<'} ${num(d.limit)}${d.unit ? ` ${d.unit}` : ''}`,
      limit: d.limit,
      ratio,
      pass,
      ...(value === null ? { note: reason ?? 'not measured' } : {}),
    };
  });
}

export function summaryTable(rows: readonly SummaryRow[]): string {
  const columns: Column<SummaryRow>[] = [
    { header: 'figure', align: 'left', text: (r) => r.figure },
    {
      header: 'value',
      align: 'right',
      text: (r) =>
        r.value === null ? `n/a (${r.note ?? ''})` : `${num(r.value)}${r.unit ? ` ${r.unit}` : ''}`,
    },
    { header: 'target', align: 'right', text: (r) => r.target },
    { header: 'ratio', align: 'right', text: (r) => (r.ratio === null ? 'n/a' : `${r.ratio.toFixed(3)}×`) },
    {
      header: '',
      align: 'left',
      text: (r) => (r.pass ? 'PASS' : r.outOfReach === undefined ? 'MISS' : 'MISS, out of reach'),
    },
  ];
  return formatTable(columns, rows, 'markdown');
}

/** Numbers for people: thousands separators, three significant digits below 100. */
export function num(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  const a = Math.abs(x);
  if (a >= 100) return Math.round(x).toLocaleString('en-US');
  if (a === 0) return '0';
  return String(Number(x.toPrecision(3)));
}

/** A percentage with a sign, e.g. +0.12 %. */
export function signedPct(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return 'n/a';
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)} %`;
}

export { formatTable, type Column };

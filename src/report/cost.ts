/**
 * Drive cost tables, as in the StorageIO reviews. A costs file (YAML) holds one entry per label,
 * the label being a run's target (`config.target`, or a target's `--label`):
 *
 *   "PX600, 64 GB":
 *     drivePrice: 1200    # price of one drive, in any currency
 *     drives: 4           # drives holding the data
 *     driveGB: 1000       # raw capacity of one drive, GB
 *     protection: raid10  # raid1 | raid10 | raid5 | raid6 | the usable fraction, 0 < f <= 1
 *
 * Usable fraction f with n drives: raid1 and raid10 1/2 (mirrored pairs: n even, n >= 2),
 * raid5 (n-1)/n (n >= 3), raid6 (n-2)/n (n >= 4); an n-way mirror is the fraction 1/n.
 *
 * Each row of the comparison, with the run's TPS, gives:
 *   total cost                  = drivePrice * drives
 *   raw GB                      = driveGB * drives
 *   usable GB                   = raw GB * f
 *   cost per TPS                = total cost / TPS
 *   cost per raw GB             = total cost / raw GB
 *   cost per usable GB          = total cost / usable GB
 *   cost per usable GB per TPS  = cost per usable GB / TPS = total cost / (usable GB * TPS)
 * A row that adds up several targets (`label (sum)`) adds their drives: total cost, raw GB and
 * usable GB are the sums over the targets. A ratio over zero TPS is `n/a`.
 */
import { parseDocument } from 'yaml';
import { UsageError } from '../errors.js';
import type { CompareRow } from './compare-rows.js';
import { amount, orNa, twoDecimals, whole } from './numbers.js';
import { formatTable, type Column, type TableFormat } from './table.js';

export const RAID_LEVELS = ['raid1', 'raid10', 'raid5', 'raid6'] as const;
export type RaidLevel = (typeof RAID_LEVELS)[number];
/** A RAID level, or the usable share of the raw capacity. */
export type Protection = RaidLevel | number;

export interface CostEntry {
  label: string;
  drivePrice: number;
  drives: number;
  driveGB: number;
  protection: Protection;
}

export interface CostRow {
  label: string;
  run: string;
  tps: number;
  drives: number;
  /** The protection as given, or `mixed` for a sum over targets protected differently. */
  protection: string;
  totalCost: number;
  rawGB: number;
  usableGB: number;
  costPerTps: number | null;
  costPerRawGB: number;
  costPerUsableGB: number;
  costPerUsableGBPerTps: number | null;
}

const FIELDS = ['drivePrice', 'drives', 'driveGB', 'protection'] as const;

/** Reads a costs file's text; every problem is a usage error naming the file, label and field. */
export function parseCosts(text: string, file: string): Map<string, CostEntry> {
  const doc = parseDocument(text);
  const yamlError = doc.errors[0];
  if (yamlError !== undefined) {
    throw new UsageError(
      `${file}: not valid YAML: ${(yamlError.message.split('\n')[0] ?? '').replace(/:$/, '')}`,
    );
  }
  const data: unknown = doc.toJS();
  if (!isMapping(data) || Object.keys(data).length === 0) {
    throw new UsageError(
      `${file}: expected one entry per label (label: {drivePrice, drives, driveGB, protection})`,
    );
  }
  const costs = new Map<string, CostEntry>();
  for (const [label, value] of Object.entries(data)) costs.set(label, parseEntry(file, label, value));
  return costs;
}

function parseEntry(file: string, label: string, value: unknown): CostEntry {
  const fail = (field: string | undefined, message: string): never => {
    throw new UsageError(`${file}: "${label}"${field === undefined ? '' : `: ${field}`} ${message}`);
  };
  if (!isMapping(value)) return fail(undefined, `must be a mapping of ${FIELDS.join(', ')}`);
  for (const key of Object.keys(value)) {
    if (!(FIELDS as readonly string[]).includes(key)) {
      fail(key, `is not a cost field; use ${FIELDS.join(', ')}`);
    }
  }
  for (const field of FIELDS) if (value[field] === undefined) fail(field, 'is missing');
  const number = (field: (typeof FIELDS)[number], ok: (n: number) => boolean, what: string): number => {
    const v = value[field];
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v))
      fail(field, `must be ${what}, not ${show(v)}`);
    return v as number;
  };
  const drivePrice = number('drivePrice', (n) => n >= 0, 'a price >= 0');
  const drives = number('drives', (n) => Number.isInteger(n) && n >= 1, 'a whole number >= 1');
  const driveGB = number('driveGB', (n) => n > 0, 'a capacity in GB > 0');
  const protection = parseProtection(value.protection, drives, (m) => fail('protection', m));
  return { label, drivePrice, drives, driveGB, protection };
}

function parseProtection(v: unknown, drives: number, fail: (message: string) => never): Protection {
  if (typeof v === 'number') {
    if (Number.isFinite(v) && v > 0 && v <= 1) return v;
    return fail(`as a fraction must be more than 0 and at most 1, not ${show(v)}`);
  }
  const level = typeof v === 'string' ? v.toLowerCase().replace(/[\s_-]/g, '') : '';
  if (!(RAID_LEVELS as readonly string[]).includes(level)) {
    return fail(`must be raid1, raid10, raid5, raid6 or a usable fraction such as 0.5, not ${show(v)}`);
  }
  const raid = level as RaidLevel;
  const problem = raidDriveProblem(raid, drives);
  return problem === undefined ? raid : fail(`${raid} ${problem}, not ${drives}`);
}

/** Why a RAID level cannot be built from `drives` drives, or undefined if it can. */
export function raidDriveProblem(level: RaidLevel, drives: number): string | undefined {
  switch (level) {
    case 'raid1':
    case 'raid10':
      return drives >= 2 && drives % 2 === 0
        ? undefined
        : `needs an even number of drives >= 2 (mirrored pairs; an n-way mirror is the fraction 1/n)`;
    case 'raid5':
      return drives >= 3 ? undefined : 'needs at least 3 drives';
    case 'raid6':
      return drives >= 4 ? undefined : 'needs at least 4 drives';
  }
}

/** Usable GB of one entry, computed without a rounding fraction where the level allows. */
export function usableCapacityGB(e: CostEntry): number {
  switch (e.protection) {
    case 'raid1':
    case 'raid10':
      return (e.driveGB * e.drives) / 2;
    case 'raid5':
      return e.driveGB * (e.drives - 1);
    case 'raid6':
      return e.driveGB * (e.drives - 2);
    default:
      return e.driveGB * e.drives * e.protection;
  }
}

export interface CostTable {
  rows: CostRow[];
  /**
   * Rows without a cost entry, one line each; and, when there are any, the cost entries without a
   * row (one of them may be the missing label mistyped).
   */
  notes: string[];
}

/** Joins the comparison's rows (in their order) with the costs by label. */
export function costRows(rows: readonly CompareRow[], costs: ReadonlyMap<string, CostEntry>): CostTable {
  const out: CostRow[] = [];
  const missing = new Map<string, Set<string>>();
  const used = new Set<string>();
  for (const row of rows) {
    row.costLabels.forEach((l) => used.add(l));
    const entries = row.costLabels.map((l) => costs.get(l));
    const absent = row.costLabels.filter((_, i) => entries[i] === undefined);
    absent.forEach((l) => missing.set(l, (missing.get(l) ?? new Set()).add(row.run)));
    if (absent.length > 0 || entries.length === 0) continue;
    out.push(costRow(row, entries as CostEntry[]));
  }
  // One costs file may price every drive a reviewer has (the example plans share one): an entry
  // that matches none of these runs is worth a note only beside a run without its entry, where
  // it may be that run's label mistyped.
  const unused = missing.size === 0 ? [] : [...costs.keys()].filter((l) => !used.has(l));
  const notes = [
    ...[...missing].map(([label, runs]) => `no cost entry for "${label}" (run ${[...runs].join(', ')})`),
    ...unused.map((l) => `cost entry "${l}" matches no run`),
  ];
  return { rows: out, notes };
}

function costRow(row: CompareRow, entries: readonly CostEntry[]): CostRow {
  const sum = (f: (e: CostEntry) => number): number => entries.reduce((a, e) => a + f(e), 0);
  const totalCost = sum((e) => e.drivePrice * e.drives);
  const rawGB = sum((e) => e.driveGB * e.drives);
  const usableGB = sum(usableCapacityGB);
  const protections = new Set(entries.map((e) => String(e.protection)));
  const perTps = (x: number): number | null => (row.tps > 0 ? x / row.tps : null);
  const costPerUsableGB = totalCost / usableGB;
  return {
    label: row.label,
    run: row.run,
    tps: row.tps,
    drives: sum((e) => e.drives),
    protection: protections.size === 1 ? [...protections][0]! : 'mixed',
    totalCost,
    rawGB,
    usableGB,
    costPerTps: perTps(totalCost),
    costPerRawGB: totalCost / rawGB,
    costPerUsableGB,
    costPerUsableGBPerTps: perTps(costPerUsableGB),
  };
}

const money = (x: number | null): string => orNa(x, amount);

export const COST_COLUMNS: readonly Column<CostRow>[] = [
  { header: 'label', align: 'left', text: (r) => r.label },
  { header: 'TPS', align: 'right', text: (r) => twoDecimals(r.tps), csv: (r) => r.tps },
  { header: 'drives', align: 'right', text: (r) => whole(r.drives), csv: (r) => r.drives },
  { header: 'protection', align: 'left', text: (r) => r.protection },
  { header: 'total cost', align: 'right', text: (r) => money(r.totalCost), csv: (r) => r.totalCost },
  { header: 'raw GB', align: 'right', text: (r) => gb(r.rawGB), csv: (r) => r.rawGB },
  { header: 'usable GB', align: 'right', text: (r) => gb(r.usableGB), csv: (r) => r.usableGB },
  { header: 'cost/TPS', align: 'right', text: (r) => money(r.costPerTps), csv: (r) => r.costPerTps },
  { header: 'cost/raw GB', align: 'right', text: (r) => money(r.costPerRawGB), csv: (r) => r.costPerRawGB },
  {
    header: 'cost/usable GB',
    align: 'right',
    text: (r) => money(r.costPerUsableGB),
    csv: (r) => r.costPerUsableGB,
  },
  {
    header: 'cost/usable GB/TPS',
    align: 'right',
    text: (r) => money(r.costPerUsableGBPerTps),
    csv: (r) => r.costPerUsableGBPerTps,
  },
];

const RUN_COLUMN: Column<CostRow> = { header: 'run', align: 'left', text: (r) => r.run };

export function formatCostTable(rows: readonly CostRow[], format: TableFormat): string {
  return formatTable(format === 'csv' ? [...COST_COLUMNS, RUN_COLUMN] : COST_COLUMNS, rows, format);
}

/** Capacities: whole GB with separators, or two decimals when there is a fraction. */
function gb(x: number): string {
  const rounded = Math.round(x);
  return Math.abs(x - rounded) < 0.005 ? whole(rounded) : twoDecimals(x);
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);
}

function show(v: unknown): string {
  if (typeof v === 'string') return `"${v}"`;
  if (v === null || v === undefined) return 'empty';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** `txbench results`: one line per run, newest first. */
import type { RunRecord } from '../results/store.js';
import { runConditions } from './conditions.js';
import { newOrderRateLabel, rateLabelsInOrder, statusWithMix } from '../results/new-order-rate.js';
import { millis, orNa, twoDecimals, whole } from './numbers.js';
import { formatTable, type Column } from './table.js';

const LEADING_COLUMNS: readonly Column<RunRecord>[] = [
  { header: 'id', align: 'left', text: (r) => r.id },
  { header: 'started (UTC)', align: 'left', text: (r) => startedUtc(r.startedAt) },
  { header: 'label', align: 'left', text: (r) => r.label || '-' },
  { header: 'status', align: 'left', text: (r) => statusWithMix(r.status, runConditions(r)) },
  { header: 'TPS', align: 'right', text: (r) => orNa(r.summary?.tps, twoDecimals) },
];
const TRAILING_COLUMNS: readonly Column<RunRecord>[] = [
  { header: 'avg ms', align: 'right', text: (r) => orNa(r.summary?.responseMs.avg, millis) },
  { header: 'tags', align: 'left', text: (r) => r.tags.join(', ') },
];

/**
 * One New-Order rate column per label among the runs with a figure (`tpmC` only for tpmC), each
 * run's figure under its own label and `-` under the others; `n/a` when nothing was measured.
 */
function rateColumns(runs: readonly RunRecord[]): Column<RunRecord>[] {
  const measured = runs.filter((r) => r.summary !== undefined);
  const labels = rateLabelsInOrder(measured.map(runConditions));
  if (labels.length === 0) return [{ header: 'New-Orders/min', align: 'right', text: () => 'n/a' }];
  return labels.map((label) => ({
    header: label,
    align: 'right',
    text: (r) => (r.summary === undefined ? 'n/a' : labelOf(r) === label ? orNa(r.summary.tpmC, whole) : '-'),
  }));
}

const labelOf = (r: RunRecord): string => newOrderRateLabel(runConditions(r));

export function formatRunList(runs: readonly RunRecord[]): string {
  return formatTable([...LEADING_COLUMNS, ...rateColumns(runs), ...TRAILING_COLUMNS], runs, 'text');
}

/** What `txbench results --json` prints per run: summary.tpmC as stored, and what it is. */
export function runListJson(runs: readonly RunRecord[]): object[] {
  return runs.map((r) => {
    const conditions = runConditions(r);
    return {
      path: r.path,
      id: r.id,
      kind: r.kind,
      startedAt: r.startedAt,
      status: r.status,
      label: r.label,
      tags: r.tags,
      /** What summary.tpmC is: `tpmC` only at think-scale 1 with a standard mix, else e.g. `New-Orders/min (paced ×0.25)`. */
      newOrderRateLabel: newOrderRateLabel(conditions),
      nonstandardMix: conditions.nonstandardMix === true,
      summary: r.summary ?? null,
    };
  });
}

/** `2024-05-01 12:00:00` from an ISO timestamp; anything else as it is. */
function startedUtc(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(0, 19).replace('T', ' ');
}

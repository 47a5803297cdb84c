/** `txbench results`: one line per run, newest first. */
import type { RunRecord } from '../results/store.js';
import { millis, orNa, twoDecimals, whole } from './numbers.js';
import { formatTable, type Column } from './table.js';

const RUN_LIST_COLUMNS: readonly Column<RunRecord>[] = [
  { header: 'id', align: 'left', text: (r) => r.id },
  { header: 'started (UTC)', align: 'left', text: (r) => startedUtc(r.startedAt) },
  { header: 'label', align: 'left', text: (r) => r.label || '-' },
  { header: 'status', align: 'left', text: (r) => r.status },
  { header: 'TPS', align: 'right', text: (r) => orNa(r.summary?.tps, twoDecimals) },
  { header: 'tpmC', align: 'right', text: (r) => orNa(r.summary?.tpmC, whole) },
  { header: 'avg ms', align: 'right', text: (r) => orNa(r.summary?.responseMs.avg, millis) },
  { header: 'tags', align: 'left', text: (r) => r.tags.join(', ') },
];

export function formatRunList(runs: readonly RunRecord[]): string {
  return formatTable(RUN_LIST_COLUMNS, runs, 'text');
}

/** What `txbench results --json` prints per run. */
export function runListJson(runs: readonly RunRecord[]): object[] {
  return runs.map((r) => ({
    path: r.path,
    id: r.id,
    startedAt: r.startedAt,
    status: r.status,
    label: r.label,
    tags: r.tags,
    summary: r.summary ?? null,
  }));
}

/** `2024-05-01 12:00:00` from an ISO timestamp; anything else as it is. */
function startedUtc(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(0, 19).replace('T', ' ');
}

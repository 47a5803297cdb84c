import type { RunSummary } from '../results/run-file.js';
import { DEVICE_COLUMNS, deviceTotals, type DeviceTotals } from './device-totals.js';
import { figuresOf } from '../results/figures.js';
import { commonRateLabel, type RateConditions } from '../results/new-order-rate.js';
import { formatTable, type Column } from './table.js';

const n2 = (x: number): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** One row of a scaling table: what was varied and what was measured. */
export interface ScalingRow {
  label: string;
  summary: RunSummary;
  /** What its New-Order rate may be called. */
  config: RateConditions;
}

/**
 * The table and a text curve of TPS against what was varied (users for steps, a setting's value
 * for sweeps), with response time and what the disks did beside it; bars are scaled to the
 * highest TPS. A row without device figures (monitoring off) shows n/a.
 */
export function formatScaling(heading: string, rows: readonly ScalingRow[], note?: string): string {
  const maxTps = Math.max(...rows.map((r) => r.summary.tps), 1e-9);
  type Shown = ScalingRow & { device: DeviceTotals | null };
  const shown: Shown[] = rows.map((r) => ({ ...r, device: deviceTotals(r.summary.devices) }));
  const columns: Column<Shown>[] = [
    { header: heading, align: 'left', text: (r) => r.label },
    { header: 'TPS', align: 'right', text: (r) => n2(r.summary.tps) },
    { header: 'avg response ms', align: 'right', text: (r) => ms(r.summary.responseMs.avg) },
    ...DEVICE_COLUMNS,
    ...figuresOf(rows[0]?.summary ?? {})
      .slice(0, 1)
      .map((f): Column<Shown> => ({
        header: f.pacedSpec ? commonRateLabel(rows.map((r) => r.config)) : f.label,
        align: 'right',
        text: (r) => {
          const v = figuresOf(r.summary).find((g) => g.key === f.key)?.value;
          return v === null || v === undefined ? 'n/a' : String(v);
        },
      })),
    { header: 'p90 ms', align: 'right', text: (r) => ms(r.summary.responseMs.p90) },
    { header: 'p99 ms', align: 'right', text: (r) => ms(r.summary.responseMs.p99) },
    { header: '', align: 'left', text: (r) => '#'.repeat(Math.round((40 * r.summary.tps) / maxTps)) },
  ];
  const table = formatTable(columns, shown, 'text');
  return note ? `${table}\n${note}` : table;
}

export function formatStepsTable(
  steps: readonly { users: number; summary: RunSummary; report: { config: RateConditions } }[],
  knee: number | undefined,
): string {
  return formatScaling(
    'users',
    steps.map((s) => ({ label: String(s.users), summary: s.summary, config: s.report.config })),
    knee === undefined
      ? 'knee: none within these steps (throughput still grows at least half as fast as users)'
      : `knee: ${knee} users (beyond it, throughput grows less than half as fast as users)`,
  );
}

import type { RunSummary } from '../workloads/tpcc/summary.js';
import { commonRateLabel, type RateConditions } from './new-order-rate.js';

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
 * The table and a text curve of TPS and average response time against what was varied (users
 * for steps, a setting's value for sweeps); bars are scaled to the highest TPS.
 */
export function formatScaling(heading: string, rows: readonly ScalingRow[], note?: string): string {
  const maxTps = Math.max(...rows.map((r) => r.summary.tps), 1e-9);
  const width = Math.max(heading.length, ...rows.map((r) => r.label.length));
  const rate = commonRateLabel(rows.map((r) => r.config));
  const lines = [
    `${heading.padEnd(width)}  ${'TPS'.padStart(10)}  ${rate.padStart(9)}  ${'avg ms'.padStart(8)}  ${'p90 ms'.padStart(8)}  ${'p99 ms'.padStart(8)}`,
  ];
  for (const r of rows) {
    const s = r.summary;
    const bar = '#'.repeat(Math.round((40 * s.tps) / maxTps));
    lines.push(
      `${r.label.padEnd(width)}  ${n2(s.tps).padStart(10)}  ${String(s.tpmC).padStart(Math.max(9, rate.length))}  ${ms(s.responseMs.avg).padStart(8)}  ${ms(s.responseMs.p90).padStart(8)}  ${ms(s.responseMs.p99).padStart(8)}  ${bar}`,
    );
  }
  if (note) lines.push(note);
  return lines.join('\n');
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

import { formatDuration } from '../config/duration.js';
import type { AggregateSummary } from '../run/aggregate.js';
import type { DrainReport } from '../engine/engine.js';
import type { ClientCpu } from '../metrics/client-cpu.js';
import { formatDevice } from '../run/environment.js';
import { DISCLAIMER, type IntervalRecord, type RunConfig, type RunReport } from '../run/tpcc-run.js';
import { commonRateLabel, newOrderRateLabel, type RateConditions } from './new-order-rate.js';
import { formatStorage } from './storage.js';

const n0 = (x: number): string => Math.trunc(x).toLocaleString('en-US');
const n2 = (x: number): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const orNa = (x: number | null, f: (v: number) => string): string => (x === null ? 'n/a' : f(x));

export function formatRunHeader(c: RunConfig): string {
  return (
    `txbench run on ${c.target}: ${c.warehouses} warehouse${c.warehouses === 1 ? '' : 's'}, ${c.terminals} terminals, ` +
    `${c.connections} connections, think-scale ${c.thinkScale}, warm-up ${formatDuration(c.warmupS * 1000)}, ` +
    `measure ${formatDuration(c.durationS * 1000)}${mixMark(c)}`
  );
}

/** A mix below the spec's minimums is named wherever the run is. */
const mixMark = (c: RateConditions): string =>
  c.nonstandardMix === true ? ", non-standard mix (below the spec's minimums)" : '';

/** The end-of-run table: headline figures, per-type response times, audit, and the tool's own cost. */
export function formatRunSummary(r: RunReport): string {
  const s = r.summary;
  const lines: string[] = [];
  const status =
    r.status === 'completed' ? '' : ` (${r.status.toUpperCase()}${r.failure ? `: ${r.failure}` : ''})`;
  lines.push(`${r.disclaimer}`);
  lines.push(`measured ${s.windowSeconds.toFixed(1)} s${status}${mixMark(r.config)}`);
  if (r.drain.inFlight > 0) lines.push(`  WARNING: ${drainWarning(r.drain)}`);
  lines.push(
    `  ${newOrderRateLabel(r.config)} ${n0(s.tpmC)}   NOPM ${orNa(s.nopm, n0)}   TPS ${n2(s.tps)}   TPM ${orNa(s.tpm, n0)}   ` +
      `efficiency ${orNa(s.efficiencyPct, (v) => `${v.toFixed(1)}%`)}`,
  );
  const rt = s.responseMs;
  lines.push(
    `  response ms: avg ${ms(rt.avg)}  p50 ${ms(rt.p50)}  p90 ${ms(rt.p90)}  p95 ${ms(rt.p95)}  p99 ${ms(rt.p99)}  max ${ms(rt.max)}`,
  );
  lines.push('');
  const header = [
    'transaction',
    'count',
    'mix %',
    'errors',
    'retries',
    'avg ms',
    'p50',
    'p90',
    'p95',
    'p99',
    'max',
    '90th limit',
  ];
  const rows = Object.values(r.transactions).map((t) => [
    t.name,
    n0(t.count),
    t.mixPct.toFixed(2),
    n0(t.errors),
    n0(t.retries),
    ms(t.responseMs.avg),
    ms(t.responseMs.p50),
    ms(t.responseMs.p90),
    ms(t.responseMs.p95),
    ms(t.responseMs.p99),
    ms(t.responseMs.max),
    `${t.p90Pass ? 'PASS' : 'FAIL'} (${t.p90LimitMs / 1000} s)`,
  ]);
  lines.push(...table(header, rows).map((l) => `  ${l}`));
  const rollbacks = r.transactions.newOrder?.rollbacks ?? 0;
  lines.push(`  (New-Order count includes ${n0(rollbacks)} rolled back by design)`);
  lines.push('');
  lines.push('  audit (TPC-C 5.5.1.5):');
  for (const c of r.audit.checks) {
    const verdict = c.pass === null ? 'n/a ' : c.pass ? 'PASS' : 'FAIL';
    lines.push(
      `    ${verdict}  ${c.name.padEnd(34)} ${c.value === null ? '-' : String(c.value)}  (allowed ${c.allowed})`,
    );
  }
  const whole = r.audit.wholeRun;
  if (whole.match !== null) {
    lines.push(
      `    ${whole.match ? 'PASS' : 'FAIL'}  committed New-Orders = orders added  ${n0(whole.newOrdersCommitted)} vs ${n0(whole.ordersAddedInDatabase ?? 0)} (whole run)`,
    );
  }
  const errs = Object.entries(r.errors).filter(([, v]) => v > 0);
  if (errs.length > 0) lines.push(`  errors by class: ${errs.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  lines.push('');
  lines.push(
    `  txbench itself: ${s.clientCpu === null ? 'CPU in the all-targets summary' : cpuText(s.clientCpu)}, ` +
      (s.schedulerLatenessMs === null
        ? 'no transactions submitted'
        : `scheduler lateness p50 ${ms(s.schedulerLatenessMs.p50)} ms, p99 ${ms(s.schedulerLatenessMs.p99)} ms, max ${ms(s.schedulerLatenessMs.max)} ms`),
  );
  lines.push(`  ${formatDevice(r.environment.device)}`);
  lines.push(...formatStorage(s).map((l) => `  ${l}`));
  return lines.join('\n');
}

const cpuText = (cpu: ClientCpu): string =>
  `${cpu.coresUsed.toFixed(2)} cores, ${cpu.usPerTransaction.toFixed(0)} µs CPU per transaction`;

/** One line on what the drain left unfinished, for the report and stderr. */
export function drainWarning(d: DrainReport): string {
  return (
    `the drain gave up after ${formatDuration(d.limitMs)} with ${n0(d.inFlight)} transaction${d.inFlight === 1 ? '' : 's'} still running ` +
    `and ${n0(d.queued)} never started (the oldest had waited ${formatDuration(d.oldestAgeMs ?? 0)}); they are not in the figures`
  );
}

/**
 * One line per interval (logs, CI) — the terminal view redraws the same line. The New-Order rate
 * is never called tpmC here: an interval does not know the run's pacing.
 */
export function formatInterval(i: IntervalRecord): string {
  const no = i.perType.newOrder;
  const p = i.perType.payment;
  const errors = Object.values(i.perType).reduce((a, t) => a + t.errors, 0);
  return (
    `[${formatDuration(i.atS * 1000).padStart(6)} ${i.phase.padEnd(7)}] TPS ${n2(i.tps).padStart(9)}  New-Orders/min ${n0(i.tpmC).padStart(8)}` +
    `  New-Order avg ${ms(no?.avgMs ?? 0)} p90 ${ms(no?.p90Ms ?? 0)} ms  Payment avg ${ms(p?.avgMs ?? 0)} p90 ${ms(p?.p90Ms ?? 0)} ms` +
    (errors ? `  errors ${errors}` : '')
  );
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const fmt = (cells: string[]): string =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [fmt(header), ...rows.map(fmt)];
}

/** Several targets at once: one row per target, the sum, and the spread of TPS across them. */
export function formatTargetsTable(reports: readonly RunReport[], sum: AggregateSummary): string {
  const header = [
    'target',
    'TPS',
    commonRateLabel(reports.map((r) => r.config)),
    'NOPM',
    'avg ms',
    'p90',
    'p99',
    'errors',
    'status',
  ];
  const rows = reports.map((r) => [
    r.config.target,
    n2(r.summary.tps),
    n0(r.summary.tpmC),
    orNa(r.summary.nopm, n0),
    ms(r.summary.responseMs.avg),
    ms(r.summary.responseMs.p90),
    ms(r.summary.responseMs.p99),
    n0(r.summary.errors),
    r.status,
  ]);
  rows.push([
    `all ${sum.targets} (sum)`,
    n2(sum.tps),
    n0(sum.tpmC),
    orNa(sum.nopm, n0),
    ms(sum.responseMs.avg),
    ms(sum.responseMs.p90),
    ms(sum.responseMs.p99),
    n0(sum.errors),
    '',
  ]);
  const spread = sum.spread;
  return [
    DISCLAIMER,
    ...table(header, rows),
    `TPS spread across targets: min ${n2(spread.minTps)}, max ${n2(spread.maxTps)}, max/min ${spread.maxOverMin === null ? 'n/a' : spread.maxOverMin.toFixed(4)}`,
    `txbench itself (one process for all targets): ${sum.clientCpu === null ? 'CPU not measured' : cpuText(sum.clientCpu)}`,
    ...reports.flatMap((r) => formatStorage(r.summary).map((l) => `${r.config.target}: ${l}`)),
    ...reports
      .filter((r) => r.drain.inFlight > 0)
      .map((r) => `WARNING ${r.config.target}: ${drainWarning(r.drain)}`),
  ].join('\n');
}

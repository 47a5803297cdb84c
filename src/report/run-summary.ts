import { formatDuration } from '../config/duration.js';
import type { AggregateSummary } from '../results/targets-file.js';
import type { DrainReport, WindowEdges } from '../engine/engine-result.js';
import type { ClientCpu } from '../metrics/client-cpu.js';
import type { IntervalRecord } from '../results/interval.js';
import type { RunConfig, RunReport } from '../results/run-file.js';
import { figureLabel, figuresOf, typeNameOf } from '../results/figures.js';
import type { RateConditions } from '../results/new-order-rate.js';
import { noiseLegend, noiseNote, withNoise } from './noise.js';
import { formatOutage } from './outage-line.js';
import { formatSteadyState } from './steady-state-line.js';
import { formatDevice, formatStorage } from './storage.js';

const n0 = (x: number): string => Math.trunc(x).toLocaleString('en-US');
const n2 = (x: number): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const orNa = (x: number | null, f: (v: number) => string): string => (x === null ? 'n/a' : f(x));

export function formatRunHeader(c: RunConfig): string {
  const warehouses = typeof c.warehouses === 'number' ? c.warehouses : undefined;
  const scale =
    c.scale ?? (warehouses === undefined ? '' : `${warehouses} warehouse${warehouses === 1 ? '' : 's'}`);
  const workload = c.workload === undefined || c.workload === 'tpcc' ? '' : `${c.workload}, `;
  return (
    `txbench run on ${c.target}: ${workload}${scale}, ${c.terminals} terminals, ` +
    `${c.connections} connections${(c.workers ?? 1) > 1 ? ` over ${c.workers} worker threads` : ''}, think-scale ${c.thinkScale}, warm-up ${warmupOf(c)}, ` +
    `measure ${formatDuration(c.durationS * 1000)}${mixMark(c)}${shardMark(c)}`
  );
}

/** `auto (at most 30m)` for a warm-up that ends on steady state. */
const warmupOf = (c: RunConfig): string =>
  c.warmupAuto === true
    ? `auto (at most ${formatDuration(c.warmupS * 1000)})`
    : formatDuration(c.warmupS * 1000);

/** A shard names its slice: `shard 2/4 (terminals 25..49 of 100)`. */
const shardMark = (c: RunConfig): string =>
  c.shard === undefined
    ? ''
    : `, shard ${c.shard.index}/${c.shard.count} (terminals ${c.shard.firstTerminal}..${c.shard.firstTerminal + c.shard.terminals - 1} of ${c.shard.totalTerminals})`;

/** A mix below the spec's minimums is named wherever the run is. */
const mixMark = (c: RateConditions): string =>
  c.nonstandardMix === true ? ", non-standard mix (below the spec's minimums)" : '';

/** Seconds of the measured window (warm-up end to window end, from the run's start) under an outage. */
export function outageInWindowS(r: RunReport): number {
  const from = r.config.warmupS;
  const to = from + r.summary.windowSeconds;
  let s = 0;
  for (const o of r.outages ?? [])
    s += Math.max(0, Math.min(to, o.startS + o.durationS) - Math.max(from, o.startS));
  return s;
}

/** The end-of-run table: headline figures, per-type response times, audit, and the tool's own cost. */
export function formatRunSummary(r: RunReport): string {
  const s = r.summary;
  const lines: string[] = [];
  const status =
    r.status === 'completed' ? '' : ` (${r.status.toUpperCase()}${r.failure ? `: ${r.failure}` : ''})`;
  lines.push(`${r.disclaimer}`);
  const ci = s.ci95;
  const tooFew = noiseNote(ci);
  lines.push(
    `measured ${s.windowSeconds.toFixed(1)} s${status}${mixMark(r.config)}${tooFew === undefined ? '' : ` ${tooFew}`}`,
  );
  if (s.partial !== undefined) lines.push(`  PARTIAL: ${s.partial.reason}`);
  if (r.precondition?.steadyState)
    lines.push(`  ${formatSteadyState(r.precondition.steadyState, 'preconditioning')}`);
  if (s.steadyState) lines.push(`  ${formatSteadyState(s.steadyState, 'warm-up')}`);
  if (r.drain.inFlight > 0) lines.push(`  WARNING: ${drainWarning(r.drain)}`);
  const cut = outageInWindowS(r);
  if (cut > 0)
    lines.push(
      `  WARNING: the database was unreachable or not answering for ${cut.toFixed(1)} s of the ${s.windowSeconds.toFixed(1)} s window (outage below): the figures include that time, they are not the speed of the database or its device`,
    );
  const figures = figuresOf(s).map(
    (f) => `${figureLabel(f, r.config)} ${orNa(f.value, (v) => withNoise(v, ci?.figures[f.key], n0))}   `,
  );
  const efficiency =
    s.efficiencyPct === undefined ? '' : `   efficiency ${orNa(s.efficiencyPct, (v) => `${v.toFixed(1)}%`)}`;
  lines.push(
    `  ${figures.join('')}TPS ${withNoise(s.tps, ci?.tps, n2)}   TPM ${orNa(s.tpm, n0)}${efficiency}`,
  );
  const rt = s.responseMs;
  lines.push(
    `  response ms: avg ${withNoise(rt.avg, ci?.responseMs.avg, ms)}  p50 ${ms(rt.p50)}  p90 ${ms(rt.p90)}  p95 ${ms(rt.p95)}  p99 ${withNoise(rt.p99, ci?.responseMs.p99, ms)}  max ${ms(rt.max)}`,
  );
  const legend = noiseLegend(ci);
  if (legend !== undefined) lines.push(`  ${legend}`);
  lines.push('');
  const types = Object.values(r.transactions);
  const limits = types.some((t) => t.p90LimitMs !== undefined);
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
    ...(limits ? ['90th limit'] : []),
  ];
  const keys = Object.keys(r.transactions);
  const rows = types.map((t, i) => [
    t.name,
    n0(t.count),
    t.mixPct.toFixed(2),
    n0(t.errors),
    n0(t.retries),
    withNoise(t.responseMs.avg, ci?.transactions[keys[i]!]?.avg, ms),
    ms(t.responseMs.p50),
    ms(t.responseMs.p90),
    ms(t.responseMs.p95),
    withNoise(t.responseMs.p99, ci?.transactions[keys[i]!]?.p99, ms),
    ms(t.responseMs.max),
    ...(limits
      ? [t.p90LimitMs === undefined ? '' : `${t.p90Pass ? 'PASS' : 'FAIL'} (${t.p90LimitMs / 1000} s)`]
      : []),
  ]);
  lines.push(...table(header, rows).map((l) => `  ${l}`));
  for (const t of types) {
    if (typeof t.rollbacks === 'number')
      lines.push(`  (${t.name} count includes ${n0(t.rollbacks)} rolled back by design)`);
  }
  // Reports written before the edges were recorded, and merges of shards, have none.
  if (r.windowEdges !== undefined) lines.push(`  ${windowEdgesLine(r.windowEdges)}`);
  if (r.audit.checks.length > 0) {
    lines.push('');
    lines.push(`  ${typeof r.audit.title === 'string' ? r.audit.title : 'audit'}:`);
  }
  for (const c of r.audit.checks) {
    const verdict = c.pass === null ? 'n/a ' : c.pass ? 'PASS' : 'FAIL';
    lines.push(
      `    ${verdict}  ${c.name.padEnd(34)} ${c.value === null ? '-' : String(c.value)}  (allowed ${c.allowed})`,
    );
  }
  const whole = r.audit.wholeRun as
    | {
        match: boolean | null;
        newOrdersCommitted: number;
        ordersAddedInDatabase: number | null;
        newOrdersInDoubt?: number;
        note?: string;
      }
    | undefined;
  if (whole !== undefined && whole.match === null && whole.note !== undefined)
    lines.push(
      `    n/a   committed New-Orders = orders added  ${n0(whole.newOrdersCommitted)} committed here (${whole.note})`,
    );
  if (whole !== undefined && whole.match !== null) {
    const doubt = whole.newOrdersInDoubt ?? 0;
    lines.push(
      `    ${whole.match ? 'PASS' : 'FAIL'}  committed New-Orders = orders added  ${n0(whole.newOrdersCommitted)} vs ${n0(whole.ordersAddedInDatabase ?? 0)} (whole run` +
        (doubt > 0 ? `; ${n0(doubt)} in doubt, their connection lost before the outcome came back)` : ')'),
    );
  }
  const errs = Object.entries(r.errors).filter(([, v]) => v > 0);
  if (errs.length > 0) lines.push(`  errors by class: ${errs.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  // Reports written before outages were recorded have none.
  for (const o of r.precondition?.outages ?? [])
    lines.push(`  preconditioning: ${formatOutage(r.config.target, o)}`);
  for (const o of r.outages ?? []) lines.push(`  ${formatOutage(r.config.target, o)}`);
  const f = r.faults as RunReport['faults'] | undefined;
  if (f !== undefined && f.reconnects + f.cancelled + f.abandoned > 0) {
    lines.push(
      `  faults: ${n0(f.reconnects)} connections replaced (${n0(f.reconnectFailures)} failed attempts), ` +
        `${n0(f.cancelled)} calls cancelled after the ${f.txnTimeoutS ?? '-'} s timeout, ${n0(f.abandoned)} abandoned unanswered`,
    );
  }
  if (f?.exceeded) lines.push(`  FAIL: ${f.exceeded}`);
  lines.push('');
  lines.push(
    `  txbench itself: ${s.clientCpu !== null ? cpuText(s.clientCpu) : r.config.mergedFrom !== undefined ? 'CPU in each shard’s run directory' : 'CPU in the all-targets summary'}, ` +
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

/**
 * What the counts above leave out, so that it stays in sight: transactions due in the warm-up that
 * ended in the window, and those still running at its close that ended in the drain.
 */
export function windowEdgesLine(e: WindowEdges): string {
  return (
    `not counted: ${n0(e.dueBefore)} due in the warm-up that ended in the window, ` +
    `${n0(e.drained)} drained after the window (still running at its close)`
  );
}

/** One line on what the drain left unfinished, for the report and stderr. */
export function drainWarning(d: DrainReport): string {
  return (
    `the drain gave up after ${formatDuration(d.limitMs)} with ${n0(d.inFlight)} transaction${d.inFlight === 1 ? '' : 's'} still running ` +
    `and ${n0(d.queued)} never started (the oldest had waited ${formatDuration(d.oldestAgeMs ?? 0)}); they are not in the figures` +
    (d.terminals && d.terminals.length > 0
      ? `; gave up on terminal${d.terminals.length === 1 ? '' : 's'} ${d.terminals.join(', ')}${d.inFlight > d.terminals.length ? ', …' : ''}`
      : '')
  );
}

/**
 * One line per interval (logs, CI) — the terminal view redraws the same line. The New-Order rate
 * is never called tpmC here: an interval does not know the run's pacing.
 */
export function formatInterval(
  i: IntervalRecord,
  labels: Readonly<Record<string, string>> = LEGACY_LABELS,
): string {
  const errors = Object.values(i.perType).reduce((a, t) => a + t.errors, 0);
  const figures = Object.entries(labels)
    .filter(([key]) => typeof i[key] === 'number')
    .map(([key, label]) => `  ${label} ${n0(i[key] as number).padStart(8)}`)
    .join('');
  // The two most frequent types of the mix come first in every workload's order.
  const types = Object.entries(i.perType)
    .slice(0, 2)
    .map(([key, t]) => `  ${typeNameOf(key)} avg ${ms(t.avgMs)} p90 ${ms(t.p90Ms)} ms`)
    .join('');
  return (
    `[${formatDuration(i.atS * 1000).padStart(6)} ${i.phase.padEnd(7)}] TPS ${n2(i.tps).padStart(9)}${figures}` +
    types +
    (errors ? `  errors ${errors}` : '')
  );
}

/** Interval figures as files from before workloads named them had them. */
const LEGACY_LABELS: Readonly<Record<string, string>> = { tpmC: 'New-Orders/min' };

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const fmt = (cells: string[]): string =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  return [fmt(header), ...rows.map(fmt)];
}

/** Several targets at once: one row per target, the sum, and the spread of TPS across them. */
export function formatTargetsTable(reports: readonly RunReport[], sum: AggregateSummary): string {
  const figures = figuresOf(reports[0]?.summary ?? {});
  const labelOf = (f: (typeof figures)[number]): string => {
    const labels = new Set(reports.map((r) => figureLabel(f, r.config)));
    return labels.size === 1 ? [...labels][0]! : f.pacedSpec ? f.unit : f.label;
  };
  const valueOf = (r: RunReport, key: string): number | null =>
    figuresOf(r.summary).find((f) => f.key === key)?.value ?? null;
  const header = ['target', 'TPS', ...figures.map(labelOf), 'avg ms', 'p90', 'p99', 'errors', 'status'];
  const rows = reports.map((r) => [
    r.config.target,
    n2(r.summary.tps),
    ...figures.map((f) => orNa(valueOf(r, f.key), n0)),
    ms(r.summary.responseMs.avg),
    ms(r.summary.responseMs.p90),
    ms(r.summary.responseMs.p99),
    n0(r.summary.errors),
    r.summary.partial === undefined ? r.status : `${r.status}, partial`,
  ]);
  rows.push([
    `all ${sum.targets} (sum)`,
    n2(sum.tps),
    ...figures.map((f) => orNa(sumOf(sum, f.key), n0)),
    ms(sum.responseMs.avg),
    ms(sum.responseMs.p90),
    ms(sum.responseMs.p99),
    n0(sum.errors),
    '',
  ]);
  const spread = sum.spread;
  return [
    reports[0]?.disclaimer ?? '',
    ...table(header, rows),
    `TPS spread across targets: min ${n2(spread.minTps)}, max ${n2(spread.maxTps)}, max/min ${spread.maxOverMin === null ? 'n/a' : spread.maxOverMin.toFixed(4)}`,
    `txbench itself (one process for all targets): ${sum.clientCpu === null ? 'CPU not measured' : cpuText(sum.clientCpu)}`,
    ...reports.flatMap((r) => formatStorage(r.summary).map((l) => `${r.config.target}: ${l}`)),
    ...reports.flatMap((r) => [
      ...(r.precondition?.outages ?? []).map((o) => `preconditioning: ${formatOutage(r.config.target, o)}`),
      ...(r.outages ?? []).map((o) => formatOutage(r.config.target, o)),
    ]),
    ...reports
      .filter((r) => r.drain.inFlight > 0)
      .map((r) => `WARNING ${r.config.target}: ${drainWarning(r.drain)}`),
  ].join('\n');
}

/** A figure summed over the targets (files from before workloads: their tpmC and NOPM sums). */
function sumOf(sum: AggregateSummary, key: string): number | null {
  const summed = sum.figures?.find((f) => f.key === key);
  if (summed !== undefined) return summed.value;
  return key === 'tpmC' ? (sum.tpmC ?? null) : key === 'nopm' ? (sum.nopm ?? null) : null;
}

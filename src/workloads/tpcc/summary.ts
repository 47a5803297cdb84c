/**
 * Turns what the engine measured into the figures reviewers read: TPS, tpmC, NOPM, TPM, response
 * times per type and overall, the audit figures of clause 5.5.1.5, and the tool's own overhead.
 * Pure, so the arithmetic is unit-tested.
 */
import { ceilingPerTerminalPerMinute } from '../../engine/ceiling.js';
import type { EngineResult } from '../../engine/engine.js';
import { clientCpuFigures, type ClientCpu, type ProcessCpu } from '../../metrics/client-cpu.js';
import { latencyMs, newHistogram, type LatencyMs } from '../../metrics/histogram.js';
import type { DatabaseFigures, DeviceWindowFigures, HostFigures } from '../../monitor/types.js';
import { MIX_MINIMUMS, NEW_ORDER, P90_LIMITS_MS, TPCC_TRANSACTIONS, type TpccCounters } from './profile.js';

export interface TypeSummary {
  name: string;
  /** Completed in the measured window (rolled-back New-Orders included). */
  count: number;
  errors: number;
  retries: number;
  /** Share of all completed transactions, percent. */
  mixPct: number;
  responseMs: LatencyMs;
  p90LimitMs: number;
  p90Pass: boolean;
  rollbacks?: number;
}

export interface AuditCheck {
  name: string;
  value: number | null;
  /** The allowed range, as text. */
  allowed: string;
  /** null when the figure cannot apply (e.g. remote rates with one warehouse). */
  pass: boolean | null;
}

export interface RunSummary {
  windowSeconds: number;
  transactions: number;
  tps: number;
  /** New-Orders completed per minute of the window, rolled back included, truncated (clause 5.4.2). */
  tpmC: number;
  /** Committed New-Orders per minute, from sum(D_NEXT_O_ID); null when it could not be read. */
  nopm: number | null;
  /** Database transactions per minute from the server's counters; null when unavailable. */
  tpm: number | null;
  responseMs: LatencyMs;
  /**
   * The most tpmC the configured terminals could reach if every response took no time, from the
   * deck and the spec's keying and think times (12.61 per 10 terminals with the 23-card deck);
   * only for paced runs (think-scale 1), else null.
   */
  ceilingTpmC: number | null;
  /** tpmC as a percentage of `ceilingTpmC`; only for paced runs (think-scale 1), else null. */
  efficiencyPct: number | null;
  errors: number;
  retries: number;
  /**
   * The txbench process's CPU over the window. null when other targets ran in the same process at
   * the same time: process CPU cannot be split between targets on one thread, so it is reported
   * once, in the several-target summary, instead.
   */
  clientCpu: ClientCpu | null;
  /**
   * How late the scheduler handed transactions to the connection pool (due time to submission),
   * over every submission in the window; null only when nothing was submitted in it.
   */
  schedulerLatenessMs: { p50: number; p99: number; max: number } | null;
  /**
   * The disks under the data and log over the window. Absent when monitoring was off (and in
   * files from before schemaVersion 3); empty when no block device could be found.
   */
  devices?: DeviceWindowFigures[] | undefined;
  /** The database host over the window (this machine, or a node_exporter's); null when unread. */
  host?: HostFigures | null | undefined;
  /** The database's own I/O counters over the window, per dialect. */
  database?: DatabaseFigures | null | undefined;
  /** Where the figures were read, and one line per thing that could not be (n/a, missing). */
  monitor?: { source: string; notes: string[] } | undefined;
}

export interface SummaryInputs {
  engine: EngineResult<TpccCounters>;
  warehouses: number;
  /** Terminals driven (default 10 per warehouse): the efficiency ceiling is per terminal. */
  terminals?: number | undefined;
  /** Cards per type in each terminal's deck, as configured: the efficiency ceiling depends on it. */
  deck: readonly number[];
  thinkScale: number;
  /** sum(D_NEXT_O_ID) at the window's start and end. */
  nextOrderIds?: { start: number; end: number } | undefined;
  /** Server commits + rollbacks at the window's start and end. */
  serverTransactions?: { start: number; end: number } | undefined;
  /** The process's CPU over the window; null when it cannot be attributed to this run alone. */
  cpu: ProcessCpu | null;
}

const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
const pct = (part: number, whole: number): number => (whole > 0 ? round((100 * part) / whole, 3) : 0);

export function summarizeTypes(engine: EngineResult<TpccCounters>): Record<string, TypeSummary> {
  const total = engine.perType.reduce((a, t) => a + t.count, 0);
  const out: Record<string, TypeSummary> = {};
  TPCC_TRANSACTIONS.forEach((spec, i) => {
    const stats = engine.perType[i]!;
    const responseMs = latencyMs(stats.histogram);
    out[spec.key] = {
      name: spec.name,
      count: stats.count,
      errors: stats.errors,
      retries: stats.retries,
      mixPct: pct(stats.count, total),
      responseMs,
      p90LimitMs: P90_LIMITS_MS[i]!,
      p90Pass: responseMs.p90 <= P90_LIMITS_MS[i]!,
      ...(i === 0 ? { rollbacks: engine.counters.newOrderRollbacks } : {}),
    };
  });
  return out;
}

export function summarize(inputs: SummaryInputs): RunSummary {
  const { engine } = inputs;
  const seconds = engine.windowSeconds;
  const minutes = seconds / 60;
  const transactions = engine.perType.reduce((a, t) => a + t.count, 0);
  const all = newHistogram();
  for (const t of engine.perType) all.add(t.histogram);
  const newOrders = engine.perType[0]?.count ?? 0;
  const tpmC = seconds > 0 ? Math.floor((newOrders * 60) / seconds) : 0;
  const terminals = inputs.terminals ?? 10 * inputs.warehouses;
  const ceilingTpmC =
    inputs.thinkScale === 1
      ? ceilingPerTerminalPerMinute(inputs.deck, TPCC_TRANSACTIONS, 1, NEW_ORDER) * terminals
      : null;
  const delta = (s: { start: number; end: number } | undefined): number | null =>
    s === undefined || minutes <= 0 ? null : round((s.end - s.start) / minutes, 1);
  return {
    windowSeconds: round(seconds, 3),
    transactions,
    tps: seconds > 0 ? round(transactions / seconds) : 0,
    tpmC,
    nopm: delta(inputs.nextOrderIds),
    tpm: delta(inputs.serverTransactions),
    responseMs: latencyMs(all),
    ceilingTpmC: ceilingTpmC === null ? null : round(ceilingTpmC, 2),
    efficiencyPct: ceilingTpmC !== null && ceilingTpmC > 0 ? round((100 * tpmC) / ceilingTpmC, 1) : null,
    errors: engine.perType.reduce((a, t) => a + t.errors, 0),
    retries: engine.perType.reduce((a, t) => a + t.retries, 0),
    clientCpu: inputs.cpu === null ? null : clientCpuFigures(inputs.cpu, seconds, transactions),
    schedulerLatenessMs:
      engine.lateness.totalCount === 0
        ? null
        : {
            p50: round(engine.lateness.getValueAtPercentile(50) / 1000, 3),
            p99: round(engine.lateness.getValueAtPercentile(99) / 1000, 3),
            max: round(engine.lateness.maxValue / 1000, 3),
          },
  };
}

/** The input-variability limits of clause 5.5.1.5, the skip limit of 2.7.4 and the mix minimums. */
export function auditChecks(engine: EngineResult<TpccCounters>, warehouses: number): AuditCheck[] {
  const c = engine.counters;
  const [newOrder, payment, orderStatus, delivery] = engine.perType.map((t) => t.count);
  const total = engine.perType.reduce((a, t) => a + t.count, 0);
  const within = (v: number, lo: number, hi: number): boolean => v >= lo && v <= hi;
  const remoteApplies = warehouses > 1;
  const checks: AuditCheck[] = [
    {
      name: 'New-Order rollbacks %',
      value: pct(c.newOrderRollbacks, newOrder ?? 0),
      allowed: '0.9..1.1',
      pass: within(pct(c.newOrderRollbacks, newOrder ?? 0), 0.9, 1.1),
    },
    {
      name: 'order lines per New-Order',
      value: newOrder ? round(c.orderLines / newOrder, 3) : 0,
      allowed: '9.5..10.5',
      pass: newOrder ? within(c.orderLines / newOrder, 9.5, 10.5) : false,
    },
    {
      name: 'remote order lines %',
      value: pct(c.remoteOrderLines, c.orderLines),
      allowed: '0.95..1.05',
      pass: remoteApplies ? within(pct(c.remoteOrderLines, c.orderLines), 0.95, 1.05) : null,
    },
    {
      name: 'remote Payments %',
      value: pct(c.remotePayments, payment ?? 0),
      allowed: '14..16',
      pass: remoteApplies ? within(pct(c.remotePayments, payment ?? 0), 14, 16) : null,
    },
    {
      name: 'Payments by last name %',
      value: pct(c.paymentsByName, payment ?? 0),
      allowed: '57..63',
      pass: within(pct(c.paymentsByName, payment ?? 0), 57, 63),
    },
    {
      name: 'Order-Status by last name %',
      value: pct(c.orderStatusByName, orderStatus ?? 0),
      allowed: '57..63',
      pass: within(pct(c.orderStatusByName, orderStatus ?? 0), 57, 63),
    },
    {
      name: 'Deliveries with skipped districts',
      value: c.deliveriesWithSkips,
      allowed: `<= max(1% of Deliveries, 1) = ${Math.max(1, Math.floor((delivery ?? 0) / 100))}`,
      pass: c.deliveriesWithSkips <= Math.max(1, Math.floor((delivery ?? 0) / 100)),
    },
  ];
  TPCC_TRANSACTIONS.forEach((spec, i) => {
    const minimum = MIX_MINIMUMS[i]!;
    if (minimum > 0) {
      const share = pct(engine.perType[i]!.count, total);
      checks.push({
        name: `${spec.name} share %`,
        value: share,
        allowed: `>= ${minimum}`,
        pass: share >= minimum,
      });
    }
  });
  return checks;
}

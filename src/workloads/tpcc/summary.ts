/**
 * Turns what the engine measured into the figures reviewers read: TPS, tpmC, NOPM, TPM, response
 * times per type and overall, the audit figures of clause 5.5.1.5, and the tool's own overhead.
 * Pure, so the arithmetic is unit-tested.
 */
import { ceilingPerTerminalPerMinute } from '../../engine/ceiling.js';
import type { ClientCpu } from '../../metrics/client-cpu.js';
import type { LatencyMs } from '../../metrics/histogram.js';
import { pct, round, type TypeSummary } from '../../metrics/window-summary.js';
import type { DatabaseFigures, DeviceWindowFigures, HostFigures } from '../../monitor/types.js';
import type { Measurement } from '../workload.js';
import { MIX_MINIMUMS, NEW_ORDER, TPCC_TRANSACTIONS, type TpccCounters } from './profile.js';

export type { TypeSummary };

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

/** TPC-C's own summary fields: tpmC, NOPM and, for paced runs, the ceiling and efficiency. */
export function tpccFigures(inputs: {
  windowSeconds: number;
  newOrders: number;
  terminals: number;
  deck: readonly number[];
  thinkScale: number;
  nextOrderIds?: { start: number; end: number } | undefined;
}): Pick<RunSummary, 'tpmC' | 'nopm' | 'ceilingTpmC' | 'efficiencyPct'> {
  const seconds = inputs.windowSeconds;
  const minutes = seconds / 60;
  const tpmC = seconds > 0 ? Math.floor((inputs.newOrders * 60) / seconds) : 0;
  const ceilingTpmC =
    inputs.thinkScale === 1
      ? ceilingPerTerminalPerMinute(inputs.deck, TPCC_TRANSACTIONS, 1, NEW_ORDER) * inputs.terminals
      : null;
  const ids = inputs.nextOrderIds;
  return {
    tpmC,
    nopm: ids === undefined || minutes <= 0 ? null : round((ids.end - ids.start) / minutes, 1),
    ceilingTpmC: ceilingTpmC === null ? null : round(ceilingTpmC, 2),
    efficiencyPct: ceilingTpmC !== null && ceilingTpmC > 0 ? round((100 * tpmC) / ceilingTpmC, 1) : null,
  };
}

/** TPC-C's figures of one measured window: for a run's summary and for merged shards alike. */
export function measurementFigures(
  m: Measurement<TpccCounters>,
): Pick<RunSummary, 'tpmC' | 'nopm' | 'ceilingTpmC' | 'efficiencyPct'> {
  const ids = m.windowCounters;
  return tpccFigures({
    windowSeconds: m.windowSeconds,
    newOrders: m.counts[NEW_ORDER] ?? 0,
    terminals: m.terminals,
    deck: m.deck,
    thinkScale: m.thinkScale,
    nextOrderIds:
      ids?.start.nextOrderIds === undefined || ids.end.nextOrderIds === undefined
        ? undefined
        : { start: ids.start.nextOrderIds, end: ids.end.nextOrderIds },
  });
}

/** The input-variability limits of clause 5.5.1.5, the skip limit of 2.7.4 and the mix minimums. */
export function auditChecks(
  engine: { counters: TpccCounters; perType: readonly { count: number }[] },
  warehouses: number,
): AuditCheck[] {
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

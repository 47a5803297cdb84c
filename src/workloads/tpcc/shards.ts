/**
 * TPC-C's side of runs split into shards on several load machines: a shard's audit cannot
 * reconcile its New-Orders with the database (the other shards wrote too), so it records its
 * readings of sum(D_NEXT_O_ID), and `txbench merge` reconciles the shards' New-Orders together.
 */
import type { AuditBasis, HeadlineFigure, MergedShardFigures, ShardMergeInput } from '../workload.js';
import type { TpccCounters } from './profile.js';
import { auditChecks, measurementFigures } from './summary.js';

/** The whole-run reconciliation: New-Orders txbench saw commit against orders the database gained. */
export interface WholeRunAudit {
  newOrdersCommitted: number;
  ordersAddedInDatabase: number | null;
  newOrdersInDoubt: number;
  match: boolean | null;
  note?: string | undefined;
}

export function wholeRunAudit(committed: number, added: number | null, inDoubt: number): WholeRunAudit {
  return {
    newOrdersCommitted: committed,
    ordersAddedInDatabase: added,
    // A New-Order whose connection died mid-commit may have committed unseen: the database may
    // have up to that many more orders, never fewer.
    newOrdersInDoubt: inDoubt,
    match: added === null ? null : added >= committed && added <= committed + inDoubt,
  };
}

export const SHARD_AUDIT_NOTE =
  'one shard of several: the database holds every shard’s orders, so `txbench merge` reconciles them';

/** What a shard records: sum(D_NEXT_O_ID) before its run and after its drain, and when. */
export function nextOrderIdsBasis(
  start: { ids: number | undefined; at: Date } | undefined,
  end: { ids: number | undefined; at: Date } | undefined,
): AuditBasis {
  return {
    nextOrderIdsAtStart: start?.ids ?? null,
    nextOrderIdsAtStartAt: start?.at.toISOString() ?? null,
    nextOrderIdsAtEnd: end?.ids ?? null,
    nextOrderIdsAtEndAt: end?.at.toISOString() ?? null,
  };
}

/**
 * Orders the database gained over the whole run, every shard's: the largest reading after a drain
 * less the smallest before a start. Every shard reads before the common starting gate and after
 * its own drain, and the counter only grows, so these bracket every shard's work. null when any
 * shard lacks a reading.
 */
export function ordersAddedAcrossShards(bases: readonly AuditBasis[]): number | null {
  const starts = bases.map((b) => b.nextOrderIdsAtStart);
  const ends = bases.map((b) => b.nextOrderIdsAtEnd);
  if (bases.length === 0 || [...starts, ...ends].some((v) => typeof v !== 'number')) return null;
  return Math.max(...(ends as number[])) - Math.min(...(starts as number[]));
}

export function mergeTpccShards(input: ShardMergeInput<TpccCounters>): MergedShardFigures {
  const m = input.measurement;
  const warehouses = typeof input.config.warehouses === 'number' ? input.config.warehouses : 1;
  const f = measurementFigures(m);
  // New-Orders per minute counted by the terminals: every shard's, over its own window, added.
  const tpmC = input.summaries.reduce((a, s) => a + (typeof s.tpmC === 'number' ? s.tpmC : 0), 0);
  const ceiling = f.ceilingTpmC ?? null;
  const efficiencyPct = ceiling !== null && ceiling > 0 ? Math.round((1000 * tpmC) / ceiling) / 10 : null;
  const checks = auditChecks(
    { counters: m.counters, perType: m.counts.map((count) => ({ count })) },
    warehouses,
  );
  const figures: HeadlineFigure[] = [
    { key: 'tpmC', label: 'tpmC', value: tpmC, unit: 'New-Orders/min', pacedSpec: true },
    { key: 'nopm', label: 'NOPM', value: f.nopm ?? null, unit: 'committed New-Orders/min' },
  ];
  return {
    summary: { ...f, tpmC, efficiencyPct },
    figures,
    audit: {
      counters: m.counters,
      checks,
      pass: checks.every((c) => c.pass !== false),
      wholeRun: wholeRunAudit(
        input.tallies.committedNewOrders ?? 0,
        ordersAddedAcrossShards(input.bases),
        input.tallies.newOrdersInDoubt ?? 0,
      ),
    },
  };
}

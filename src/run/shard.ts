/**
 * One shard of a run driven from several load machines (`--shard I/N`): which terminals and
 * connections it drives (the same slicing as worker threads, engine/slice.ts), what run.json
 * records so that `txbench merge` can put the shards back together, and how far this machine's
 * clock is from the database server's (their windows are lined up on wall-clock time).
 */
import os from 'node:os';
import type { Db, Dialect } from '../dialects/dialect.js';
import { sliceConnections, sliceTerminals } from '../engine/slice.js';
import type { Counters } from '../engine/types.js';
import { UsageError } from '../errors.js';
import type { ShardBasis, ShardConfig } from '../results/shard-file.js';
import type { PreparedRun, WindowCounters } from '../workloads/workload.js';

/** `--shard I/N` and `--start-at`, as parsed. */
export interface ShardOptions {
  /** 1-based, as on the command line. */
  index: number;
  count: number;
  /** The common starting gate; undefined without --start-at. */
  startAt?: Date | undefined;
}

/** The terminals and connections shard `shard` of `totalTerminals` drives. */
export function shardSlice(
  shard: ShardOptions,
  totalTerminals: number,
  totalConnections: number,
): { firstTerminal: number; terminals: number; connections: number } {
  const slice = sliceTerminals(totalTerminals, shard.index - 1, shard.count);
  if (slice.count === 0) {
    throw new UsageError(
      `--shard ${shard.index}/${shard.count} has no terminals: --terminals ${totalTerminals} is fewer than ${shard.count} shards; use more terminals or fewer shards`,
    );
  }
  return {
    firstTerminal: slice.first,
    terminals: slice.count,
    connections: sliceConnections(totalConnections, slice, totalTerminals),
  };
}

/**
 * Local clock minus the server's, ms (to 0.1 ms): the server's reading is taken to be half-way
 * through the round trip. null when the dialect cannot read the server's clock or it fails.
 */
export async function clockOffsetMs(dialect: Dialect, db: Db): Promise<number | null> {
  if (dialect.serverTimeMs === undefined) return null;
  try {
    const before = Date.now();
    const server = await dialect.serverTimeMs(db);
    const after = Date.now();
    if (server === undefined || !Number.isFinite(server)) return null;
    return Math.round(((before + after) / 2 - server) * 10) / 10;
  } catch {
    return null;
  }
}

export async function shardConfig(
  shard: ShardOptions,
  totals: { terminals: number; connections: number },
  dialect: Dialect,
  db: Db,
): Promise<{ config: ShardConfig; connections: number }> {
  const slice = shardSlice(shard, totals.terminals, totals.connections);
  const config: ShardConfig = {
    index: shard.index,
    count: shard.count,
    firstTerminal: slice.firstTerminal,
    terminals: slice.terminals,
    totalTerminals: totals.terminals,
    totalConnections: totals.connections,
    host: os.hostname(),
    startAt: shard.startAt?.toISOString() ?? null,
    clockOffsetMs: await clockOffsetMs(dialect, db),
  };
  return { config, connections: slice.connections };
}

export function shardBasis(
  prepared: PreparedRun,
  windowSeconds: number,
  counters: Counters,
  windowCounters: { start: WindowCounters; end: WindowCounters } | undefined,
): ShardBasis {
  return {
    windowSeconds,
    counters,
    runTallies: prepared.runTallies?.() ?? {},
    windowCounters: windowCounters ?? null,
    audit: prepared.auditBasis?.() ?? null,
  };
}

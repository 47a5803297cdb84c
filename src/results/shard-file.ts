/** What run.json records of one shard of a run on several load machines (`--shard I/N`). */
import type { Counters } from '../engine/types.js';
import type { AuditBasis, WindowCounters } from '../workloads/workload.js';

/** run.json's `config.shard`. */
export interface ShardConfig {
  index: number;
  count: number;
  firstTerminal: number;
  /** This shard's terminals (config.terminals is the same number). */
  terminals: number;
  /** The whole run's, every shard's together (--terminals). */
  totalTerminals: number;
  /** The whole run's connections (--connections or its default), before slicing. */
  totalConnections: number;
  host: string;
  startAt: string | null;
  /** This machine's clock less the database server's, ms; null when the server does not say. */
  clockOffsetMs: number | null;
}

/** What a shard records for the merge beside its own figures (run.json's `shardBasis`). */
export interface ShardBasis {
  /** The measured window's length, unrounded (the database's counters are per minute of it). */
  windowSeconds: number;
  /** The workload's tallies over the window (summed into the merged audit's checks). */
  counters: Counters;
  /** PreparedRun.runTallies(): whole-run tallies outside the window. */
  runTallies: Record<string, number>;
  /** The database's window counters at this shard's window edges (shard 1's give NOPM). */
  windowCounters: { start: WindowCounters; end: WindowCounters } | null;
  /** PreparedRun.auditBasis(): the workload's database readings for the merged audit. */
  audit: AuditBasis | null;
}

/**
 * What a database's TPC-C support provides: its transactions for the generic executor. Kept apart
 * from the loader registry (tpcc-dialect.ts) so that the per-dialect folders depend on these
 * types without importing the registry that imports them.
 */
import type { Dialect } from '../../dialects/dialect.js';
import type { DdlFlavor } from '../../dialects/ddl.js';
import type { TransactionSet } from '../workload.js';
import type { TpccRunState, TpccTerminal } from './bodies.js';
import type { TpccCounters } from './profile.js';

export interface ExecutorOptions {
  /** Server-side procedures, one round trip per transaction, instead of client-side SQL. */
  procedures: boolean;
}

export interface TpccDialect {
  readonly dialect: Dialect;
  readonly ddl: DdlFlavor;
  /** Statements that refresh the planner's statistics for a table. */
  analyze(table: string): string[];
  /** Opens `slots` connection slots and binds the five transactions to them. */
  openTransactions(
    url: string,
    slots: number,
    run: TpccRunState,
    options: ExecutorOptions,
  ): Promise<TransactionSet<TpccTerminal, TpccCounters>>;
}

/** A database's TPC-C support from its dialect and its transaction opener. */
export function tpccDialect(
  dialect: Dialect,
  openTransactions: TpccDialect['openTransactions'],
): TpccDialect {
  return { dialect, ddl: dialect.ddl, analyze: (table) => dialect.analyze(table), openTransactions };
}

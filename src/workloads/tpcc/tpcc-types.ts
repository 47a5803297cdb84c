/**
 * The shapes a database's TPC-C support takes: the executor that runs the five transactions and
 * the per-dialect bundle. Kept apart from the loader registry (tpcc-dialect.ts) so that the
 * per-dialect folders depend on these types without importing the registry that imports them.
 */
import type { Dialect } from '../../dialects/dialect.js';
import type { Executor } from '../../engine/types.js';
import type { RunInputContext } from './inputs.js';
import type { TpccCounters } from './profile.js';
import type { DdlFlavor, TableName } from './schema.js';

export interface TpccExecutor extends Executor<TpccCounters> {
  /** New-Orders committed over the executor's whole life, to audit against the database. */
  readonly committedNewOrders: number;
  close(): Promise<void>;
}

export interface ExecutorOptions {
  /** Server-side procedures, one round trip per transaction, instead of client-side SQL. */
  procedures: boolean;
}

export interface TpccDialect {
  readonly dialect: Dialect;
  readonly ddl: DdlFlavor;
  /** Statements that refresh the planner's statistics for a table. */
  analyze(table: TableName): string[];
  openExecutor(
    url: string,
    connections: number,
    ctx: RunInputContext,
    options: ExecutorOptions,
  ): Promise<TpccExecutor>;
}

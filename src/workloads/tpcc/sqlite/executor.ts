/**
 * TPC-C on SQLite: the slots share one connection and the generic executor runs transactions one
 * at a time (dialects/sqlite/connections.ts says why).
 *
 * Why not a worker thread per connection: writers would still queue for the one write lock, and
 * a transaction costs 100-1300 µs of SQLite CPU against ~30 µs of engine work, so the main thread
 * has little to overlap; only Order-Status and Stock-Level (about a tenth of the database time in
 * the standard mix) could run beside the writer, and message passing would eat into that on two
 * cores.
 */
import { openSqliteConnections } from '../../../dialects/sqlite/connections.js';
import type { SqliteDatabase } from '../../../dialects/sqlite/connect.js';
import { UsageError } from '../../../errors.js';
import type { TransactionSet } from '../../workload.js';
import { tpccTransactions, type TpccOperations, type TpccRunState, type TpccTerminal } from '../bodies.js';
import type { TpccCounters } from '../profile.js';
import type { ExecutorOptions } from '../tpcc-types.js';
import { SqliteTransactions } from './transactions.js';

export async function openSqliteTpcc(
  url: string,
  slots: number,
  run: TpccRunState,
  options: ExecutorOptions,
): Promise<TransactionSet<TpccTerminal, TpccCounters, SqliteDatabase>> {
  if (options.procedures) throw new UsageError('--procedures is not available for sqlite; run without it');
  const connections = await openSqliteConnections(url, slots);
  const tx = new SqliteTransactions(connections.handle(0));
  const ops: TpccOperations<SqliteDatabase> = {
    newOrder: (_, w, input) => tx.newOrder(w, input),
    payment: (_, w, input) => tx.payment(w, input),
    orderStatus: (_, w, input) => tx.orderStatus(w, input.d, input.customer),
    delivery: (_, w, carrier) => tx.delivery(w, carrier),
    stockLevel: (_, w, d, threshold) => tx.stockLevel(w, d, threshold),
  };
  return tpccTransactions(connections, ops, run);
}

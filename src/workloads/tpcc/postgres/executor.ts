/**
 * TPC-C on PostgreSQL: one reserved connection per slot, the five transactions as client-side SQL
 * or as server-side functions (`--procedures`, installed on first use).
 */
import { openPostgresConnections, type PostgresConn } from '../../../dialects/postgres/connections.js';
import type { TransactionSet } from '../../workload.js';
import { tpccTransactions, type TpccRunState, type TpccTerminal } from '../bodies.js';
import type { TpccCounters } from '../profile.js';
import type { ExecutorOptions } from '../tpcc-types.js';
import { clientSqlTransactions } from './client-sql.js';
import { installProcedures, procedureTransactions } from './procedure-calls.js';

export async function openPostgresTpcc(
  url: string,
  slots: number,
  run: TpccRunState,
  options: ExecutorOptions,
): Promise<TransactionSet<TpccTerminal, TpccCounters, PostgresConn>> {
  const connections = await openPostgresConnections(url, slots);
  try {
    if (options.procedures) await installProcedures(connections.handle(0));
  } catch (err) {
    await connections.close().catch(() => undefined);
    throw err;
  }
  return tpccTransactions(
    connections,
    options.procedures ? procedureTransactions : clientSqlTransactions,
    run,
  );
}

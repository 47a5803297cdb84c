/**
 * TPC-C on SQL Server, each transaction one round trip: a parameterized T-SQL batch (client-side
 * mode) or a stored-procedure call (procedure mode), over a driver pool of one connection per
 * slot. A lost connection is dropped by the pool and replaced on next use.
 */
import {
  mssqlConnectionsOnPool,
  openMssqlConnections,
  type MssqlHandle,
} from '../../../dialects/mssql/connections.js';
import { parseMssqlUrl } from '../../../dialects/mssql/config.js';
import { mssqlDb } from '../../../dialects/mssql/dialect.js';
import type { MssqlModule, MssqlPool, MssqlResult, MssqlTypeSpec } from '../../../dialects/mssql/driver.js';
import type { TransactionSet } from '../../workload.js';
import { tpccTransactions, type TpccRunState, type TpccTerminal } from '../bodies.js';
import { UNUSED_ITEM_ID } from '../inputs.js';
import type { TpccCounters } from '../profile.js';
import type { ExecutorOptions } from '../tpcc-types.js';
import { installProcedures } from './procedures.js';
import * as Q from './sql.js';

/** Outcome of a New-Order batch, from its first result set. */
export function newOrderOutcome(result: MssqlResult, expectRollback: boolean): 'committed' | 'rolledBack' {
  const row = result.recordsets[0]?.[0];
  if (row === undefined) throw new Error('New-Order returned no outcome');
  const rolledBack = Number(row.rolled_back) === 1;
  if (rolledBack && !expectRollback) throw new Error('New-Order found item numbers missing from ITEM');
  if (!rolledBack && expectRollback) {
    throw new Error(`New-Order committed although item ${UNUSED_ITEM_ID} should not exist`);
  }
  return rolledBack ? 'rolledBack' : 'committed';
}

/** Districts delivered: one row per delivered (D_ID, O_ID); the others were skipped. */
export function deliveredDistricts(result: MssqlResult): number {
  return result.recordsets[0]?.length ?? 0;
}

export async function openMssqlTpcc(
  url: string,
  slots: number,
  run: TpccRunState,
  options: ExecutorOptions,
): Promise<TransactionSet<TpccTerminal, TpccCounters, MssqlHandle>> {
  const connections = await openMssqlConnections(url, slots);
  try {
    if (options.procedures) {
      const { sql, pool } = connections.handle(0);
      await installProcedures(mssqlDb(sql, pool), parseMssqlUrl(url).database);
    }
  } catch (err) {
    await connections.close().catch(() => undefined);
    throw err;
  }
  return mssqlTpccTransactions(connections.handle(0).sql, connections.handle(0).pool, slots, run, options);
}

/** The transactions over a pool that is already open (and, in procedure mode, has the procedures). */
export function mssqlTpccTransactions(
  sql: MssqlModule,
  pool: MssqlPool,
  slots: number,
  run: TpccRunState,
  options: ExecutorOptions,
): TransactionSet<TpccTerminal, TpccCounters, MssqlHandle> {
  const types: Readonly<Record<Q.ParamType, MssqlTypeSpec>> = {
    int: sql.Int(),
    'varchar(16)': sql.VarChar(16),
    'numeric(6,2)': sql.Numeric(6, 2),
  };
  /** One round trip: the batch through sp_executesql, or the procedure by RPC, same parameters. */
  const call = (
    conn: MssqlHandle,
    tx: Q.TransactionSql,
    params: readonly Q.ParamValue[],
  ): Promise<MssqlResult> => {
    // The slot's own request, so that the transaction timeout can cancel it.
    const request = conn.request();
    for (const p of params) request.input(p.name, types[p.type], p.value);
    return options.procedures ? request.execute(tx.procedure) : request.query(tx.body);
  };
  return tpccTransactions(
    mssqlConnectionsOnPool(sql, pool, slots),
    {
      newOrder: async (conn, w, input) =>
        newOrderOutcome(await call(conn, Q.NEW_ORDER, Q.newOrderParams(w, input)), input.rollback),
      payment: (conn, w, input) => call(conn, Q.PAYMENT, Q.paymentParams(w, input)),
      orderStatus: (conn, w, input) => call(conn, Q.ORDER_STATUS, Q.orderStatusParams(w, input)),
      delivery: async (conn, w, carrier) =>
        deliveredDistricts(await call(conn, Q.DELIVERY, Q.deliveryParams(w, carrier))),
      stockLevel: (conn, w, d, threshold) => call(conn, Q.STOCK_LEVEL, Q.stockLevelParams(w, d, threshold)),
    },
    run,
  );
}

/**
 * TPC-C on PostgreSQL: one connection per slot, the five transactions as client-side SQL or as
 * server-side functions (`--procedures`, installed on first use). Both run on the wire path
 * (dialects/postgres/wire) when the URL allows it (no TLS) and the server speaks what it does;
 * otherwise, and with TXBENCH_PG_DRIVER=postgres.js, on postgres.js.
 */
import { connectChecked } from '../../../dialects/postgres/connect.js';
import { openPostgresConnections } from '../../../dialects/postgres/connections.js';
import { UnsupportedByWire } from '../../../dialects/postgres/wire/connection.js';
import { openWireConnections } from '../../../dialects/postgres/wire/slots.js';
import { wantsWire, wireTarget } from '../../../dialects/postgres/wire/target.js';
import type { TransactionSet } from '../../workload.js';
import {
  tpccCallbackTransactions,
  tpccTransactions,
  type TpccRunState,
  type TpccTerminal,
} from '../bodies.js';
import type { TpccCounters } from '../profile.js';
import type { ExecutorOptions } from '../tpcc-types.js';
import { clientSqlTransactions, wireClientSqlTransactions } from './client-sql.js';
import { installProcedures, procedureTransactions } from './procedure-calls.js';
import { WIRE_PROCEDURE_STATEMENTS, wireProcedureCalls } from './wire-procedure-calls.js';

export async function openPostgresTpcc(
  url: string,
  slots: number,
  run: TpccRunState,
  options: ExecutorOptions,
): Promise<TransactionSet<TpccTerminal, TpccCounters>> {
  if (wantsWire()) {
    const wire = wireTarget(url);
    if ('target' in wire) {
      if (options.procedures) await installWith(url);
      try {
        const connections = await openWireConnections(
          url,
          wire.target,
          slots,
          options.procedures ? WIRE_PROCEDURE_STATEMENTS : [],
        );
        return options.procedures
          ? tpccCallbackTransactions(connections, wireProcedureCalls, run)
          : tpccTransactions(connections, wireClientSqlTransactions(), run);
      } catch (err) {
        if (!(err instanceof UnsupportedByWire)) throw err;
      }
    }
  }
  const connections = await openPostgresConnections(url, slots);
  try {
    if (options.procedures) await installProcedures(connections.handle(0));
  } catch (err) {
    await connections.close().catch(() => undefined);
    throw err;
  }
  return tpccTransactions(
    connections,
    options.procedures ? procedureTransactions : clientSqlTransactions(),
    run,
  );
}

/** Installs the functions over a postgres.js connection of its own (the wire path has no DDL). */
async function installWith(url: string): Promise<void> {
  const admin = await connectChecked(url, { max: 1 });
  try {
    const conn = await admin.reserve();
    try {
      await installProcedures(conn);
    } finally {
      conn.release();
    }
  } finally {
    await admin.end({ timeout: 5 }).catch(() => undefined);
  }
}

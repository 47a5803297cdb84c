/**
 * TPC-C on MySQL/MariaDB, one connection per slot: as client-side SQL in multi-statement batches
 * (see sql.ts; New-Order two round trips, the others one), or as the stored procedures of
 * procedures.ts (one CALL each). The writers run at READ COMMITTED, whose row locks keep every
 * consistency condition; Order-Status reads one REPEATABLE READ snapshot.
 */
import type { CallbackRoute, Connections } from '../../../dialects/connections.js';
import type { Connection } from '../../../dialects/mysql/connect.js';
import { openConnection } from '../../../dialects/mysql/connect.js';
import { openMysqlConnections } from '../../../dialects/mysql/connections.js';
import { parseMysqlUrl, type MysqlSettings } from '../../../dialects/mysql/url.js';
import type { TransactionSet } from '../../workload.js';
import {
  tpccCallbackTransactions,
  tpccTransactions,
  type TpccRunState,
  type TpccTerminal,
} from '../bodies.js';
import type { TpccCounters } from '../profile.js';
import type { ExecutorOptions } from '../tpcc-types.js';
import { procedureCalls } from './procedure-callbacks.js';
import * as P from './procedures.js';
import { clientSqlTransactions, procedureTransactions } from './transactions.js';

const READ_COMMITTED = 'set session transaction isolation level read committed';

export async function openMysqlTpcc(
  url: string,
  slots: number,
  run: TpccRunState,
  options: ExecutorOptions,
): Promise<TransactionSet<TpccTerminal, TpccCounters>> {
  // READ COMMITTED on every connection, replacements after a lost one included.
  const connections = await openMysqlConnections(url, slots, {
    multipleStatements: true,
    sessionSetup: [READ_COMMITTED],
  });
  try {
    if (options.procedures) await P.installProcedures(connections.handle(0), parseMysqlUrl(url));
  } catch (err) {
    await connections.close().catch(() => undefined);
    throw err;
  }
  // The CALLs on the slots' callback route where their sessions have one: no promise per transaction.
  const routes = options.procedures ? onCallbackRoutes(connections) : undefined;
  if (routes !== undefined) return tpccCallbackTransactions(routes, procedureCalls, run);
  return tpccTransactions(
    connections,
    options.procedures ? procedureTransactions : clientSqlTransactions,
    run,
  );
}

/**
 * The slots with each one's callback route as the handle its transactions get (a replacement
 * connection's route after a reconnect), and everything else theirs; undefined when the sessions
 * have no callback route.
 */
export function onCallbackRoutes(
  connections: Connections<Connection>,
): Connections<CallbackRoute> | undefined {
  if (connections.session(0).callbacks === undefined) return undefined;
  return {
    ...connections,
    handle(slot) {
      const route = connections.session(slot).callbacks;
      if (route === undefined) throw new Error(`slot ${slot} has no callback route`);
      return route;
    },
  };
}

/** One connection as a TPC-C slot has it: multi-statement batches, READ COMMITTED for the writers. */
export async function openSlot(settings: MysqlSettings): Promise<Connection> {
  const conn = await openConnection(settings, { multipleStatements: true });
  await conn.query(READ_COMMITTED);
  return conn;
}

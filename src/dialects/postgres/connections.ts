/**
 * PostgreSQL connection slots: one reserved postgres.js connection per slot, statements prepared
 * once per connection (postgres.js caches them by text).
 */
import type postgres from 'postgres';
import { TxbenchError } from '../../errors.js';
import type { Connections, Session } from '../connections.js';
import type { Row } from '../dialect.js';
import { openInBatches } from '../open-slots.js';
import { connect, describeConnectionError } from './connect.js';
import { classifyPostgresError, isRetryable } from './errors.js';

export type PostgresConn = postgres.ReservedSql;

type Params = postgres.ParameterOrJSON<never>[];

export async function openPostgresConnections(
  url: string,
  slots: number,
): Promise<Connections<PostgresConn>> {
  const sql = connect(url, { max: slots });
  let conns: PostgresConn[];
  try {
    conns = await openInBatches(
      slots,
      () => sql.reserve(),
      async (c) => c.release(),
    );
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => undefined);
    throw err instanceof TxbenchError ? err : describeConnectionError(err, url);
  }
  const sessions = conns.map(postgresSession);
  return {
    dialect: 'postgres',
    slots: conns.length,
    serial: false,
    handle: (slot) => conns[slot]!,
    session: (slot) => sessions[slot]!,
    classify: classifyPostgresError,
    isRetryable,
    async recover(slot, cls) {
      // Never write to a reserved connection whose server side is gone: postgres.js 3.4.9 then
      // throws from a setImmediate and takes the process down (porsager/postgres#1208).
      if (cls !== 'connection') await conns[slot]!.unsafe('rollback').catch(() => undefined);
    },
    lostCode: 'CONNECTION_CLOSED',
    async close() {
      for (const c of conns) c.release();
      await sql.end({ timeout: 5 });
    },
  };
}

export function postgresSession(conn: PostgresConn): Session {
  return {
    dialect: 'postgres',
    param: (i) => `$${i}`,
    query: <T extends Row = Row>(text: string, params: readonly unknown[] = []) =>
      conn.unsafe(text, params as Params, { prepare: true }) as unknown as Promise<T[]>,
    execute: async (text, params = []) =>
      (await conn.unsafe(text, params as Params, { prepare: true })).count,
    begin: async () => void (await conn.unsafe('begin')),
    commit: async () => void (await conn.unsafe('commit')),
    rollback: async () => void (await conn.unsafe('rollback')),
  };
}

/**
 * PostgreSQL connection slots: one reserved postgres.js connection per slot, statements prepared
 * once per connection (postgres.js caches them by text). Each slot has its own one-connection
 * postgres.js instance, so that a slot's connection can be thrown away and replaced on its own
 * (`reconnect`): a reserved connection of a shared pool cannot be destroyed, and releasing a dead
 * one back into the pool hands it to the next taker.
 */
import type postgres from 'postgres';
import { TxbenchError } from '../../errors.js';
import type { Connections, Session } from '../connections.js';
import type { Row } from '../dialect.js';
import { openInBatches } from '../open-slots.js';
import { sendCancelRequest, type BackendKey, type CancelTarget } from './cancel.js';
import { connect, describeConnectionError, type Sql } from './connect.js';
import { classifyPostgresError, isRetryable } from './errors.js';

export type PostgresConn = postgres.ReservedSql;

type Params = postgres.ParameterOrJSON<never>[];

/** One slot's connection: its own instance, the reserved connection, the backend it talks to. */
interface Slot {
  sql: Sql;
  conn: PostgresConn;
  key: BackendKey | undefined;
}

/** Opens a slot's instance and reserves its connection, learning the backend's cancel key. */
async function openSlot(url: string, connectTimeoutS?: number): Promise<Slot> {
  const sql = connect(url, { max: 1, connectTimeoutS });
  try {
    const conn = await sql.reserve();
    // The query's `state` is the backend's key data (pid, secret), what a cancel request needs.
    const probe = conn.unsafe('select 1');
    await probe;
    const key = (probe as unknown as { state?: BackendKey | null }).state ?? undefined;
    return { sql, conn, key };
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => undefined);
    throw err;
  }
}

/** Drops a slot's connection without writing to it (porsager/postgres#1208). */
async function dropSlot(slot: Slot): Promise<void> {
  await slot.sql.end({ timeout: 0 }).catch(() => undefined);
}

export async function openPostgresConnections(
  url: string,
  slots: number,
): Promise<Connections<PostgresConn>> {
  let opened: Slot[];
  try {
    opened = await openInBatches(slots, () => openSlot(url), dropSlot);
  } catch (err) {
    throw err instanceof TxbenchError ? err : describeConnectionError(err, url);
  }
  const sessions = opened.map((s) => postgresSession(s.conn));
  const options = opened[0]!.sql.options;
  const cancelTarget: CancelTarget = {
    host: options.path !== undefined ? options.path.replace(/\/\.s\.PGSQL\.\d+$/, '') : options.host[0]!,
    port: options.port[0]!,
  };
  return {
    dialect: 'postgres',
    slots: opened.length,
    serial: false,
    handle: (slot) => opened[slot]!.conn,
    session: (slot) => sessions[slot]!,
    classify: classifyPostgresError,
    isRetryable,
    async recover(slot, cls) {
      // Never write to a reserved connection whose server side is gone: postgres.js 3.4.9 then
      // throws from a setImmediate and takes the process down (porsager/postgres#1208). After a
      // cancelled call (timeout) the connection is fine: roll back what the transaction left.
      if (cls !== 'connection') await opened[slot]!.conn.unsafe('rollback').catch(() => undefined);
    },
    async reconnect(slot, timeoutMs) {
      const old = opened[slot]!;
      await dropSlot(old);
      const fresh = await openSlot(url, Math.max(1, Math.ceil(timeoutMs / 1000)));
      opened[slot] = fresh;
      sessions[slot] = postgresSession(fresh.conn);
    },
    async cancel(slot) {
      const key = opened[slot]!.key;
      if (key !== undefined) await sendCancelRequest(cancelTarget, key, 5000);
    },
    lostCode: 'CONNECTION_CLOSED',
    async close() {
      await Promise.all(
        opened.map(async (s) => {
          s.conn.release();
          await s.sql.end({ timeout: 5 });
        }),
      );
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

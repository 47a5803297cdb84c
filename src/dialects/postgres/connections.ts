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
import { SocketJar } from './sockets.js';
import { classifyPostgresError, isPostgresServerFault, isRetryable } from './errors.js';

export type PostgresConn = postgres.ReservedSql;

type Params = postgres.ParameterOrJSON<never>[];

/** One slot's connection: its own instance, the reserved connection, the backend it talks to. */
interface Slot {
  sql: Sql;
  conn: PostgresConn;
  key: BackendKey | undefined;
  /**
   * The connection closed (postgres.js's onclose). A reserved connection that dies while idle
   * gives no error: the next query on it is queued on a socket that is gone and never answered.
   */
  closed: { now: boolean };
  /** Every socket the instance opened: destroyed when the slot is dropped or closed. */
  sockets: SocketJar;
}

/**
 * Opens a slot's instance and reserves its connection, learning the backend's cancel key. With
 * `timeoutMs`, postgres.js's connect timeout bounds the attempt (a server that accepts and never
 * answers); an attempt the executor gave up on is dropped when it ends, superseded by a later
 * one (`reconnect`).
 */
async function openSlot(url: string, timeoutMs?: number): Promise<Slot> {
  const closed = { now: false };
  const sockets = new SocketJar();
  const sql = connect(url, {
    max: 1,
    sockets,
    connectTimeoutS: timeoutMs === undefined ? undefined : Math.max(1, Math.ceil(timeoutMs / 1000)),
    onclose: () => (closed.now = true),
  });
  try {
    // The probe opens the connection before it is reserved (connect.ts: a reserve() that has to
    // open it never settles). Its `state` is the backend's key data (pid, secret), what a cancel
    // request needs: the instance has this one connection.
    const probe = sql.unsafe('select 1');
    await probe;
    const key = (probe as unknown as { state?: BackendKey | null }).state ?? undefined;
    const conn = await sql.reserve();
    // Closes while connecting (postgres.js retries them) say nothing about the connection now open.
    closed.now = false;
    return { sql, conn, key, closed, sockets };
  } catch (err) {
    await sql.end({ timeout: 0 }).catch(() => undefined);
    sockets.destroyAll();
    throw err;
  }
}

/**
 * Drops a slot's connection without writing to it (porsager/postgres#1208), and destroys every
 * socket its instance still has: a server that stops answering never closes them itself.
 */
async function dropSlot(slot: Slot): Promise<void> {
  await slot.sql.end({ timeout: 0 }).catch(() => undefined);
  slot.sockets.destroyAll();
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
  /** Each slot's latest reconnect attempt: an older one that completes late is dropped, not installed. */
  const attempts = new Array<number>(opened.length).fill(0);
  const options = opened[0]!.sql.options;
  // postgres.js sets `path` (the socket file) for a Unix-socket host, and false otherwise.
  const socketPath: unknown = options.path;
  const cancelTarget: CancelTarget = {
    host:
      typeof socketPath === 'string' && socketPath !== ''
        ? socketPath.replace(/\/\.s\.PGSQL\.\d+$/, '')
        : options.host[0]!,
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
    isServerFault: isPostgresServerFault,
    async recover(slot, cls) {
      if (cls === 'connection') return;
      // Never write to a reserved connection whose server side is gone: postgres.js 3.4.9 then
      // throws from a setImmediate and takes the process down (porsager/postgres#1208). Such a
      // slot, and one whose rollback fails, is not ready: rejecting has the executor replace it.
      const s = opened[slot]!;
      if (s.closed.now) throw new Error('the connection closed before its rollback');
      // After a cancelled call (timeout) the connection is fine: roll back what the transaction left.
      await s.conn.unsafe('rollback');
    },
    async reconnect(slot, timeoutMs) {
      const attempt = ++attempts[slot]!;
      await dropSlot(opened[slot]!);
      const fresh = await openSlot(url, timeoutMs);
      if (attempt !== attempts[slot]) {
        await dropSlot(fresh);
        throw new Error('superseded by a later reconnect');
      }
      opened[slot] = fresh;
      sessions[slot] = postgresSession(fresh.conn);
    },
    async cancel(slot) {
      const key = opened[slot]!.key;
      if (key !== undefined) await sendCancelRequest(cancelTarget, key, 5000);
    },
    isLost: (slot) => opened[slot]!.closed.now,
    lostCode: 'CONNECTION_CLOSED',
    async close() {
      await Promise.all(
        opened.map(async (s) => {
          // Releasing a reserved connection that died may throw inside postgres.js: end it anyway.
          try {
            s.conn.release();
          } catch {
            // nothing to release
          }
          await s.sql.end({ timeout: 5 }).catch(() => undefined);
          s.sockets.destroyAll();
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

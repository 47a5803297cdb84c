/**
 * MySQL/MariaDB connection slots: one mysql2 connection per slot; the session's statements are
 * server-side prepared statements (mysql2's `execute`, cached per connection by their text), and
 * its callback route (callback-route.ts) runs the same statements without a promise each.
 */
import type { Socket } from 'node:net';
import type { ResultSetHeader } from 'mysql2/promise';

/** What mysql2's execute takes as its values (the package does not export the type by name). */
type Values = Parameters<Connection['execute']>[1];
import type { Connections, Session } from '../connections.js';
import type { Row } from '../dialect.js';
import { openInBatches } from '../open-slots.js';
import { MysqlCallbackRoute } from './callback-route.js';
import { checkServer, openConnection, type Connection } from './connect.js';
import { readingSocket } from './reading-socket.js';
import { classifyMysqlError, isMysqlServerFault, isRetryable } from './errors.js';
import { parseMysqlUrl, type MysqlSettings } from './url.js';

export interface MysqlSlotOptions {
  /** Allow several statements in one query (TPC-C's client-side batches). */
  multipleStatements?: boolean | undefined;
  /** Statements run on every connection a slot opens, the first and each replacement (SET SESSION …). */
  sessionSetup?: readonly string[] | undefined;
}

export async function openMysqlConnections(
  url: string,
  slots: number,
  options: MysqlSlotOptions = {},
): Promise<Connections<Connection>> {
  const settings = parseMysqlUrl(url);
  const open = async (connectTimeoutMs?: number): Promise<Connection> => {
    const s: MysqlSettings = connectTimeoutMs === undefined ? settings : { ...settings, connectTimeoutMs };
    const conn = await openConnection(s, {
      multipleStatements: options.multipleStatements === true,
      ...readingSocketOption(s),
    });
    try {
      for (const sql of options.sessionSetup ?? []) await conn.query(sql);
    } catch (err) {
      conn.destroy();
      throw err;
    }
    return conn;
  };
  const conns = await openInBatches(
    slots,
    () => open(),
    (c) => c.end(),
  );
  try {
    await checkServer(async (sql) => (await conns[0]!.query(sql))[0], settings);
  } catch (err) {
    await Promise.all(conns.map((c) => c.end().catch(() => c.destroy())));
    throw err;
  }
  const sessions = conns.map(mysqlSession);
  /** Each slot's latest reconnect attempt: an older one that completes late is dropped, not installed. */
  const attempts = new Array<number>(conns.length).fill(0);
  /** The connection KILL QUERY goes through: opened on first need, replaced when it fails. */
  let killer: Promise<Connection> | undefined;
  return {
    dialect: 'mysql',
    slots: conns.length,
    serial: false,
    handle: (slot) => conns[slot]!,
    session: (slot) => sessions[slot]!,
    classify: classifyMysqlError,
    isRetryable,
    isServerFault: isMysqlServerFault,
    async recover(slot, cls) {
      // A lock wait timeout leaves the transaction open; a lost connection takes no more writes.
      // A rollback that fails rejects: the executor replaces the connection, since the next
      // START TRANSACTION would commit what the failed transaction left.
      if (cls !== 'connection') await conns[slot]!.query('rollback');
    },
    async reconnect(slot, timeoutMs) {
      const attempt = ++attempts[slot]!;
      conns[slot]!.destroy();
      const fresh = await open(timeoutMs);
      if (attempt !== attempts[slot]) {
        fresh.destroy();
        throw new Error('superseded by a later reconnect');
      }
      conns[slot] = fresh;
      sessions[slot] = mysqlSession(fresh);
    },
    async cancel(slot) {
      const thread = conns[slot]!.threadId;
      killer ??= open(5000);
      try {
        await (await killer).query(`KILL QUERY ${Number(thread)}`);
      } catch (err) {
        const k = killer;
        killer = undefined;
        void k.then((c) => c.destroy()).catch(() => undefined);
        throw err;
      }
    },
    lostCode: 'PROTOCOL_CONNECTION_LOST',
    async close() {
      const k = killer;
      killer = undefined;
      await k?.then((c) => c.end()).catch(() => undefined);
      await Promise.all(conns.map((c) => c.end().catch(() => c.destroy())));
    },
  };
}

/**
 * A slot's plain connection reads into a buffer of its own (reading-socket.ts), which the callback
 * route's hot path reads without a Buffer or a stream event per read; TLS keeps mysql2's socket.
 */
function readingSocketOption(s: MysqlSettings): { stream?: () => Socket } {
  if (s.tls !== undefined) return {};
  const { socketPath, host, port } = s;
  return {
    stream: () => readingSocket(socketPath === undefined ? { host, port } : { path: socketPath }),
  };
}

export function mysqlSession(conn: Connection): Session {
  return {
    dialect: 'mysql',
    param: () => '?',
    async query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      const [rows] = await conn.execute(sql, params as Values);
      return Array.isArray(rows) ? (rows as T[]) : [];
    },
    async execute(sql, params = []) {
      const [result] = await conn.execute(sql, params as Values);
      return (result as ResultSetHeader).affectedRows ?? 0;
    },
    begin: async () => void (await conn.query('begin')),
    commit: async () => void (await conn.query('commit')),
    rollback: async () => void (await conn.query('rollback')),
    callbacks: new MysqlCallbackRoute(conn),
  };
}

/**
 * SQL Server connection slots over one driver pool of a connection per slot (opened up front).
 * The pool drops a lost connection and replaces it on next use. The session's BEGIN pins one
 * connection (a driver Transaction) until COMMIT or ROLLBACK.
 */
import { TxbenchError } from '../../errors.js';
import type { Connections, Session } from '../connections.js';
import type { Row } from '../dialect.js';
import { describeConnectionError, parseMssqlUrl, type MssqlTarget } from './config.js';
import { bindPositional, openPool } from './pool.js';
import type { MssqlModule, MssqlPool, MssqlRequest, MssqlTransaction } from './driver.js';
import { classifyMssqlError, isRetryable } from './errors.js';

export interface MssqlHandle {
  sql: MssqlModule;
  pool: MssqlPool;
  /** A request on the slot's pool, remembered as the slot's running one (what `cancel` cancels). */
  request(): MssqlRequest;
}

export async function openMssqlConnections(url: string, slots: number): Promise<Connections<MssqlHandle>> {
  // One connection per engine slot: the slot count, not the URL's poolSize, sizes this pool.
  const target: MssqlTarget = { ...parseMssqlUrl(url), poolSize: undefined };
  const { sql, pool } = await openPool(target, slots);
  try {
    const held: unknown[] = [];
    try {
      for (let i = 0; i < slots; i += 16) {
        const batch = Math.min(16, slots - i);
        held.push(...(await Promise.all(Array.from({ length: batch }, () => pool.acquire(pool)))));
      }
    } finally {
      for (const c of held) pool.release(c);
    }
  } catch (err) {
    await pool.close().catch(() => undefined);
    throw err instanceof TxbenchError ? err : describeConnectionError(err, target);
  }
  return mssqlConnectionsOnPool(sql, pool, slots);
}

/** Slots over a driver pool that is already open. */
export function mssqlConnectionsOnPool(
  sql: MssqlModule,
  pool: MssqlPool,
  slots: number,
): Connections<MssqlHandle> {
  const sessions = Array.from({ length: slots }, () => mssqlSession(sql, pool));
  const handles: MssqlHandle[] = sessions.map((s) => ({ sql, pool, request: s.request }));
  return {
    dialect: 'mssql',
    slots,
    serial: false,
    handle: (slot) => handles[slot]!,
    session: (slot) => sessions[slot]!.session,
    classify: classifyMssqlError,
    isRetryable,
    async recover(slot) {
      await sessions[slot]!.abandon();
    },
    // The driver's pool drops a dead connection and opens a new one on next use: replacing a
    // slot's connection is forgetting its transaction, then proving the pool can connect.
    async reconnect(slot) {
      await sessions[slot]!.abandon();
      await pool.request().query('select 1');
    },
    async cancel(slot) {
      sessions[slot]!.cancel();
    },
    lostCode: 'ECONNCLOSED',
    close: () => pool.close(),
  };
}

function mssqlSession(
  sql: MssqlModule,
  pool: MssqlPool,
): { session: Session; request(): MssqlRequest; abandon(): Promise<void>; cancel(): void } {
  let open: MssqlTransaction | undefined;
  /** The request running now, for the attention (cancel) the transaction timeout sends. */
  let current: MssqlRequest | undefined;
  const request = (): MssqlRequest => (current = open ? open.request() : pool.request());
  const run = async (text: string, params: readonly unknown[]) =>
    bindPositional(sql, request(), params).query(text);
  const session: Session = {
    dialect: 'mssql',
    param: (i) => `@p${i}`,
    query: async <T extends Row = Row>(text: string, params: readonly unknown[] = []) =>
      ((await run(text, params)).recordset ?? []) as T[],
    execute: async (text, params = []) => (await run(text, params)).rowsAffected.reduce((a, b) => a + b, 0),
    async begin() {
      const tx = new sql.Transaction(pool);
      await tx.begin();
      open = tx;
    },
    async commit() {
      const tx = open;
      open = undefined;
      await tx?.commit();
    },
    async rollback() {
      const tx = open;
      open = undefined;
      await tx?.rollback();
    },
  };
  return {
    session,
    request,
    async abandon() {
      const tx = open;
      open = undefined;
      await tx?.rollback().catch(() => undefined);
    },
    cancel() {
      current?.cancel();
    },
  };
}

/**
 * A run's PostgreSQL connection slots on the wire path (connection.ts): the executor's contract
 * (dialects/connections.ts) over one `WireConnection` per slot. A slot's handle is its
 * `WireSlot`: the connection, the statements given at open prepared on it (by index), and the
 * portable Session for anything else. A slot whose connection died is replaced on its own.
 */
import { TxbenchError } from '../../../errors.js';
import type { Connections } from '../../connections.js';
import { openInBatches } from '../../open-slots.js';
import { sendCancelRequest, type CancelTarget } from '../cancel.js';
import { describeConnectionError } from '../connect.js';
import { classifyPostgresError, isPostgresServerFault, isRetryable } from '../errors.js';
import { WireConnection, UnsupportedByWire } from './connection.js';
import { WireSlot } from './session.js';
import type { WireTarget } from './target.js';

const OPEN_TIMEOUT_MS = 10_000;

async function openSlot(
  target: WireTarget,
  statements: readonly string[],
  timeoutMs: number,
): Promise<WireSlot> {
  const started = performance.now();
  const slot = new WireSlot(await WireConnection.open(target, timeoutMs));
  // The statements within what is left of the attempt's time: a server that stops answering
  // after authentication fails the attempt rather than hanging it.
  const timer = setTimeout(() => slot.conn.destroy(), Math.max(1, timeoutMs - (performance.now() - started)));
  try {
    await slot.prepareAll(statements);
    return slot;
  } catch (err) {
    slot.conn.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Opens `slots` wire connections and prepares `statements` on each. Rejects with
 * `UnsupportedByWire` when the server wants something this path does not speak (the caller then
 * opens postgres.js slots), and with a one-line `DatabaseError` when the server cannot be used.
 */
export async function openWireConnections(
  url: string,
  target: WireTarget,
  slots: number,
  statements: readonly string[],
): Promise<Connections<WireSlot>> {
  let opened: WireSlot[];
  try {
    opened = await openInBatches(
      slots,
      () => openSlot(target, statements, OPEN_TIMEOUT_MS),
      async (s) => s.conn.destroy(),
    );
  } catch (err) {
    throw err instanceof TxbenchError || err instanceof UnsupportedByWire
      ? err
      : describeConnectionError(err, url);
  }
  const attempts = new Array<number>(opened.length).fill(0);
  const cancelTarget: CancelTarget = {
    host: target.socketPath === undefined ? target.host : target.socketPath.replace(/\/\.s\.PGSQL\.\d+$/, ''),
    port: target.port,
  };
  return {
    dialect: 'postgres',
    slots: opened.length,
    serial: false,
    handle: (slot) => opened[slot]!,
    session: (slot) => opened[slot]!,
    classify: classifyPostgresError,
    isRetryable,
    isServerFault: isPostgresServerFault,
    async recover(slot, cls) {
      if (cls === 'connection') return;
      const conn = opened[slot]!.conn;
      // A connection that is gone, or whose rollback fails, leaves the slot not ready: rejecting
      // has the executor replace it rather than try again on it.
      if (conn.lost) throw new Error('the connection closed before its rollback');
      // A call that failed inside an explicit transaction left it open (or aborted): end it.
      if (conn.transactionStatus !== 'I') await conn.simple('rollback');
    },
    async reconnect(slot, timeoutMs) {
      const attempt = ++attempts[slot]!;
      opened[slot]!.conn.destroy();
      const fresh = await openSlot(target, statements, timeoutMs);
      if (attempt !== attempts[slot]) {
        fresh.conn.destroy();
        throw new Error('superseded by a later reconnect');
      }
      opened[slot] = fresh;
    },
    async cancel(slot) {
      const key = opened[slot]!.conn.key;
      if (key !== undefined) await sendCancelRequest(cancelTarget, key, 5000);
    },
    isLost: (slot) => opened[slot]!.conn.lost,
    lostCode: 'CONNECTION_CLOSED',
    async close() {
      await Promise.all(opened.map((s) => s.conn.end()));
    },
  };
}

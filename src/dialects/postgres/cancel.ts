/**
 * PostgreSQL's cancel request (protocol "CancelRequest"): a new connection to the server that
 * sends the backend's process id and secret key and closes. The server then interrupts whatever
 * that backend runs, which fails with SQLSTATE 57014. Sent from here rather than through
 * postgres.js because the transactions run on reserved connections whose pending query objects
 * (which carry postgres.js's own `cancel()`) the executor never sees; the key is the same one.
 */
import { connect, type Socket } from 'node:net';

/** The backend a connection talks to, as its BackendKeyData gave it. */
export interface BackendKey {
  pid: number;
  secret: number;
}

export interface CancelTarget {
  /** A TCP host, or a directory holding the server's Unix socket. */
  host: string;
  port: number;
}

const CANCEL_REQUEST_CODE = 80877102;

/** Sends the cancel request; resolves once sent and closed (or after `timeoutMs`, unsent). */
export function sendCancelRequest(target: CancelTarget, key: BackendKey, timeoutMs: number): Promise<void> {
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
  packet.writeInt32BE(key.pid, 8);
  packet.writeInt32BE(key.secret | 0, 12);
  return new Promise((resolve, reject) => {
    const socket: Socket = target.host.startsWith('/')
      ? connect({ path: `${target.host}/.s.PGSQL.${target.port}` })
      : connect({ host: target.host, port: target.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`cancel request not delivered within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => socket.end(packet));
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * The sockets of one postgres.js instance, kept so that dropping the instance closes every one.
 *
 * Why: `sql.end()` leaves sockets behind in two cases postgres.js 3.4.9 does not handle. A
 * connection whose socket closed while connecting has a reconnect timer pending; ending the
 * instance then does not clear it, and the timer opens a new socket nobody will ever use (with
 * idle_timeout 0 it stays open for good). And a socket still connecting, or whose peer stopped
 * answering, is only ever ended politely (a Terminate message, then waiting for the server).
 * After a network fault such sockets kept a finished run's process alive. Given as postgres.js's
 * `socket` option, this opens the plain socket itself (as postgres.js would), records it until it
 * closes, and once sealed opens no more.
 */
import net from 'node:net';

/** What postgres.js hands its `socket` option: the parsed hosts, ports and Unix socket path. */
interface SocketTarget {
  host: string[];
  port: number[];
  path: string | false;
}

export class SocketJar {
  private readonly live = new Set<net.Socket>();
  private sealed = false;
  private next = 0;

  /** postgres.js's `socket` option: a socket connecting to the next host, as postgres.js picks them. */
  readonly open = (target: SocketTarget): net.Socket => {
    if (this.sealed) throw new Error('connection closed by txbench');
    const socket = new net.Socket();
    if (typeof target.path === 'string' && target.path !== '') {
      socket.connect(target.path);
    } else {
      const i = this.next++ % target.host.length;
      const host = target.host[i]!;
      const port = target.port[i] ?? target.port[0]!;
      // postgres.js reads these for TLS's server name and for its error messages.
      Object.assign(socket, { host, port });
      socket.connect(port, host);
    }
    this.live.add(socket);
    socket.once('close', () => this.live.delete(socket));
    return socket;
  };

  /** Destroys every socket still open and opens no more. */
  destroyAll(): void {
    this.sealed = true;
    for (const socket of this.live) socket.destroy();
    this.live.clear();
  }

  /** Sockets opened and not yet closed. */
  get size(): number {
    return this.live.size;
  }
}

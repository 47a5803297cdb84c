/**
 * A TCP relay the test controls, between txbench and a server: it passes bytes both ways, or cuts
 * the network (every connection dropped, new ones refused), or holds every byte (the server seems
 * to stop answering; a hung network path) until released.
 */
import net from 'node:net';

export interface Relay {
  port: number;
  /** Drops every connection now and refuses new ones for `ms`. */
  cut(ms: number): Promise<void>;
  /** Holds every byte in both directions for `ms`, then delivers what it held. */
  hold(ms: number): Promise<void>;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
}

export interface RelayOptions {
  /**
   * Delivers the server's bytes in pieces of 1 to 7 bytes, a millisecond apart, so that the
   * client reads every message in parts (a parser's partial-message paths).
   */
  trickle?: boolean;
}

/** Splits the server's bytes into pieces and writes them one at a time, in order. */
function trickler(to: net.Socket): (chunk: Buffer) => void {
  const queue: Buffer[] = [];
  let pumping = false;
  let seed = 7;
  const pump = (): void => {
    const piece = queue.shift();
    if (piece === undefined || to.destroyed) {
      pumping = false;
      return;
    }
    to.write(piece);
    setTimeout(pump, 1);
  };
  return (chunk) => {
    for (let at = 0; at < chunk.length;) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const size = 1 + (seed % 7);
      queue.push(chunk.subarray(at, at + size));
      at += size;
    }
    if (!pumping) {
      pumping = true;
      pump();
    }
  };
}

export async function startRelay(
  targetPort: number,
  targetHost = '127.0.0.1',
  options: RelayOptions = {},
): Promise<Relay> {
  const pairs = new Set<Pair>();
  let refusing = false;
  let holding = false;
  const held: { to: net.Socket; chunk: Buffer }[] = [];
  let accepted = 0;
  const forward = (to: net.Socket) => (chunk: Buffer) => {
    if (holding) held.push({ to, chunk });
    else if (!to.destroyed) to.write(chunk);
  };
  const srv = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    accepted++;
    const server = net.connect(targetPort, targetHost);
    const pair = { client, server };
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on('data', forward(server));
    server.on('data', options.trickle ? trickler(client) : forward(client));
    client.on('close', end);
    server.on('close', end);
    client.on('error', end);
    server.on('error', end);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const address = srv.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return {
    port,
    get accepted() {
      return accepted;
    },
    async cut(ms) {
      refusing = true;
      for (const p of pairs) {
        p.client.destroy();
        p.server.destroy();
      }
      pairs.clear();
      await sleep(ms);
      refusing = false;
    },
    async hold(ms) {
      holding = true;
      await sleep(ms);
      holding = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.server.destroy();
      }
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    },
  };
}

/**
 * A plain socket for a run slot's mysql2 connection (mysql2's `stream` option) whose reads land in
 * one buffer of its own (`onread`), as the PostgreSQL wire path reads: no readable stream, no
 * Buffer per read. A read its sink does not take (takeReads: the callback route's hot path,
 * binary-executor.ts, takes the answers to its own commands) is copied and emitted as 'data',
 * which is all mysql2 listens to.
 * TLS needs a socket that reads as a stream: connections with TLS keep mysql2's own.
 */
import { connect, type Socket } from 'node:net';

/**
 * Takes `bytes` bytes at the start of `buffer`, which the next read overwrites (keep none of it),
 * or returns false to leave them to the socket's 'data' listeners.
 */
export type ReadSink = (buffer: Buffer, bytes: number) => boolean;

const READ_BUFFER_BYTES = 64 * 1024;
const SINK = Symbol('txbench read sink');

type ReadingSocket = Socket & { [SINK]?: ReadSink };

/** mysql2's own socket settings for TCP: no Nagle delay, keep-alive once connected. */
export function readingSocket(target: { host: string; port: number } | { path: string }): Socket {
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  const box: { socket?: ReadingSocket } = {};
  const onread = {
    buffer,
    callback: (bytes: number): boolean => {
      const socket = box.socket!;
      const sink = socket[SINK];
      if (sink === undefined || !sink(buffer, bytes))
        socket.emit('data', Buffer.from(buffer.subarray(0, bytes)));
      return true;
    },
  };
  const socket: ReadingSocket = connect({ ...target, onread });
  // Present, if unset, from the start: that is how takeReads knows the socket.
  socket[SINK] = undefined;
  box.socket = socket;
  if (!('path' in target)) {
    socket.setNoDelay(true);
    socket.once('connect', () => socket.setKeepAlive(true));
  }
  return socket;
}

/** Offers `socket`'s reads to `sink` from now on; false if it is not a reading socket. */
export function takeReads(socket: unknown, sink: ReadSink): boolean {
  if (!isReadingSocket(socket)) return false;
  socket[SINK] = sink;
  return true;
}

function isReadingSocket(socket: unknown): socket is ReadingSocket {
  return typeof socket === 'object' && socket !== null && SINK in socket;
}

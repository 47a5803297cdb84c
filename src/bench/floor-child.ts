/**
 * Section 10's measuring child: sysbench's point select as the least a Node.js client can do it,
 * to show what no JavaScript driver can go below on this machine. Per connection one socket read
 * through `onread` (no stream), statements prepared once, each call one pre-built
 * Bind/Execute/Sync write whose only change is the id, and the answer read only as far as its
 * ReadyForQuery (no row decoded, no promise, no object per call). No scheduler, no histogram, no
 * figures but a count. Needs trust authentication (the bench's own server has it). On MariaDB the
 * same loop on COM_STMT_EXECUTE (floor-mysql.ts).
 * Prints `{ statements, seconds, cpuS }` for the window after the warm-up.
 */
import { connect, type Socket } from 'node:net';
import { serialize } from 'pg-protocol';
import { BackendFrames } from './backend-frames.js';
import { openMysql } from './floor-mysql.js';
import type { FloorLink, FloorRequest, FloorResult } from './floor-types.js';

const INT4 = 23;

/** One Bind/Execute/Sync write for statement `name`, its one int4 parameter in binary at `valueAt`. */
function callBytes(name: string): { bytes: Buffer; valueAt: number } {
  const marker = Buffer.from([0xde, 0xad, 0xbe, 0xef]);
  const bind = serialize.bind({ statement: name, values: [marker], binary: false });
  const bytes = Buffer.concat([bind, serialize.execute(), serialize.sync()]);
  // A Buffer value goes in binary, as is: where the marker lies is where each id goes.
  return { bytes, valueAt: bytes.indexOf(marker) };
}

interface Link {
  socket: Socket;
  frames: BackendFrames;
  onReady: () => void;
}

function open(req: FloorRequest, onError: (err: Error) => void): Promise<Link> {
  return new Promise((resolve, reject) => {
    const frames = new BackendFrames();
    let startup = true;
    const link: Link = { socket: undefined as unknown as Socket, frames, onReady: () => undefined };
    const timer = setTimeout(
      () => reject(new Error('no ReadyForQuery within 10 s (the floor needs trust authentication)')),
      10_000,
    );
    link.socket = connect({
      host: req.host,
      port: req.port,
      noDelay: true,
      onread: {
        buffer: Buffer.allocUnsafe(64 * 1024),
        callback: (n, buffer) => {
          let ready: number;
          try {
            ready = frames.feed(buffer, n);
          } catch (err) {
            onError(err as Error);
            return false;
          }
          for (; ready > 0; ready--) {
            if (startup) {
              startup = false;
              clearTimeout(timer);
              resolve(link);
            } else link.onReady();
          }
          return true;
        },
      },
    });
    link.socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
      onError(err);
    });
    link.socket.write(serialize.startup({ user: req.user, database: req.database }));
  });
}

/** Prepares each table's point select on the link; resolves at the answer's ReadyForQuery. */
function prepare(link: Link, tables: number): Promise<void> {
  return new Promise((resolve) => {
    link.onReady = resolve;
    const parses = Array.from({ length: tables }, (_, i) =>
      serialize.parse({ name: `s${i + 1}`, text: `SELECT c FROM sbtest${i + 1} WHERE id=$1`, types: [INT4] }),
    );
    link.socket.write(Buffer.concat([...parses, serialize.sync()]));
  });
}

async function openPostgres(req: FloorRequest, onError: (err: Error) => void): Promise<FloorLink> {
  const link = await open(req, onError);
  await prepare(link, req.tables);
  const calls = Array.from({ length: req.tables }, (_, i) => callBytes(`s${i + 1}`));
  const floor: FloorLink = {
    send: () => {
      const call = calls[Math.floor(Math.random() * calls.length)]!;
      call.bytes.writeInt32BE(1 + Math.floor(Math.random() * req.tableSize), call.valueAt);
      link.socket.write(call.bytes);
    },
    onReady: () => undefined,
    close: () => link.socket.destroy(),
  };
  link.onReady = () => floor.onReady();
  return floor;
}

async function main(req: FloorRequest): Promise<FloorResult> {
  let failure: Error | undefined;
  const onError = (err: Error): void => {
    failure ??= err;
  };
  const links = await Promise.all(
    Array.from({ length: req.connections }, () =>
      req.dialect === 'mysql' ? openMysql(req, onError) : openPostgres(req, onError),
    ),
  );
  let statements = 0;
  let running = true;
  for (const link of links) {
    link.onReady = () => {
      statements++;
      if (running) link.send();
    };
    link.send();
  }
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await wait(req.warmupMs);
  const count0 = statements;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await wait(req.durationMs);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  const counted = statements - count0;
  running = false;
  for (const l of links) l.close();
  if (failure) throw failure;
  return { statements: counted, seconds, cpuS: (cpu.user + cpu.system) / 1e6 };
}

const request = JSON.parse(process.argv[2] ?? '{}') as FloorRequest;
main(request).then(
  (result) => console.log(JSON.stringify(result)),
  (err: unknown) => {
    console.error(`floor: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

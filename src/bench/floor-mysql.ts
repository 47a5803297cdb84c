/**
 * Section 10's floor on MariaDB: mysql2 connects, authenticates and prepares each table's point
 * select, and runs one execute per statement whose bytes are kept (the id found by a marker); then
 * the socket is taken from mysql2, and each call is that one write with only the id changed, the
 * answer read only as far as its end (mysql-frames.ts). mysql2's own bytes, so nothing of the
 * protocol is guessed; nothing of mysql2 runs per call.
 */
import mysql from 'mysql2';
import type { Socket } from 'node:net';
import type { FloorLink, FloorRequest } from './floor-types.js';
import { MysqlFrames } from './mysql-frames.js';

const MARKER = 987_654_321;

/** Where the marker lies in mysql2's execute bytes, and how to write an id there. */
function idWriter(bytes: Buffer): (id: number) => void {
  const asDouble = Buffer.alloc(8);
  asDouble.writeDoubleLE(MARKER);
  const at8 = bytes.indexOf(asDouble);
  if (at8 >= 0) return (id) => bytes.writeDoubleLE(id, at8);
  const asInt64 = Buffer.alloc(8);
  asInt64.writeBigInt64LE(BigInt(MARKER));
  const at64 = bytes.indexOf(asInt64);
  if (at64 >= 0) return (id) => bytes.writeBigInt64LE(BigInt(id), at64);
  const asInt32 = Buffer.alloc(4);
  asInt32.writeInt32LE(MARKER);
  const at32 = bytes.indexOf(asInt32);
  if (at32 >= 0) return (id) => bytes.writeInt32LE(id, at32);
  throw new Error("could not find the parameter in mysql2's execute bytes");
}

type Prepared = { execute: (values: unknown[], cb: (err: Error | null) => void) => void };

export async function openMysql(req: FloorRequest, onError: (err: Error) => void): Promise<FloorLink> {
  if (req.url === undefined) throw new Error('the MariaDB floor needs a URL');
  const conn = mysql.createConnection({ uri: req.url });
  conn.on('error', onError);
  await new Promise<void>((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve())));
  const stream = (conn as unknown as { stream: Socket }).stream;
  const calls: { bytes: Buffer; write: (id: number) => void }[] = [];
  for (let t = 1; t <= req.tables; t++) {
    const statement = await new Promise<Prepared>((resolve, reject) =>
      conn.prepare(`SELECT c FROM sbtest${t} WHERE id=?`, (err, s) =>
        err ? reject(err) : resolve(s as unknown as Prepared),
      ),
    );
    const write = stream.write.bind(stream);
    let captured: Buffer | undefined;
    stream.write = ((chunk: Buffer, ...rest: never[]) => {
      captured ??= Buffer.from(chunk);
      return write(chunk, ...rest);
    }) as typeof stream.write;
    await new Promise<void>((resolve, reject) =>
      statement.execute([MARKER], (err) => (err ? reject(err) : resolve())),
    );
    stream.write = write;
    if (captured === undefined) throw new Error('mysql2 wrote no execute');
    const bytes = captured;
    calls.push({ bytes, write: idWriter(bytes) });
  }
  const frames = new MysqlFrames();
  const link: FloorLink = {
    send: () => {
      const call = calls[Math.floor(Math.random() * calls.length)]!;
      call.write(1 + Math.floor(Math.random() * req.tableSize));
      stream.write(call.bytes);
    },
    onReady: () => undefined,
    close: () => stream.destroy(),
  };
  stream.removeAllListeners('data');
  stream.on('data', (chunk: Buffer) => {
    let done: number;
    try {
      done = frames.feed(chunk, chunk.length);
    } catch (err) {
      onError(err as Error);
      return;
    }
    for (; done > 0; done--) link.onReady();
  });
  return link;
}

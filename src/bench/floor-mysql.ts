/**
 * Section 10's floor on MariaDB: mysql2 connects, authenticates and prepares each statement on
 * each table, and runs one execute of each (inside a transaction it rolls back) whose bytes are
 * kept, the ints found by markers; then the socket is taken from mysql2, and each call is that
 * one write with only its ints changed, the answer read only as far as its end (mysql-frames.ts).
 * mysql2 types a JavaScript number as a DOUBLE; the kept bytes are retyped to LONGLONG, as sysbench
 * binds its ids as integers, so the server compares integers. BEGIN and COMMIT go as COM_QUERY.
 * mysql2's own bytes otherwise, so nothing of the protocol is guessed; nothing of mysql2 runs per
 * call.
 */
import mysql from 'mysql2';
import type { Socket } from 'node:net';
import { paramsOf, returnsRows, sqlOf, type FloorStatement } from './floor-steps.js';
import type { FloorCall, FloorLink, FloorRequest } from './floor-types.js';
import { MysqlFrames } from './mysql-frames.js';

/**
 * The ints connection `index` of this process carries while its executes' bytes are found: beyond
 * every table's ids, and its own, so that no two connections insert the same row (InnoDB
 * deadlocks three inserts of one key waiting on each other).
 */
const markersOf = (index: number): { a: number; b: number } => {
  const a = 900_000_000 + ((process.pid % 10_000) * 1_000 + index) * 2;
  return { a, b: a + 1 };
};
const COM_QUERY = 0x03;
const PARAMETER_COUNT_AVAILABLE = 0x08;
const TYPE_DOUBLE = 0x05;
const TYPE_LONGLONG = 0x08;

/** `rows`: its answer is a result set (not one OK). */
interface Call extends FloorCall {
  rows: boolean;
}

/**
 * Retypes parameter `index` of the execute packet `bytes` (of `count` parameters) from DOUBLE to
 * LONGLONG and returns where its value lies, found by its marker; -1 if the marker is not there.
 */
export function integerAt(bytes: Buffer, count: number, index: number, marker: number): number {
  const asDouble = Buffer.alloc(8);
  asDouble.writeDoubleLE(marker);
  const at = bytes.indexOf(asDouble);
  if (at < 0) return -1;
  const attributes = (bytes[9]! & PARAMETER_COUNT_AVAILABLE) !== 0;
  // Header, command, statement id, flags, iteration count; the count if attributes; null bitmap;
  // new-params-bound; then each parameter's type (and flag, and an empty name with attributes).
  const typesAt = 14 + (attributes ? 1 : 0) + ((count + 7) >> 3) + 1;
  const typeAt = typesAt + index * (attributes ? 3 : 2);
  if (bytes[typeAt] !== TYPE_DOUBLE) throw new Error("mysql2's execute did not type a number as DOUBLE");
  bytes[typeAt] = TYPE_LONGLONG;
  bytes.writeBigInt64LE(0n, at);
  return at;
}

/** A COM_QUERY packet of `sql`. */
function queryBytes(sql: string): Buffer {
  const bytes = Buffer.alloc(5 + Buffer.byteLength(sql));
  bytes.writeUIntLE(bytes.length - 4, 0, 3);
  bytes[4] = COM_QUERY;
  bytes.write(sql, 5);
  return bytes;
}

type Prepared = { execute: (values: unknown[], cb: (err: Error | null) => void) => void };

/** The bytes mysql2 writes for one execute of `sql` with the markers in place of the ints. */
async function executeBytes(
  conn: mysql.Connection,
  stream: Socket,
  statement: FloorStatement,
  table: number,
  markers: { a: number; b: number },
) {
  const prepared = await new Promise<Prepared>((resolve, reject) =>
    conn.prepare(
      sqlOf(statement, table, () => '?'),
      (err, s) => (err ? reject(err) : resolve(s as unknown as Prepared)),
    ),
  );
  const params = paramsOf(statement);
  const write = stream.write.bind(stream);
  let captured: Buffer | undefined;
  stream.write = ((chunk: Buffer, ...rest: never[]) => {
    captured ??= Buffer.from(chunk);
    return write(chunk, ...rest);
  }) as typeof stream.write;
  try {
    await new Promise<void>((resolve, reject) =>
      prepared.execute(
        params.map((p) => (p === 'a' ? markers.a : p === 'b' ? markers.b : p.text)),
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  } finally {
    stream.write = write;
  }
  if (captured === undefined) throw new Error('mysql2 wrote no execute');
  const bytes = captured;
  return {
    bytes,
    aAt: integerAt(bytes, params.length, params.indexOf('a'), markers.a),
    bAt: params.includes('b') ? integerAt(bytes, params.length, params.indexOf('b'), markers.b) : -1,
  };
}

const query = (conn: mysql.Connection, sql: string): Promise<void> =>
  new Promise((resolve, reject) => conn.query(sql, (err) => (err ? reject(err) : resolve())));

export async function openMysql(
  req: FloorRequest,
  statements: readonly FloorStatement[],
  onError: (err: Error) => void,
  index: number,
): Promise<FloorLink> {
  if (req.url === undefined) throw new Error('the MariaDB floor needs a URL');
  const conn = mysql.createConnection({ uri: req.url });
  conn.on('error', onError);
  await new Promise<void>((resolve, reject) => conn.connect((err) => (err ? reject(err) : resolve())));
  const stream = (conn as unknown as { stream: Socket }).stream;
  // calls[table - 1][statement]. The executes that find the bytes change nothing that stays, and
  // take no gap lock (READ COMMITTED, for that one transaction): loops that start together would
  // otherwise deadlock on the gap past the last id, where their markers' DELETE and INSERT meet.
  const calls: Call[][] = [];
  const markers = markersOf(index);
  await query(conn, 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
  await query(conn, 'BEGIN');
  for (let t = 1; t <= req.tables; t++) {
    const row: Call[] = [];
    for (const statement of statements) {
      const rows = returnsRows(statement);
      if (statement === 'begin' || statement === 'commit')
        row.push({ bytes: queryBytes(sqlOf(statement, t, () => '?')), aAt: -1, bAt: -1, rows });
      else row.push({ ...(await executeBytes(conn, stream, statement, t, markers)), rows });
    }
    calls.push(row);
  }
  await query(conn, 'ROLLBACK');
  const frames = new MysqlFrames();
  const link: FloorLink = {
    send: (statement, table, a, b) => {
      const call = calls[table - 1]![statement]!;
      if (call.aAt >= 0) call.bytes.writeUInt32LE(a, call.aAt);
      if (call.bAt >= 0) call.bytes.writeUInt32LE(b, call.bAt);
      frames.okAnswer = !call.rows;
      stream.write(call.bytes);
    },
    onReady: () => undefined,
    errors: () => frames.errors,
    close: () => stream.destroy(),
  };
  stream.removeAllListeners('data');
  stream.on('data', (chunk: Buffer) => {
    for (let done = frames.feed(chunk, chunk.length); done > 0; done--) link.onReady();
  });
  return link;
}

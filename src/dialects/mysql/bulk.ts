/**
 * The MySQL/MariaDB bulk path: LOAD DATA LOCAL INFILE fed from the generator's COPY text (the same
 * format: tab-separated, \N for NULL), falling back to large multi-row INSERTs when the server or
 * its configuration refuses LOCAL INFILE (local_infile=OFF).
 */
import { Readable, type Writable } from 'node:stream';
import type { BulkLoader } from '../dialect.js';
import { errnoOf, ER } from './errors.js';
import { openConnection, type Connection } from './connect.js';
import { parseMysqlUrl } from './url.js';

export type BulkMode = 'infile' | 'insert';

/** Bytes of row data per multi-row INSERT on the fallback path (well under max_allowed_packet's 16 MB default). */
const INSERT_BYTES = 1 << 20;

export function loadDataStatement(table: string, columns: readonly string[]): string {
  return (
    `load data local infile 'txbench:${table}' into table ${table} character set latin1 ` +
    `fields terminated by '\\t' escaped by '\\\\' lines terminated by '\\n' (${columns.join(', ')})`
  );
}

/**
 * One SQL value of a COPY text field: `\N` is NULL, anything else a quoted string. (txbench's
 * generator writes no quotes or backslashes; should one appear, it is escaped all the same.)
 */
export function sqlValue(field: string): string {
  if (field === '\\N') return 'NULL';
  return /['\\]/.test(field) ? `'${field.replace(/\\/g, '\\\\').replace(/'/g, "''")}'` : `'${field}'`;
}

/** Multi-row INSERT statements of about `maxBytes` each for COPY text chunks (rows never span chunks). */
export function* insertStatements(
  table: string,
  columns: readonly string[],
  chunks: Iterable<Buffer>,
  maxBytes = INSERT_BYTES,
): Generator<string> {
  const head = `insert into ${table} (${columns.join(', ')}) values `;
  let rows: string[] = [];
  let bytes = 0;
  for (const chunk of chunks) {
    const text = chunk.toString('latin1');
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      if (end > start) {
        const line = text.slice(start, end);
        rows.push(`(${line.split('\t').map(sqlValue).join(',')})`);
        bytes += line.length + 8;
      }
      start = end + 1;
      if (bytes >= maxBytes) {
        yield head + rows.join(',');
        rows = [];
        bytes = 0;
      }
    }
  }
  if (rows.length > 0) yield head + rows.join(',');
}

/** A stream of the chunks that generates the next one only when the socket has room for it. */
function paced(chunks: Iterable<Buffer>, socket: Writable | undefined): Readable {
  const it = chunks[Symbol.iterator]();
  return new Readable({
    read() {
      const next = (): void => {
        try {
          const r = it.next();
          this.push(r.done ? null : r.value);
        } catch (err) {
          this.destroy(err as Error);
        }
      };
      if (socket?.writableNeedDrain) socket.once('drain', next);
      else next();
    },
  });
}

/** The socket under a mysql2 promise connection, for back-pressure (mysql2 itself only watches 'pause'). */
function socketOf(conn: Connection): Writable | undefined {
  const core = (conn as unknown as { connection?: { stream?: Writable } }).connection;
  return core?.stream;
}

/** One connection that loads tables by LOAD DATA LOCAL INFILE, or by INSERTs once the server refuses that. */
export async function openMysqlBulkLoader(url: string): Promise<BulkLoader> {
  const settings = parseMysqlUrl(url);
  let stream: Readable | undefined;
  const conn = await openConnection(settings, {
    infileStreamFactory: () => {
      if (stream === undefined) throw new Error('LOAD DATA asked for a stream that was not prepared');
      return stream;
    },
  });
  // Rows arrive in primary-key order, so InnoDB appends to each table. (unique_checks = 0 with
  // foreign_key_checks = 0 was measured slower: it switches MariaDB to its sort-and-build bulk
  // insert, which took 50% more server CPU on these already sorted rows.)
  let mode: BulkMode = 'infile';
  return {
    async load(table, columns, chunks) {
      if (mode === 'infile') {
        let started = false;
        const source = paced(
          (function* () {
            started = true;
            yield* chunks;
          })(),
          socketOf(conn),
        );
        stream = source;
        try {
          await conn.query(loadDataStatement(table, columns));
          return;
        } catch (err) {
          const n = errnoOf(err);
          // Refused before a byte was read: the server will not take LOCAL INFILE; insert instead.
          if (started || n === undefined || !ER.LOCAL_INFILE_REFUSED.includes(n)) throw err;
          mode = 'insert';
        } finally {
          stream = undefined;
        }
      }
      await conn.query('start transaction');
      try {
        for (const statement of insertStatements(table, columns, chunks)) await conn.query(statement);
        await conn.query('commit');
      } catch (err) {
        await conn.query('rollback').catch(() => undefined);
        throw err;
      }
    },
    close: () => conn.end(),
  };
}

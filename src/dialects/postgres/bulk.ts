/**
 * The PostgreSQL bulk path: `COPY … FROM STDIN` on a wire connection (wire/connection.ts), where
 * each generated chunk goes out as one CopyData without being copied again, or on postgres.js
 * when the URL or the server wants something the wire path does not speak (TLS, GSS).
 * postgres.js concatenates a header onto every chunk (a copy of all 728 MB of a 10-warehouse load)
 * and runs the chunks through a Node stream pipeline; in a profile of that load the concatenation
 * alone was 0.2 CPU-s per stream, on cores the server needs.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BulkLoader, CopyFormat } from '../dialect.js';
import { connect, describeConnectionError } from './connect.js';
import { UnsupportedByWire, WireConnection } from './wire/connection.js';
import { wantsWire, wireTarget } from './wire/target.js';

const OPEN_TIMEOUT_MS = 10_000;
/** Binary COPY's signature, flags (no OIDs) and header-extension length (none). */
const COPY_BINARY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** A field count of -1 ends a binary COPY. */
const COPY_BINARY_TRAILER = Buffer.from([0xff, 0xff]);

export async function openPostgresBulkLoader(url: string): Promise<BulkLoader> {
  if (wantsWire()) {
    const wire = wireTarget(url);
    if ('target' in wire) {
      let conn: WireConnection | undefined;
      try {
        conn = await WireConnection.open(wire.target, OPEN_TIMEOUT_MS);
      } catch (err) {
        if (!(err instanceof UnsupportedByWire)) throw describeConnectionError(err, url);
      }
      if (conn !== undefined) return wireBulkLoader(conn);
    }
  }
  return postgresJsBulkLoader(url);
}

/** Binary COPY unless TXBENCH_COPY_FORMAT=text asks for the text format (to compare the two). */
export function postgresCopyFormat(env: NodeJS.ProcessEnv = process.env): CopyFormat {
  return env.TXBENCH_COPY_FORMAT === 'text' ? 'text' : 'binary';
}

function copyStatement(table: string, columns: readonly string[], format: CopyFormat): string {
  return `copy ${table} (${columns.join(', ')}) from stdin${format === 'binary' ? ' (format binary)' : ''}`;
}

/** A binary stream's rows between the format's header and trailer. */
function* framed(chunks: Iterable<Buffer>, format: CopyFormat): Generator<Buffer> {
  if (format === 'binary') yield COPY_BINARY_HEADER;
  yield* chunks;
  if (format === 'binary') yield COPY_BINARY_TRAILER;
}

function wireBulkLoader(conn: WireConnection): BulkLoader {
  return {
    async load(table, columns, chunks, format = 'text') {
      await conn.copyIn(copyStatement(table, columns, format), framed(chunks, format));
    },
    close: () => conn.end(5000),
  };
}

function postgresJsBulkLoader(url: string): BulkLoader {
  const sql = connect(url, { max: 1 });
  return {
    async load(table, columns, chunks, format = 'text') {
      const copy = await sql.unsafe(copyStatement(table, columns, format)).writable();
      await pipeline(Readable.from(framed(chunks, format)), copy);
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

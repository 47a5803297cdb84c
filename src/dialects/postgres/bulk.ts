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
import type { BulkLoader } from '../dialect.js';
import { connect, describeConnectionError } from './connect.js';
import { UnsupportedByWire, WireConnection } from './wire/connection.js';
import { wantsWire, wireTarget } from './wire/target.js';

const OPEN_TIMEOUT_MS = 10_000;

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

function copyStatement(table: string, columns: readonly string[]): string {
  return `copy ${table} (${columns.join(', ')}) from stdin`;
}

function wireBulkLoader(conn: WireConnection): BulkLoader {
  return {
    async load(table, columns, chunks) {
      await conn.copyIn(copyStatement(table, columns), chunks);
    },
    close: () => conn.end(5000),
  };
}

function postgresJsBulkLoader(url: string): BulkLoader {
  const sql = connect(url, { max: 1 });
  return {
    async load(table, columns, chunks) {
      const copy = await sql.unsafe(copyStatement(table, columns)).writable();
      await pipeline(Readable.from(chunks), copy);
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

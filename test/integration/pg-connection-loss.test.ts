/**
 * A PostgreSQL connection lost just as the server said it was ready (the server killed or
 * restarted, the network cut, while a slot reconnects) must not end the process. postgres.js
 * 3.4.9 sent its array-type lookup at that moment from a handler that does not catch, so the
 * lost connection became an unhandled rejection. A relay in front of a real embedded PostgreSQL
 * passes its first connection up to the server's first ReadyForQuery and then closes it; a
 * child `node` process (no handler of its own) opens txbench's postgres.js slots and pool
 * through it, then again through the relay now passing everything, and must end on its own with
 * exit 0 and nothing on stderr. Also: without the lookup, arrays still go and come back as
 * postgres.js with the lookup sends and reads them.
 * Drives the compiled code (run `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_ARRAYS } from '../../dist/dialects/postgres/array-types.js';
import { connect } from '../../dist/dialects/postgres/connect.js';
import { openPostgresConnections } from '../../dist/dialects/postgres/connections.js';
import { postgresDialect } from '../../dist/dialects/postgres/dialect.js';
import { cleanEnv, makeTempDir, REPO_ROOT, removeDir, startTempServer, type TempServer } from './helpers.js';

interface CuttingRelay {
  port: number;
  /** Connections closed right after the server's first ReadyForQuery. */
  readonly cuts: number;
  close(): Promise<void>;
}

const READY_FOR_QUERY = 0x5a; // 'Z'

/**
 * A TCP relay to `targetPort` that closes its first connection right after passing the server's
 * first ReadyForQuery (the client sees the server ready, then the connection end); later
 * connections pass every byte both ways.
 */
async function startCuttingRelay(targetPort: number): Promise<CuttingRelay> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let cuts = 0;
  const srv = net.createServer((client) => {
    const cutting = accepted++ === 0;
    const server = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        server.destroy();
      });
    }
    client.on('data', (chunk: Buffer) => server.write(chunk));
    // The server's bytes not yet forwarded while cutting: whole messages go, a partial one waits.
    let pending = Buffer.alloc(0);
    server.on('data', (chunk: Buffer) => {
      if (!cutting) {
        client.write(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      let at = 0;
      while (pending.length - at >= 5) {
        const end = at + 1 + pending.readUInt32BE(at + 1);
        if (end > pending.length) break;
        if (pending[at] === READY_FOR_QUERY) {
          cuts++;
          server.destroy();
          client.end(pending.subarray(0, end));
          return;
        }
        at = end;
      }
      client.write(pending.subarray(0, at));
      pending = pending.subarray(at);
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const address = srv.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    get cuts() {
      return cuts;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    },
  };
}

function throughRelay(url: string, port: number): string {
  const u = new URL(url);
  u.port = String(port);
  return u.toString();
}

let pg: TempServer;
let dir: string;

beforeAll(async () => {
  pg = await startTempServer();
  dir = await makeTempDir('txbench-pg-loss-');
}, 120_000);

afterAll(async () => {
  await pg?.stop();
  await removeDir(dir);
});

describe('a PostgreSQL connection lost as the server says it is ready', () => {
  it('neither the slots nor a pool end the process: it exits 0 on its own, nothing on stderr', async () => {
    const dist = (file: string): string => pathToFileURL(path.join(REPO_ROOT, 'dist', file)).href;
    const script = path.join(dir, 'open-through-relay.mjs');
    await writeFile(
      script,
      `import { openPostgresConnections } from ${JSON.stringify(dist('dialects/postgres/connections.js'))};
import { connectChecked } from ${JSON.stringify(dist('dialects/postgres/connect.js'))};
const [slotsUrl, poolUrl] = process.argv.slice(2);
async function attempt(label, open) {
  try {
    await open();
    console.log(label + ': opened');
  } catch (err) {
    console.log(label + ': not opened');
  }
}
const slots = async () => {
  const conns = await openPostgresConnections(slotsUrl, 1);
  await conns.session(0).query('select 1');
  await conns.close();
};
const pool = async () => {
  const sql = await connectChecked(poolUrl, { max: 1 });
  await sql.end({ timeout: 5 });
};
await attempt('slots, first connection', slots);
await attempt('slots, again', slots);
await attempt('pool, first connection', pool);
await attempt('pool, again', pool);
`,
    );
    const port = Number(new URL(pg.url).port);
    const forSlots = await startCuttingRelay(port);
    const forPool = await startCuttingRelay(port);
    try {
      const child = spawn(
        process.execPath,
        [script, throughRelay(pg.url, forSlots.port), throughRelay(pg.url, forPool.port)],
        { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(killer);
      expect(stderr).toBe('');
      expect(code, stdout).toBe(0);
      // Each relay did close a connection the server had just called ready.
      expect(forSlots.cuts).toBe(1);
      expect(forPool.cuts).toBe(1);
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(4);
      expect(lines).toContain('slots, again: opened');
      expect(lines).toContain('pool, again: opened');
    } finally {
      await forSlots.close();
      await forPool.close();
    }
  }, 120_000);
});

describe('arrays without the type lookup', () => {
  const SQL = `select $1::int[] as ints, $2::text[] as texts, $3::numeric[] as amounts,
    $4::bigint[] as bigs, array[true, false] as flags, $5::int4 as n, array[[1, 2], [3, 4]] as grid,
    array['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11']::uuid[] as ids, $6::int[] as none,
    array['2026-12-01 12:34:56+00']::timestamptz[] as times`;
  // No NULL elements: postgres.js's own parser reads them as NaN or the string "NULL".
  const PARAMS = [
    [1, 2, 3],
    ['a b', 'q"x', 'back\\slash', 'NULL'],
    ['12.50', '0.01'],
    ['9007199254740993'],
    7,
    [],
  ];

  it('go and come back as postgres.js with the lookup sends and reads them', async () => {
    const plain = postgres(pg.url, { max: 1, onnotice: () => undefined, types: {} });
    const conns = await openPostgresConnections(pg.url, 1);
    try {
      const [expected] = await plain.unsafe(SQL, PARAMS as postgres.ParameterOrJSON<never>[], {
        prepare: true,
      });
      const [row] = await conns.session(0).query(SQL, PARAMS);
      expect(row).toEqual({ ...expected });
      expect(row!.ints).toEqual([1, 2, 3]);
      expect(row!.texts).toEqual(['a b', 'q"x', 'back\\slash', 'NULL']);
      expect(row!.grid).toEqual([
        [1, 2],
        [3, 4],
      ]);
      // NULL elements go and come back as null, as on the wire path.
      const [nulls] = await conns.session(0).query('select $1::int[] as ints, $2::text[] as texts', [
        [1, null],
        ['NULL', null],
      ]);
      expect(nulls).toEqual({ ints: [1, null], texts: ['NULL', null] });
    } finally {
      await conns.close();
      await plain.end({ timeout: 5 });
    }
  });

  it("the fixed OIDs are the server's: each array type and its element type", async () => {
    const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      const rows = await sql<{ oid: number; element: number }[]>`
        select oid::int as oid, typelem::int as element from pg_type
        where oid = any(${BUILT_IN_ARRAYS.map(([, oid]) => oid)}::oid[]) order by oid`;
      const expected = BUILT_IN_ARRAYS.map(([, oid, element]) => ({ oid, element }));
      expect(rows).toEqual([...expected].sort((a, b) => a.oid - b.oid));
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it("a fresh pool's reserve() settles (postgres.js 3.4.9 alone hangs there without the lookup)", async () => {
    const sql = connect(pg.url, { max: 1 });
    try {
      const conn = await sql.reserve();
      const [row] = await conn`select 41 + 1 as n`;
      expect(row).toEqual({ n: 42 });
      conn.release();
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it('the server settings are read with a text[] parameter (name = any($1))', async () => {
    const db = await postgresDialect.connect(pg.url, { max: 1 });
    try {
      const settings = await postgresDialect.settings!(db);
      expect(Object.keys(settings)).toContain('shared_buffers');
      expect(Object.keys(settings)).toContain('max_connections');
    } finally {
      await db.close();
    }
  });
});

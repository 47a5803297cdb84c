/**
 * The PostgreSQL wire path (src/dialects/postgres/wire) against real servers: the embedded one
 * (SCRAM-SHA-256) and a PostgreSQL 15 the test owns with MD5, cleartext-password and trust users;
 * values decoded as postgres.js decodes them; errors with their SQLSTATE; a pipeline that fails
 * mid-transaction; cancel and terminate; the server's bytes delivered a few at a time.
 */
import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatementCallback, TextResult } from '../../dist/dialects/connections.js';
import { sendCancelRequest } from '../../dist/dialects/postgres/cancel.js';
import { describeConnectionError } from '../../dist/dialects/postgres/connect.js';
import { classifyPostgresError } from '../../dist/dialects/postgres/errors.js';
import { WireConnection } from '../../dist/dialects/postgres/wire/connection.js';
import { WireSlot } from '../../dist/dialects/postgres/wire/session.js';
import { wireTarget, type WireTarget } from '../../dist/dialects/postgres/wire/target.js';
import { openWireConnections } from '../../dist/dialects/postgres/wire/slots.js';
import { wireRunner } from '../../dist/workloads/tpcc/postgres/runner.js';
import { startPgCtlServer, type PgCtlServer } from './faults/pg-ctl-server.js';
import { startRelay, type Relay } from './faults/relay.js';
import { startTempServer, type TempServer } from './helpers.js';

function targetOf(url: string): WireTarget {
  const t = wireTarget(url);
  if (!('target' in t)) throw new Error(`not a wire URL: ${t.unsupported}`);
  return t.target;
}

async function openSlot(url: string): Promise<WireSlot> {
  return new WireSlot(await WireConnection.open(targetOf(url), 10_000));
}

/** A callback-route call as a promise. */
function callOn(call: (done: StatementCallback) => void): Promise<TextResult> {
  return new Promise((resolve, reject) => call((err, result) => (err ? reject(err) : resolve(result))));
}

const MIXED = `select $1::int as i, $2::text as t, $3::int[] as a, $4::numeric as n,
  $5::timestamptz as ts, $6::bool as b, $7::jsonb as j, null::text as z, $8::bigint as big,
  $9::text[] as ta, 2.5::float8 as f, 'x'::char(3) as ch`;
const MIXED_PARAMS = [
  42,
  'tab\there "quoted" \\ back',
  [1, 2, 3],
  '12345.67',
  new Date('2026-12-01T12:34:56.789Z'),
  true,
  { k: [1, 'two'] },
  '9007199254740993',
  // Not a null element: postgres.js reads one back as the string "NULL".
  ['a', 'b "c"', 'd,e', 'NULL'],
];

describe('the wire path on the embedded server (SCRAM-SHA-256)', () => {
  let server: TempServer;
  let sql: postgres.Sql;
  beforeAll(async () => {
    server = await startTempServer();
    sql = postgres(server.url, { max: 2, onnotice: () => undefined, types: {} });
  }, 120_000);
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await server?.stop();
  });

  it('authenticates, prepares, and decodes every value as postgres.js does', async () => {
    const slot = await openSlot(server.url);
    try {
      expect(slot.conn.key?.pid).toBeGreaterThan(0);
      const [wire] = await slot.query(MIXED, MIXED_PARAMS);
      const [pgjs] = await sql.unsafe(MIXED, MIXED_PARAMS as postgres.ParameterOrJSON<never>[], {
        prepare: true,
      });
      expect(wire).toEqual({ ...pgjs });
      expect(wire!.i).toBe(42);
      expect(wire!.big).toBe('9007199254740993');
      expect(wire!.ta).toEqual(['a', 'b "c"', 'd,e', 'NULL']);
      expect(wire!.a).toEqual([1, 2, 3]);
      // The same statement again runs from the cache: still one prepared statement on the server.
      await slot.query(MIXED, MIXED_PARAMS);
      const [count] = await slot.query<{ n: number }>(
        'select count(*)::int as n from pg_prepared_statements where statement = $1',
        [MIXED],
      );
      expect(count!.n).toBe(1);
    } finally {
      await slot.conn.end();
    }
  });

  it('runs statements on its callback route: rows as the server sent them, or only counted; BEGIN and COMMIT as they are', async () => {
    const slot = await openSlot(server.url);
    try {
      const route = slot.callbacks;
      const text = 'select g, repeat(chr(64 + g), g) as s from generate_series(1, $1::int) g';
      const statement = await route.prepare(text);
      expect(route.preparedFor(text)).toBe(statement);
      const read = await callOn((done) => route.run(statement, ['3'], done));
      expect(read).toEqual({
        rows: [
          ['1', 'A'],
          ['2', 'BB'],
          ['3', 'CCC'],
        ],
        tag: 'SELECT 3',
      });
      const counted = await callOn((done) => route.count(statement, ['250'], done));
      expect(counted.tag).toBe('SELECT 250');
      expect(counted.rows).toHaveLength(250);
      expect(counted.rows.every((row) => row.length === 0)).toBe(true);
      await callOn((done) => route.runText('begin', done));
      expect(slot.conn.transactionStatus).toBe('T');
      const err = await callOn((done) => route.count(statement, ['x'], done)).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('22P02');
      await callOn((done) => route.runText('rollback', done));
      expect(slot.conn.transactionStatus).toBe('I');
      // A read after a count decodes its rows again.
      expect((await callOn((done) => route.run(statement, ['2'], done))).rows).toEqual([
        ['1', 'A'],
        ['2', 'BB'],
      ]);
    } finally {
      await slot.conn.end();
    }
  });

  it('gives the server error with its SQLSTATE and stays usable; counts rows changed', async () => {
    const slot = await openSlot(server.url);
    try {
      const err = await slot.query('select 1 / $1::int as x', [0]).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('22012');
      expect(classifyPostgresError(err)).toBe('other');
      await slot.execute('create temp table t (k int primary key, v text)');
      expect(
        await slot.execute('insert into t select g, g::text from generate_series(1, $1::int) g', [5]),
      ).toBe(5);
      expect(await slot.execute('update t set v = $1 where k <= $2', ['u', 3])).toBe(3);
      const dup = await slot.execute('insert into t values ($1, $2)', [1, 'x']).catch((e: unknown) => e);
      expect(classifyPostgresError(dup)).toBe('constraint');
      expect((await slot.query('select count(*)::int as n from t'))[0]!.n).toBe(5);
    } finally {
      await slot.conn.end();
    }
  });

  it('rolls a pipeline back when one of its statements fails, and reports the first error', async () => {
    const slot = await openSlot(server.url);
    try {
      await slot.execute('create temp table p (k int)');
      const runner = wireRunner(slot);
      const err = await runner
        .pipeline([
          { sql: 'begin' },
          { sql: 'insert into p values ($1)', params: [1] },
          { sql: 'select 1 / $1::int', params: [0] },
          { sql: 'insert into p values ($1)', params: [2] },
          { sql: 'commit' },
        ])
        .catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('22012');
      expect(slot.conn.transactionStatus).toBe('I');
      expect((await slot.query('select count(*)::int as n from p'))[0]!.n).toBe(0);
      const ok = await runner.pipeline([
        { sql: 'begin' },
        { sql: 'insert into p values ($1) returning k', params: [7] },
        { sql: 'commit' },
      ]);
      expect(ok[1]).toEqual([{ k: 7 }]);
    } finally {
      await slot.conn.end();
    }
  });

  it('answers a single-Sync pipeline statement by statement, and runs one without BEGIN as one implicit transaction', async () => {
    const slot = await openSlot(server.url);
    const pipeline = (calls: { sql: string; values: string[] }[]) =>
      Promise.all(calls.map((c) => slot.statement(c.sql))).then(
        (statements) =>
          new Promise<{ err: Error | undefined; results: readonly { rows: unknown[][]; tag: string }[] }>(
            (resolve) =>
              slot.conn.pipeline(
                calls.map((c, i) => ({ statement: statements[i]!, values: c.values })),
                (err, results) => resolve({ err, results }),
              ),
          ),
      );
    try {
      await slot.execute('create temp table q (k int)');
      const ok = await pipeline([
        { sql: 'insert into q select generate_series(1, $1::int)', values: ['3'] },
        { sql: 'select k from q order by k', values: [] },
        { sql: 'select count(*) from q where k > $1', values: ['1'] },
      ]);
      expect(ok.err).toBeUndefined();
      expect(ok.results.map((r) => r.tag)).toEqual(['INSERT 0 3', 'SELECT 3', 'SELECT 1']);
      expect(ok.results[1]!.rows).toEqual([['1'], ['2'], ['3']]);
      expect(ok.results[2]!.rows).toEqual([['2']]);
      // No BEGIN: the statements up to the Sync are one transaction, so the failure undoes the insert.
      const failed = await pipeline([
        { sql: 'insert into q values ($1)', values: ['9'] },
        { sql: 'select 1 / $1::int', values: ['0'] },
        { sql: 'insert into q values ($1)', values: ['10'] },
      ]);
      expect((failed.err as { code?: string } | undefined)?.code).toBe('22012');
      expect(failed.results.map((r) => r.tag)).toEqual(['INSERT 0 1']);
      expect(slot.conn.transactionStatus).toBe('I');
      expect((await slot.query('select count(*)::int as n from q'))[0]!.n).toBe(3);
    } finally {
      await slot.conn.end();
    }
  });

  it('is cancelled by a cancel request (57014) and keeps its connection', async () => {
    const slot = await openSlot(server.url);
    try {
      const t = targetOf(server.url);
      const sleeping = slot.query('select pg_sleep($1::float8)', [30]).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      await sendCancelRequest({ host: t.host, port: t.port }, slot.conn.key!, 5000);
      const err = await sleeping;
      expect((err as { code?: string }).code).toBe('57014');
      expect(classifyPostgresError(err)).toBe('other');
      expect((await slot.query('select 1 as one'))[0]).toEqual({ one: 1 });
    } finally {
      await slot.conn.end();
    }
  });

  it('copies chunks in with COPY FROM STDIN; a bad row or a failing generator fails the COPY, not the connection', async () => {
    const slot = await openSlot(server.url);
    try {
      await slot.execute('create temp table c (k int primary key, v text)');
      // Chunks end mid-row: COPY data is a byte stream, and 2,000 chunks outrun the socket's buffer.
      const text = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\tv${i + 1}\n`).join('');
      const chunks = function* (): Generator<Buffer> {
        for (let at = 0; at < text.length; at += 97) yield Buffer.from(text.slice(at, at + 97));
      };
      expect(await slot.conn.copyIn('copy c (k, v) from stdin', chunks())).toBe('COPY 20000');
      const [sum] = await slot.query<{ n: number; s: string }>(
        'select count(*)::int as n, sum(k)::text as s from c',
      );
      expect(sum).toEqual({ n: 20_000, s: String((20_000 * 20_001) / 2) });

      const bad = await slot.conn
        .copyIn('copy c (k, v) from stdin', [Buffer.from('20001\tok\n'), Buffer.from('x\tnot a number\n')])
        .catch((e: unknown) => e);
      expect((bad as { code?: string }).code).toBe('22P02');

      const failing = function* (): Generator<Buffer> {
        yield Buffer.from('20002\tok\n');
        throw new Error('the generator broke');
      };
      const broke = await slot.conn.copyIn('copy c (k, v) from stdin', failing()).catch((e: unknown) => e);
      expect((broke as Error).message).toBe('the generator broke');

      // Neither failed COPY left a row or broke the connection.
      expect((await slot.query('select count(*)::int as n from c'))[0]!.n).toBe(20_000);
      expect(slot.conn.transactionStatus).toBe('I');
    } finally {
      await slot.conn.end();
    }
  });

  it('fails the call in flight as a lost connection when its backend is terminated', async () => {
    const slot = await openSlot(server.url);
    const pid = slot.conn.key!.pid;
    const sleeping = slot.query('select pg_sleep($1::float8)', [30]).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await sql`select pg_terminate_backend(${pid})`;
    const err = await sleeping;
    expect(classifyPostgresError(err)).toBe('connection');
    await new Promise((r) => setTimeout(r, 100));
    expect(slot.conn.lost).toBe(true);
    const next = await slot.query('select 1').catch((e: unknown) => e);
    expect(classifyPostgresError(next)).toBe('connection');
  });

  it('opens run slots, replaces a lost one, and refuses a wrong password in one line without it', async () => {
    const conns = await openWireConnections(server.url, targetOf(server.url), 3, ['select $1::int + 1 as r']);
    try {
      const slot = conns.handle(1);
      const r = await slot.conn.run(slot.prepared[0]!, ['41']);
      expect(r.rows).toEqual([['42']]);
      slot.conn.destroy();
      expect(conns.isLost!(1)).toBe(true);
      await conns.reconnect(1, 10_000);
      expect(conns.isLost!(1)).toBe(false);
      const again = conns.handle(1);
      expect((await again.conn.run(again.prepared[0]!, ['1'])).rows).toEqual([['2']]);
    } finally {
      await conns.close();
    }
    const u = new URL(server.url);
    u.password = 'not-the-password';
    const err = await WireConnection.open(targetOf(u.toString()), 10_000).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('28P01');
    const line = describeConnectionError(err, u.toString()).message;
    expect(line).toMatch(/password authentication failed/);
    expect(line).not.toContain('not-the-password');
  });
});

describe('the wire path on PostgreSQL 15 (MD5, password, trust; bytes a few at a time)', () => {
  let pg: PgCtlServer;
  let relay: Relay;
  beforeAll(async () => {
    pg = await startPgCtlServer({
      hba: [
        'host all postgres 127.0.0.1/32 trust',
        'host all md5user 127.0.0.1/32 md5',
        'host all pwuser 127.0.0.1/32 password',
        '',
      ].join('\n'),
    });
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`set password_encryption = 'md5'`);
    await admin.unsafe(`create role md5user login password 'md5 secret'`);
    await admin.unsafe(`reset password_encryption`);
    await admin.unsafe(`create role pwuser login password 'plain secret'`);
    await admin.end({ timeout: 5 });
    relay = await startRelay(pg.port, '127.0.0.1', { trickle: true });
  }, 120_000);
  afterAll(async () => {
    await relay?.close();
    await pg?.stop();
  });

  it.each([
    ['md5user', 'md5%20secret'],
    ['pwuser', 'plain%20secret'],
    ['postgres', ''],
  ])('authenticates %s', async (user, password) => {
    const slot = await openSlot(
      `postgres://${user}${password ? `:${password}` : ''}@127.0.0.1:${pg.port}/postgres`,
    );
    try {
      expect((await slot.query('select current_user as u'))[0]).toEqual({ u: user });
    } finally {
      await slot.conn.end();
    }
  });

  it('reads results many times its read buffer, whole and byte for byte, then goes on', async () => {
    const slot = await openSlot(pg.url);
    try {
      const rows = await slot.query<{ g: number; h: string }>(
        'select g, md5(g::text) as h from generate_series(1, $1::int) g',
        [20_000],
      );
      expect(rows).toHaveLength(20_000);
      for (const row of [rows[0]!, rows[9_999]!, rows[19_999]!])
        expect(row.h).toBe(createHash('md5').update(String(row.g)).digest('hex'));
      expect(rows.every((row, i) => row.g === i + 1)).toBe(true);
      const [wide] = await slot.query<{ s: string }>("select repeat('é', $1::int) || 'end' as s", [150_000]);
      expect(wide!.s).toBe('é'.repeat(150_000) + 'end');
      expect(await slot.query('select $1::int as a', [7])).toEqual([{ a: 7 }]);
    } finally {
      await slot.conn.end();
    }
  }, 120_000);

  it('reads every message when the server bytes arrive in pieces of 1 to 7 bytes', async () => {
    const direct = await openSlot(pg.url);
    const trickled = await openSlot(`postgres://postgres@127.0.0.1:${relay.port}/postgres`);
    try {
      const rows = `select g as i, repeat(chr(65 + g % 26), g % 40) as s, g * 1.5 as n
        from generate_series(1, $1::int) g`;
      expect(await trickled.query(rows, [300])).toEqual(await direct.query(rows, [300]));
      expect(await trickled.query(MIXED, MIXED_PARAMS)).toEqual(await direct.query(MIXED, MIXED_PARAMS));
      const err = await trickled.query('select 1 / $1::int', [0]).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('22012');
      const pipeline = await wireRunner(trickled).pipeline([
        { sql: 'begin' },
        { sql: 'select $1::int as a', params: [1] },
        { sql: 'select $1::text as b', params: ['two'] },
        { sql: 'commit' },
      ]);
      expect(pipeline.slice(1, 3)).toEqual([[{ a: 1 }], [{ b: 'two' }]]);
      // Rows only counted, while the server's bytes still come in pieces; then rows read again.
      const route = trickled.callbacks;
      const statement = await route.prepare(rows);
      const counted = await callOn((done) => route.count(statement, ['300'], done));
      expect(counted.rows).toHaveLength(300);
      expect(counted.tag).toBe('SELECT 300');
      expect(await trickled.query(rows, [300])).toEqual(await direct.query(rows, [300]));
    } finally {
      await direct.conn.end();
      await trickled.conn.end();
    }
  }, 120_000);
});

/**
 * The callback route's binary hot path (binary-executor.ts) on a real mariadbd, against mysql2
 * itself on the same connection: every column type the workloads meet, NULLs, a CALL with
 * several result sets, errors. The answers mysql2 reads are captured off the socket and decoded
 * again by the reader, a byte at a time.
 */
import mysql from 'mysql2/promise';
import type { Connection as CoreConnection, QueryError } from 'mysql2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CallbackRoute,
  ParamValue,
  PreparedStatement,
  TextResult,
  TextValue,
} from '../../dist/dialects/connections.js';
import { openMysqlConnections } from '../../dist/dialects/mysql/connections.js';
import { textResult, type MysqlPrepared } from '../../dist/dialects/mysql/callback-route.js';
import { AnswerReader } from '../../dist/dialects/mysql/binary-protocol.js';
import { classifyMysqlError } from '../../dist/dialects/mysql/errors.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

type Connections = Awaited<ReturnType<typeof openMysqlConnections>>;

interface Internals {
  _command: unknown;
  _mariadbExtendedMetadata?: boolean;
  stream: NodeJS.ReadableStream;
}

const call = (f: (done: (err: Error | undefined, result: TextResult) => void) => void): Promise<TextResult> =>
  new Promise((resolve, reject) => f((err, result) => (err === undefined ? resolve(result) : reject(err))));

const COLUMNS = `id int primary key, ti tinyint, tiu tinyint unsigned, si smallint, siu smallint unsigned,
  mi mediumint, miu mediumint unsigned, i int, iu int unsigned, bi bigint, biu bigint unsigned,
  d decimal(12,4), d0 decimal(30,0), f float, db double, c char(5), vc varchar(300), tx mediumtext, bl blob,
  vb varbinary(20), dt date, dtt datetime, dtt6 datetime(6), ts timestamp(3) null, tm time, tm6 time(6),
  yr year, e enum('a','b'), st set('x','y'), bt bit(8), l1 varchar(10) character set latin1`;

const ROWS = [
  `(1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808,
    18446744073709551615, -12345678.1234, 123456789012345678901234567890, 1.1, 3.141592653589793, 'ab',
    'héllo wörld ✓', repeat('t', 70000), x'00ff10', x'cafe', '2024-02-29', '2024-02-29 23:59:58',
    '2024-02-29 23:59:58.000120', '2024-03-01 01:02:03.400', '-838:59:59', '12:34:56.789', 2024, 'b',
    'x,y', b'10100101', 'café')`,
  `(2, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0, 0.0001, -1, -0.5, 1e300,
    '', '', '', '', '', '1000-01-01', '1000-01-01 00:00:00', '2000-01-01 00:00:00', null, '00:00:00',
    '00:00:00.000001', 1901, 'a', '', b'0', '')`,
  `(3, ${Array.from({ length: 30 }, () => 'null').join(', ')})`,
  `(4, 1, 2, 3, 4, 5, 6, 7, 8, 9007199254740993, 9007199254740993, 1.5, 7, 3.4e38, -2.2250738585072014e-308,
    'x', repeat('v', 300), 'short', x'41', x'42', '2024-01-01', '2024-01-01 12:00:00', '2024-01-01 12:00:00.5',
    '2024-01-01 12:00:00', '100:00:00', '-00:00:01.5', 2155, 'a', 'y', b'1', 'x')`,
];

describe('the MySQL callback route’s binary hot path on MariaDB', () => {
  let server: MariaDbServer;
  let slots: Connections;
  let route: CallbackRoute;
  let core: CoreConnection & Internals;

  beforeAll(async () => {
    server = await startMariaDb();
    const admin = await mysql.createConnection(server.url);
    await admin.query(`create table bt (${COLUMNS})`);
    await admin.query(`insert into bt values ${ROWS.join(', ')}`);
    await admin.query(
      `create procedure two_sets(in upto int)
       begin
         select id, vc, d from bt where id <= upto order by id;
         select count(*) as n, sum(d) as total, max(dtt) as latest from bt;
       end`,
    );
    await admin.query('create procedure no_set(in k int) begin update bt set ti = ti where id = k; end');
    await admin.end();
    slots = await openMysqlConnections(server.url, 1);
    route = slots.session(0).callbacks!;
    const conn = (route as unknown as { core: CoreConnection & Internals }).core;
    core = conn;
  }, 120_000);

  afterAll(async () => {
    await slots?.close();
    await server?.stop();
  });

  /** The statement through mysql2's own execute, its answer as textResult makes it, and the bytes mysql2 read. */
  async function viaMysql2(
    statement: PreparedStatement,
    values: readonly TextValue[],
  ): Promise<{ result?: TextResult; error?: QueryError; bytes: Buffer }> {
    const chunks: Buffer[] = [];
    const record = (chunk: Buffer): void => void chunks.push(chunk);
    core.stream.on('data', record);
    const answer = await new Promise<{ result?: TextResult; error?: QueryError }>((resolve) => {
      (statement as MysqlPrepared).handle.execute(values, (err: QueryError | null, answer: unknown) => {
        if (err) resolve({ error: err });
        else resolve({ result: textResult(answer as Parameters<typeof textResult>[0], false) });
      });
    });
    // mysql2 answers inside the socket's 'data' event, before this listener has seen the last chunk.
    await new Promise((resolve) => setImmediate(resolve));
    core.stream.off('data', record);
    return { ...answer, bytes: Buffer.concat(chunks) };
  }

  /** The route's answer, checking that it took the hot path (mysql2 was given no command). */
  function viaHotPath(statement: PreparedStatement, values: readonly ParamValue[], countOnly = false) {
    return new Promise<{ result?: TextResult; error?: Error }>((resolve) => {
      const done = (err: Error | undefined, result: TextResult): void =>
        resolve(err === undefined ? { result } : { error: err });
      if (countOnly) route.count(statement, values, done);
      else route.run(statement, values, done);
      expect(core._command).toBeFalsy();
    });
  }

  /** The captured answer decoded by the reader, one byte at a time. */
  function decodeBytes(bytes: Buffer): { result?: TextResult; error?: Error } {
    const reader = new AnswerReader({
      extendedMetadata: core._mariadbExtendedMetadata === true,
      isUtf8: (charset) => charset !== 8,
      decode: (buf, start, end, charset) => buf.toString(charset === 8 ? 'latin1' : 'utf8', start, end),
      errorName: () => undefined,
    });
    reader.start(false);
    for (let i = 0; i < bytes.length; i++) {
      const used = reader.feed(bytes.subarray(i, i + 1));
      if (used >= 0) {
        expect(i).toBe(bytes.length - 1);
        expect(used).toBe(1);
      }
    }
    return reader.error === undefined ? { result: reader.result! } : { error: reader.error };
  }

  const cases: [string, TextValue[]][] = [
    ['select * from bt order by id', []],
    ['select * from bt where id = ?', ['1']],
    ['select id, vc from bt where id in (?, ?) or vc = ?', ['2', null, 'héllo wörld ✓']],
    [
      'select ? as a, ? as b, ? as c, ? as d, ? as e, ? as f, ? as g, ? as h, ? as i',
      ['1', null, 'x'.repeat(300), null, '', 'é', null, 'y'.repeat(70_000), '9'],
    ],
    ['select count(*), sum(d), avg(i), max(dtt6), min(tm) from bt where id > ?', ['0']],
    ['select * from bt where id > ?', ['100']],
    ['update bt set ti = ti where id <= ?', ['4']],
    ['call two_sets(?)', ['2']],
    ['call no_set(?)', ['1']],
    ['insert into bt (id) values (?)', ['1']],
    ['select id from bt where id = ? + ?', ['1']],
  ];

  it('gives the same text, tags, sets and errors as mysql2 on the same connection', async () => {
    for (const [sql, values] of cases) {
      const statement = await route.prepare(sql);
      const expected = await viaMysql2(statement, values);
      const actual = await viaHotPath(statement, values);
      if (expected.error) {
        expect(actual.error, sql).toBeDefined();
        const pick = (e: Error) => {
          const f = e as Error & Record<string, unknown>;
          return {
            message: f.message,
            code: f.code,
            errno: f.errno,
            sqlState: f.sqlState,
            sqlMessage: f.sqlMessage,
            sql: f.sql,
          };
        };
        expect(pick(actual.error!), sql).toEqual(pick(expected.error));
      } else {
        expect(actual.result, sql).toEqual(expected.result);
      }
      const decoded = decodeBytes(expected.bytes);
      if (expected.error) expect(decoded.error?.message, sql).toBe(expected.error.message);
      else expect(decoded.result, sql).toEqual(expected.result);
    }
  });

  it('takes numbers (a LONG, a LONGLONG past 32 bits) and lists of numbers, answering as mysql2 does given their text', async () => {
    const numberCases: [string, ParamValue[]][] = [
      ['select * from bt where id = ?', [1]],
      ['select * from bt where id between ? and ?', [-2147483648, 2147483648]],
      [
        'select ? as a, ? as b, ? + 1 as c, ? as d, ? as e, ? as f',
        [5, -7, 9007199254740990, [1, 22, 333], [], 1.5],
      ],
      ['select id from bt where find_in_set(id, ?) order by id', [[4, 2, 3000000000, -1]]],
    ];
    for (const [sql, values] of numberCases) {
      const statement = await route.prepare(sql);
      const text = values.map((v) =>
        typeof v === 'number' ? String(v) : typeof v === 'object' && v !== null ? v.join(',') : v,
      );
      const expected = await viaMysql2(statement, text);
      const actual = await viaHotPath(statement, values);
      expect(expected.error, sql).toBeUndefined();
      expect(actual.error, sql).toBeUndefined();
      expect(actual.result, sql).toEqual(expected.result);
      expect(actual.result!.rows.length, sql).toBeGreaterThan(0);
    }
  });

  it("takes its answers from the slot socket's own read buffer, leaving mysql2's to the socket's 'data' events", async () => {
    const statement = await route.prepare('select * from bt order by id');
    let events = 0;
    const count = (): void => void events++;
    core.stream.on('data', count);
    try {
      expect((await viaHotPath(statement, [])).result?.rows).toHaveLength(4);
      expect(events).toBe(0);
      expect((await viaMysql2(statement, [])).result?.rows).toHaveLength(4);
      expect(events).toBeGreaterThan(0);
    } finally {
      core.stream.off('data', count);
    }
  });

  it('counts rows without decoding them', async () => {
    const statement = await route.prepare('select * from bt where id <= ?');
    const counted = await viaHotPath(statement, ['3'], true);
    expect(counted.result?.rows).toEqual([[], [], []]);
    expect(counted.result?.tag).toBe('SELECT 3');
  });

  it("binds an integer's text as an integer, as sysbench's C driver does, and other text as text", async () => {
    const statement = await route.prepare('select charset(?), charset(?), charset(?), ? between ? and ?');
    const answer = await viaHotPath(statement, ['5', '05', 'a', '50', '5', '104']);
    // Bound as text, '50' would lie outside '5'..'104' (compared as strings).
    expect(answer.result?.rows).toEqual([['binary', 'utf8mb4', 'utf8mb4', '1']]);
  });

  it('runs BEGIN, COMMIT and ROLLBACK on the hot path, with the answers and errors mysql2 gives', async () => {
    const text = (sql: string) =>
      new Promise<{ result?: TextResult; error?: Error }>((resolve) => {
        route.runText(sql, (err, result) => resolve(err === undefined ? { result } : { error: err }));
        expect(core._command, sql).toBeFalsy();
      });
    const viaMysql2Text = (sql: string) =>
      new Promise<{ result?: TextResult; error?: Error }>((resolve) =>
        core.query(sql, (err: QueryError | null, answer: unknown) =>
          resolve(
            err ? { error: err } : { result: textResult(answer as Parameters<typeof textResult>[0], true) },
          ),
        ),
      );
    for (const sql of ['begin', 'commit', 'BEGIN', 'rollback'])
      expect(await text(sql)).toEqual(await viaMysql2Text(sql));
    const update = await route.prepare('update bt set ti = 5 where id = ?');
    expect(await text('begin')).toEqual({ result: { rows: [], tag: 'OK 0' } });
    await viaHotPath(update, ['1']);
    await text('rollback');
    const select = await route.prepare('select ti from bt where id = ?');
    expect((await viaHotPath(select, ['1'])).result?.rows).toEqual([['-128']]);
    // In an XA transaction BEGIN fails (ER_XAER_RMFAIL), the same error either way.
    await viaMysql2Text("xa start 'x'");
    try {
      const expected = await viaMysql2Text('begin');
      const actual = await text('begin');
      expect(expected.error).toMatchObject({ errno: 1399, sql: 'begin' });
      const pick = (e?: Error) => {
        const f = e as Error & Record<string, unknown>;
        return [f.message, f.code, f.errno, f.sqlState, f.sqlMessage, f.sql];
      };
      expect(pick(actual.error)).toEqual(pick(expected.error));
    } finally {
      await viaMysql2Text("xa end 'x'");
      await viaMysql2Text("xa rollback 'x'");
    }
  });

  it('classifies a deadlock-free server error and goes on with the next statement', async () => {
    const insert = await route.prepare('insert into bt (id) values (?)');
    const dup = await viaHotPath(insert, ['2']);
    expect(dup.error).toMatchObject({ errno: 1062, code: 'ER_DUP_ENTRY', sqlState: '23000' });
    const select = await route.prepare('select vc from bt where id = ?');
    expect((await viaHotPath(select, ['4'])).result?.rows).toEqual([['v'.repeat(300)]]);
  });

  it('leaves a statement to mysql2 while mysql2 has a command, and hands mysql2 the bytes after its own answer', async () => {
    const select = await route.prepare('select id, c from bt where id = ?');
    const text = call((done) => route.runText('select 1 as one', done));
    const queued = call((done) => route.run(select, ['1'], done));
    expect(await text).toMatchObject({ tag: 'SELECT 1' });
    expect((await queued).rows).toEqual([['1', 'ab']]);
    // The hot path first, then mysql2's command written behind it on the same socket.
    const hot = viaHotPath(select, ['2']);
    const behind = slots.session(0).query<{ one: number }>('select 1 as one');
    expect((await hot).result?.rows).toEqual([['2', '']]);
    expect(await behind).toEqual([{ one: 1 }]);
  });

  it('ends a statement whose connection is killed under it once, with an error classified as connection loss', async () => {
    const own = await openMysqlConnections(server.url, 1);
    try {
      const ownRoute = own.session(0).callbacks!;
      const [[{ id }]] = (await own.session(0).query('select connection_id() as id')).map((r) => [r]) as [
        [{ id: number }],
      ];
      const sleep = await ownRoute.prepare('select sleep(?)');
      let calls = 0;
      const ended = new Promise<Error | undefined>((resolve) =>
        ownRoute.run(sleep, ['30'], (err) => {
          calls++;
          resolve(err);
        }),
      );
      const admin = await mysql.createConnection(server.rootUrl);
      await admin.query(`kill ${Number(id)}`);
      await admin.end();
      const err = await ended;
      expect(classifyMysqlError(err)).toBe('connection');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(calls).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('falls back to mysql2 for a column type it does not decode', async () => {
    const statement = await route.prepare(
      "select json_object('a', ?) as j, st_geomfromtext('POINT(1 2)') as g",
    );
    expect((statement as MysqlPrepared).binary).toBe(false);
    const expected = await viaMysql2(statement, ['1']);
    const actual = await call((done) => route.run(statement, ['1'], done));
    expect(actual).toEqual(expected.result);
  });
});

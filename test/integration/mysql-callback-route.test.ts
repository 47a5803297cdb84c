/**
 * A MySQL/MariaDB slot's callback route (Session.callbacks) on a real mariadbd: the same answers
 * as the promise-based session, as text; statements prepared once per connection and shared with
 * the session; errors handed to the callback, the connection still usable after them.
 */
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CallbackRoute,
  PreparedStatement,
  TextResult,
  TextValue,
} from '../../dist/dialects/connections.js';
import { openMysqlConnections } from '../../dist/dialects/mysql/connections.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

type Connections = Awaited<ReturnType<typeof openMysqlConnections>>;

/** A route call as a promise, for the test only. */
const call = (f: (done: (err: Error | undefined, result: TextResult) => void) => void): Promise<TextResult> =>
  new Promise((resolve, reject) => f((err, result) => (err === undefined ? resolve(result) : reject(err))));

describe('the MySQL callback route on MariaDB', () => {
  let server: MariaDbServer;
  let slots: Connections;
  let route: CallbackRoute;

  beforeAll(async () => {
    server = await startMariaDb();
    const admin = await mysql.createConnection(server.url);
    await admin.query('create table cb (id int primary key, name varchar(20), price decimal(6,2), n bigint)');
    await admin.query(
      "insert into cb values (1, 'one', 1.50, 10), (2, null, 2.25, 20), (3, 'three', 3.00, 30)",
    );
    await admin.end();
    slots = await openMysqlConnections(server.url, 1);
    const callbacks = slots.session(0).callbacks;
    if (callbacks === undefined) throw new Error('no callback route on a MySQL slot');
    route = callbacks;
  }, 120_000);

  afterAll(async () => {
    await slots?.close();
    await server?.stop();
  });

  const prepared = async (sql: string): Promise<PreparedStatement> => route.prepare(sql);

  it('answers a SELECT with the rows the session reads, as text', async () => {
    const sql = 'select id, name, price, n from cb where id between ? and ? order by id';
    const statement = await prepared(sql);
    const viaRoute = await call((done) => route.run(statement, ['1', '3'], done));
    const viaSession = await slots.session(0).query(sql, [1, 3]);
    const asText = (v: unknown): TextValue => (v === null ? null : String(v));
    expect(viaRoute.rows).toEqual(viaSession.map((r) => Object.values(r).map(asText)));
    expect(viaRoute.rows).toEqual([
      ['1', 'one', '1.50', '10'],
      ['2', null, '2.25', '20'],
      ['3', 'three', '3.00', '30'],
    ]);
    expect(viaRoute.tag).toBe('SELECT 3');
  });

  it('counts rows without reading them, and tells how many rows a write changed', async () => {
    const statement = await prepared('select name from cb where id <= ?');
    const counted = await call((done) => route.count(statement, ['2'], done));
    expect(counted.rows).toHaveLength(2);
    expect(counted.rows.every((r) => r.length === 0)).toBe(true);
    const update = await prepared('update cb set n = n + 1 where id >= ?');
    const changed = await call((done) => route.run(update, ['2'], done));
    expect(changed.rows).toEqual([]);
    expect(changed.tag).toBe('OK 2');
  });

  it('prepares a statement once per connection, shared with the session, and hands it out without a promise', async () => {
    const sql = 'select name from cb where id = ?';
    expect(route.preparedFor(sql)).toBeUndefined();
    const [a, b] = await Promise.all([route.prepare(sql), route.prepare(sql)]);
    expect(a).toBe(b);
    expect(route.preparedFor(sql)).toBe(a);
    const before = await preparedCount();
    await slots.session(0).query(sql, [1]);
    await call((done) => route.run(a, ['1'], done));
    expect(await preparedCount()).toBe(before);
  });

  it('runs BEGIN, COMMIT and ROLLBACK as text, and a rolled-back write is gone', async () => {
    const update = await prepared('update cb set name = ? where id = ?');
    await call((done) => route.runText('begin', done));
    await call((done) => route.run(update, ['changed', '1'], done));
    await call((done) => route.runText('rollback', done));
    const [row] = await slots.session(0).query<{ name: string }>('select name from cb where id = ?', [1]);
    expect(row?.name).toBe('one');
  });

  it("gives the server's error to the callback, and the connection goes on", async () => {
    await expect(route.prepare('select nope from cb where id = ?')).rejects.toThrow(/nope/);
    const insert = await prepared('insert into cb (id, name) values (?, ?)');
    await expect(call((done) => route.run(insert, ['1', 'dup'], done))).rejects.toMatchObject({
      errno: 1062,
    });
    const statement = await prepared('select id from cb where id = ?');
    expect((await call((done) => route.run(statement, ['3'], done))).rows).toEqual([['3']]);
  });

  /** Statements prepared on the server so far, over all connections. */
  async function preparedCount(): Promise<number> {
    const conn = await mysql.createConnection(server.rootUrl);
    try {
      const [rows] = await conn.query("show global status like 'Com_stmt_prepare'");
      return Number((rows as { Value: string }[])[0]?.Value);
    } finally {
      await conn.end();
    }
  }
});

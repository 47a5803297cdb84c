/** The SQLite dialect against real files in a temporary directory (better-sqlite3 is in-process). */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeSqlite, openSqlite } from '../../src/dialects/sqlite/connect.js';
import { sqliteDialect } from '../../src/dialects/sqlite/dialect.js';
import { DatabaseError } from '../../src/errors.js';
import { taskStreams } from '../../src/workloads/tpcc/generate.js';
import { COLUMNS, createTableStatement } from '../../src/workloads/tpcc/schema.js';
import { sqliteDdl } from '../../src/workloads/tpcc/sqlite/index.js';
import { localTimestamp, SqliteTransactions } from '../../src/workloads/tpcc/sqlite/transactions.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-sqlite-unit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('sqlite connections', () => {
  it('creates the file and its directories, in WAL mode with the URL settings', async () => {
    const url = `sqlite:${dir}/new/sub/tpcc.db?synchronous=normal&busy_timeout=1234`;
    const db = await sqliteDialect.connect(url, { max: 1 });
    await db.query('create table t (a integer)');
    expect(await sqliteDialect.settings!(db)).toMatchObject({
      journal_mode: 'wal',
      synchronous: 'normal',
      busy_timeout: '1234',
      cache_size: '-65536',
      foreign_keys: '0',
    });
    expect(await sqliteDialect.dataDirectory!(db)).toBe(path.join(dir, 'new/sub'));
    expect(await sqliteDialect.serverInfo(db)).toEqual({
      product: 'SQLite',
      version: expect.stringMatching(/^3\./),
    });
    expect(await sqliteDialect.serverTransactions(db)).toBeUndefined();
    await db.close();
    expect(existsSync(`${dir}/new/sub/tpcc.db`)).toBe(true);
  });

  it('removes a file it created but left without tables (a check of a mistyped path)', async () => {
    const db = await sqliteDialect.connect(`sqlite:${dir}/typo/deeper/x.db`, { max: 1 });
    expect(await sqliteDialect.tableExists(db, 'warehouse')).toBe(false);
    await db.close();
    expect(existsSync(`${dir}/typo`)).toBe(false);
  });

  it('runs queries with parameters, RETURNING included, and finds tables by any case', async () => {
    const db = await sqliteDialect.connect(`sqlite:${dir}/q.db`, { max: 1 });
    await db.query('create table Things (id integer primary key, name text)');
    expect(await db.query('insert into things (id, name) values (?, ?) returning name', [1, 'one'])).toEqual([
      { name: 'one' },
    ]);
    expect(await db.query('select id, name from things where id = ?', [1])).toEqual([{ id: 1, name: 'one' }]);
    expect(await sqliteDialect.tableExists(db, 'things')).toBe(true);
    expect(await sqliteDialect.tableExists(db, 'THINGS')).toBe(true);
    await expect(db.query('select * from no_such_table')).rejects.toThrow(/no such table/);
    await db.close();
  });

  it('says in one line why a path cannot be opened', async () => {
    const notDb = path.join(dir, 'not-a-db.txt');
    writeFileSync(notDb, 'x'.repeat(4096));
    mkdirSync(path.join(dir, 'adir'));
    writeFileSync(path.join(dir, 'afile'), '');
    const cases: [string, RegExp][] = [
      [notDb, /not-a-db.txt: the file is not a SQLite database/],
      [path.join(dir, 'adir'), /adir: it is a directory; name a file inside it/],
      [path.join(dir, 'afile', 'x.db'), /cannot create its directory \(a part of the path is a file/],
    ];
    // Node 20's own recursive mkdir would spin forever here.
    if (existsSync('/proc/self')) cases.push(['/proc/txbench/x.db', /cannot create its directory/]);
    for (const [file, message] of cases) {
      const err = await sqliteDialect.connect(`sqlite:${file}`, { max: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DatabaseError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toMatch(/\n/);
    }
    expect(() => openSqlite(`sqlite:${dir}/missing.db`, { create: false })).toThrow(
      /missing.db does not exist; create it with `txbench load/,
    );
  });

  it('makes a writer that outlasts busy_timeout a retryable lock timeout', () => {
    const url = `sqlite:${dir}/busy.db?busy_timeout=20`;
    const a = openSqlite(url, { create: true });
    const b = openSqlite(url, { create: false });
    a.db.exec('create table t (a integer)');
    a.db.exec('begin immediate');
    let err: unknown;
    try {
      b.db.exec('begin immediate');
    } catch (e) {
      err = e;
    }
    expect(sqliteDialect.classify(err)).toBe('lockTimeout');
    // Readers go on while the writer holds its lock: WAL mode.
    expect(b.db.prepare('select count(*) as n from t').get()).toEqual({ n: 0 });
    a.db.exec('rollback');
    closeSqlite(b);
    closeSqlite(a);
  });
});

describe('sqlite bulk load', () => {
  it("loads the generator's COPY chunks, NULLs included, and syncs them on close", async () => {
    const url = `sqlite:${dir}/load.db`;
    const db = await sqliteDialect.connect(url, { max: 1 });
    for (const table of ['warehouse', 'district', 'orders', 'new_order', 'order_line'] as const)
      await db.query(createTableStatement(sqliteDdl, table));
    const loader = await sqliteDialect.openBulkLoader(url);
    const ctx = { seed: 3, loadTime: '2026-01-02 03:04:05.678', constants: { cLast: 1, cId: 1, olIId: 1 } };
    for (const kind of ['warehouse', 'orders'] as const)
      for (const { table, chunks } of taskStreams({ kind, w: 1 }, ctx, () => undefined))
        await loader.load(table, COLUMNS[table], chunks);
    await loader.close();
    const count = async (sql: string): Promise<unknown> => (await db.query<{ n: unknown }>(sql))[0]?.n;
    expect(await count('select count(*) as n from district')).toBe(10);
    expect(await count('select count(*) as n from orders where o_carrier_id is null')).toBe(9000);
    expect(await count('select count(*) as n from new_order')).toBe(9000);
    expect(
      await count("select count(*) as n from order_line where ol_delivery_d = '2026-01-02 03:04:05.678'"),
    ).toBeGreaterThan(100_000);
    expect(await count('select typeof(w_ytd) as n from warehouse')).toBe('integer');
    expect(await count('select w_ytd as n from warehouse')).toBe(300000);
    // The loader's closing checkpoint moved the WAL into the file and truncated it.
    expect(statSync(`${dir}/load.db-wal`).size).toBe(0);
    await db.close();
  });

  it('rolls back what it inserted when a chunk is malformed', async () => {
    const url = `sqlite:${dir}/bad.db`;
    const db = await sqliteDialect.connect(url, { max: 1 });
    await db.query('create table t (a integer, b text)');
    const loader = await sqliteDialect.openBulkLoader(url);
    const chunks = [Buffer.from('1\tx\n2\ty\n'), Buffer.from('3\tz\textra\n')];
    await expect(loader.load('t', ['a', 'b'], chunks)).rejects.toThrow(/has 3 fields, expected 2/);
    await loader.close();
    expect(await db.query('select count(*) as n from t')).toEqual([{ n: 0 }]);
    await db.close();
  });
});

describe('sqlite transactions', () => {
  it('formats timestamps as the loader does, in local time', () => {
    expect(localTimestamp(new Date(2026, 0, 2, 3, 4, 5, 6))).toBe('2026-01-02 03:04:05.006');
    expect(localTimestamp(new Date(2026, 10, 30, 23, 59, 58, 999))).toBe('2026-11-30 23:59:58.999');
  });

  it('prepares every statement against the schema', async () => {
    const url = `sqlite:${dir}/schema.db`;
    const db = await sqliteDialect.connect(url, { max: 1 });
    for (const table of [
      'warehouse',
      'district',
      'customer',
      'history',
      'orders',
      'new_order',
      'order_line',
      'stock',
      'item',
    ] as const)
      await db.query(createTableStatement(sqliteDdl, table));
    const opened = openSqlite(url, { create: false });
    expect(() => new SqliteTransactions(opened.db)).not.toThrow();
    closeSqlite(opened);
    await db.close();
  });
});

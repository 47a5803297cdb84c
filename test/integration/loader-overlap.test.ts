/**
 * The loader's overlapped keys with a user workload that says which tables its tasks write
 * (test/fixtures/two-tables-workload.ts), through the CLI on the embedded PostgreSQL: the load
 * completes with both tables' keys, indexes and statistics, and a task writing a table it did not
 * name fails the load (a table's keys may already be built when its rows would arrive).
 */
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, REPO_ROOT, runCli, startTempServer, type TempServer } from './helpers.js';

const TWO = path.join(REPO_ROOT, 'test', 'fixtures', 'two-tables-workload.ts');

describe('the loader builds a table’s keys once the tasks it names are done', () => {
  let pg: TempServer;
  let dir: string;
  let sql: postgres.Sql;

  beforeAll(async () => {
    pg = await startTempServer();
    dir = await makeTempDir();
    sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await pg?.stop();
    await removeDir(dir);
  });

  it('loads both tables with their keys, indexes and statistics, and records the load complete', async () => {
    const load = await runCli(dir, ['load', '--db', pg.url, '--workload', TWO, '--rows', '30000'], 120_000);
    expect(load.code, load.stderr).toBe(0);
    for (const t of ['ta', 'tb']) {
      const [row] = await sql.unsafe<{ n: number }[]>(`select count(*)::int as n from ${t}`);
      expect(row?.n, t).toBe(30_000);
    }
    const indexes = await sql<{ indexname: string }[]>`
      select indexname from pg_indexes where tablename in ('ta', 'tb') order by indexname`;
    expect(indexes.map((r) => r.indexname)).toEqual(['ta_pkey', 'ta_v', 'tb_pkey', 'tb_v']);
    const stats = await sql<{ tablename: string }[]>`
      select distinct tablename from pg_stats where tablename in ('ta', 'tb') order by tablename`;
    expect(stats.map((r) => r.tablename)).toEqual(['ta', 'tb']);
    const [meta] = await sql<
      { status: string }[]
    >`select meta_value::json->>'status' as status from txbench_meta where meta_key = 'load:two'`;
    expect(meta?.status).toBe('complete');
  });

  it('fails the load, with one line naming the table, when a task writes a table it did not name', async () => {
    const load = await runCli(
      dir,
      ['load', '--db', pg.url, '--workload', TWO, '--rows', '30000', '--lie', '--replace'],
      120_000,
    );
    expect(load.code).toBe(3);
    expect(load.stderr).toMatch(/rows for ta, which its tablesOf does not name/);
    expect(load.stderr).not.toMatch(/\n\s+at /);
  });
});

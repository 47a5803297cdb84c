/**
 * txbench_meta on every dialect: the transaction helper commits and rolls back on one
 * connection; the load record is written in one transaction (a failure between the delete and the
 * insert keeps the old record); a missing or malformed record reads as "corrupt" with a one-line
 * message that says to `txbench load --replace`, and the CLI refuses to run on it (exit 2).
 * TXBENCH_DIALECTS=postgres,mysql,sqlite chooses the dialects (all by default).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Dialect } from '../../src/dialects/dialect.js';
import type * as MetaModule from '../../src/workloads/tpcc/meta.js';
import type { LoadMeta } from '../../src/workloads/tpcc/meta.js';
import type * as TpccDialectModule from '../../src/workloads/tpcc/tpcc-dialect.js';
import { makeTempDir, removeDir, runCli } from './helpers.js';
import { dialectsUnderTest, startTestTarget, type DialectName, type TestTarget } from './targets/index.js';

const DIST_META = new URL('../../dist/workloads/tpcc/meta.js', import.meta.url).href;
const DIST_TPCC_DIALECT = new URL('../../dist/workloads/tpcc/tpcc-dialect.js', import.meta.url).href;

const META: LoadMeta = {
  status: 'complete',
  warehouses: 3,
  seed: 99,
  loadConstants: { cLast: 17, cId: 259, olIId: 7911 },
  startedAt: '2024-05-01T12:00:00.000Z',
  completedAt: '2024-05-01T12:01:00.000Z',
  loadSeconds: 60,
};

/** A trigger that makes every insert into txbench_meta fail: the failure between delete and insert. */
const FAIL_INSERTS: Record<DialectName, { create: string[]; drop: string[] }> = {
  postgres: {
    create: [
      `create function txbench_test_fail() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`,
      'create trigger txbench_test_fail before insert on txbench_meta for each row execute function txbench_test_fail()',
    ],
    drop: ['drop trigger txbench_test_fail on txbench_meta', 'drop function txbench_test_fail()'],
  },
  mysql: {
    create: [
      "create trigger txbench_test_fail before insert on txbench_meta for each row signal sqlstate '45000' set message_text = 'injected failure'",
    ],
    drop: ['drop trigger txbench_test_fail'],
  },
  sqlite: {
    create: [
      "create trigger txbench_test_fail before insert on txbench_meta begin select raise(abort, 'injected failure'); end",
    ],
    drop: ['drop trigger txbench_test_fail'],
  },
};

let cwd: string;

beforeAll(async () => {
  cwd = await makeTempDir('txbench-meta-cwd-');
});

afterAll(async () => {
  await removeDir(cwd);
});

for (const name of dialectsUnderTest()) {
  describe(`txbench_meta on ${name}`, () => {
    let target: TestTarget;
    let dialect: Dialect;
    let db: Db;
    let meta: typeof MetaModule;

    async function storedValue(): Promise<string | undefined> {
      const rows = await db.query<{ meta_value: string }>(
        `select meta_value from txbench_meta where meta_key = ${dialect.sql.param(1)}`,
        ['load'],
      );
      return rows[0]?.meta_value;
    }

    async function setStored(value: string | null): Promise<void> {
      await db.query(`update txbench_meta set meta_value = ${dialect.sql.param(1)} where meta_key = 'load'`, [
        value,
      ]);
    }

    beforeAll(async () => {
      target = await startTestTarget(name);
      meta = (await import(DIST_META)) as typeof MetaModule;
      const { tpccDialectFor } = (await import(DIST_TPCC_DIALECT)) as typeof TpccDialectModule;
      dialect = (await tpccDialectFor(target.url)).dialect;
      db = await dialect.connect(target.url, { max: 2 });
      for (const statement of ['drop table if exists txbench_meta', 'drop table if exists txbench_test_tx'])
        await db.query(statement);
      await db.query('create table txbench_test_tx (k int not null primary key)');
    });

    afterAll(async () => {
      await db?.close();
      await target?.stop();
    });

    it('transaction: commits what the work did when it resolves', async () => {
      const result = await db.transaction(async (tx) => {
        await tx.query('insert into txbench_test_tx (k) values (1)');
        await tx.transaction((inner) => inner.query('insert into txbench_test_tx (k) values (2)'));
        return 'done';
      });
      expect(result).toBe('done');
      expect(
        (await db.query<{ k: unknown }>('select k from txbench_test_tx order by k')).map((r) => Number(r.k)),
      ).toEqual([1, 2]);
    });

    it('transaction: rolls back everything when the work throws, and passes the error on', async () => {
      await expect(
        db.transaction(async (tx) => {
          await tx.query('delete from txbench_test_tx');
          await tx.query('insert into txbench_test_tx (k) values (3)');
          throw new Error('work failed');
        }),
      ).rejects.toThrow('work failed');
      expect(
        (await db.query<{ k: unknown }>('select k from txbench_test_tx order by k')).map((r) => Number(r.k)),
      ).toEqual([1, 2]);
    });

    it('writeMeta stores a record schemaState reads back as loaded', async () => {
      await meta.writeMeta(dialect, db, { ...META, status: 'loading' });
      await meta.writeMeta(dialect, db, META);
      expect(await meta.schemaState(dialect, db)).toEqual({ kind: 'loaded', meta: META });
    });

    it('a failure between the delete and the insert leaves the old record', async () => {
      for (const statement of FAIL_INSERTS[name].create) await db.query(statement);
      try {
        await expect(meta.writeMeta(dialect, db, { ...META, warehouses: 5 })).rejects.toThrow(
          /injected failure/,
        );
      } finally {
        for (const statement of FAIL_INSERTS[name].drop) await db.query(statement);
      }
      expect(JSON.parse((await storedValue())!)).toEqual(META);
      expect(await meta.schemaState(dialect, db)).toEqual({ kind: 'loaded', meta: META });
    });

    it.each([
      ['not JSON', '{"status":"complete","wareh', /is not valid JSON/],
      ['warehouses as text', JSON.stringify({ ...META, warehouses: 'three' }), /has a bad warehouses/],
      ['no load constants', JSON.stringify({ ...META, loadConstants: undefined }), /has a bad loadConstants/],
      ['NULL', null, /has an empty value/],
    ])('a record that is %s reads as corrupt, with the way out', async (_, value, problem) => {
      await meta.writeMeta(dialect, db, META);
      await setStored(value);
      const state = await meta.schemaState(dialect, db);
      expect(state.kind).toBe('corrupt');
      if (state.kind !== 'corrupt') return;
      expect(state.message).toMatch(problem);
      expect(state.message).toContain('txbench load --replace');
      expect(state.message).not.toContain('\n');
    });

    it('a metadata table without the load record reads as corrupt beside TPC-C tables', async () => {
      await db.query("delete from txbench_meta where meta_key = 'load'");
      await db.query('create table warehouse (w_id int not null primary key)');
      try {
        const state = await meta.schemaState(dialect, db);
        expect(state).toMatchObject({ kind: 'corrupt' });
        if (state.kind === 'corrupt') expect(state.message).toMatch(/holds no load record/);
      } finally {
        await db.query('drop table warehouse');
      }
    });

    it("a metadata table holding only another workload's record, without TPC-C tables, reads as empty", async () => {
      await db.query("delete from txbench_meta where meta_key = 'load'");
      expect(await meta.schemaState(dialect, db)).toEqual({ kind: 'empty' });
    });

    it('`txbench run` on a corrupt record exits 2 with that one line', async () => {
      await meta.writeMeta(dialect, db, META);
      await setStored('{"status":"complete","wareh');
      const r = await runCli(cwd, ['run', '--db', target.url, '--duration', '1s'], 30_000);
      const context = JSON.stringify(r);
      expect(r.code, context).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines, context).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^txbench run: txbench's load record \(table txbench_meta\) is not valid JSON.*txbench load --replace/,
      );
      expect(r.stdout).toBe('');
    });
  });
}

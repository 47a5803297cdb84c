/**
 * Each dialect's own I/O counters (Dialect.ioCounterReader) against real servers: the embedded
 * PostgreSQL 17, the distribution's PostgreSQL 15 (whose statistics views are laid out the old
 * way), the test MariaDB and a SQLite file. Every documented counter is there and a number, none
 * goes backwards, and the ones some writes must move do move. The servers flush their statistics
 * lazily (PostgreSQL about once a second, InnoDB's page cleaner in the background), so the test
 * reads again until they have moved or a deadline passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup } from '../../dist/bench/cleanup.js';
import { startCluster, type PgCluster } from '../../dist/bench/pg-cluster.js';
import type { Db, Dialect } from '../../dist/dialects/dialect.js';
import { mysqlDialect } from '../../dist/dialects/mysql/dialect.js';
import { postgresDialect } from '../../dist/dialects/postgres/dialect.js';
import { sqliteDialect } from '../../dist/dialects/sqlite/dialect.js';
import { startTestTarget, type TestTarget } from './targets/index.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

const POSTGRES_COUNTERS = [
  'walBytes',
  'blocksRead',
  'blocksHit',
  'checkpoints',
  'checkpointWriteMs',
  'checkpointSyncMs',
  'buffersCheckpoint',
  'buffersBgwriter',
  'buffersBackend',
];
const MYSQL_COUNTERS = [
  'dataReads',
  'dataWrites',
  'dataReadBytes',
  'dataWrittenBytes',
  'logWrittenBytes',
  'bufferPoolReads',
  'bufferPoolReadRequests',
];

type Counters = Record<string, number>;

function expectCounters(counters: Counters, names: readonly string[]): void {
  expect(Object.keys(counters).sort()).toEqual([...names].sort());
  for (const [name, value] of Object.entries(counters)) {
    expect(Number.isFinite(value), name).toBe(true);
    expect(value, name).toBeGreaterThanOrEqual(0);
  }
}

/** Reads the counters until every one in `mustGrow` is above `before`, or 30 s have passed. */
async function countersAfter(
  dialect: Dialect,
  db: Db,
  before: Counters,
  mustGrow: readonly string[],
): Promise<Counters> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const after = await dialect.ioCounterReader!(db)();
    if (mustGrow.every((n) => (after[n] ?? 0) > (before[n] ?? 0)) || Date.now() > deadline) return after;
    await new Promise((r) => setTimeout(r, 250));
  }
}

function expectGrowth(before: Counters, after: Counters, mustGrow: readonly string[]): void {
  for (const name of Object.keys(before)) expect(after[name], name).toBeGreaterThanOrEqual(before[name]!);
  for (const name of mustGrow) expect(after[name], name).toBeGreaterThan(before[name]!);
}

/**
 * A table bigger than the 16 MB ring a CREATE TABLE AS writes through, so the backend writes
 * buffers itself; then a checkpoint, which writes the rest.
 */
async function postgresWrites(db: Db): Promise<void> {
  await db.query('drop table if exists io_counters_probe');
  await db.query(
    "create table io_counters_probe as select g as id, repeat('x', 100) as pad from generate_series(1, 200000) g",
  );
  await db.query('checkpoint');
  await db.query('select count(*) from io_counters_probe');
  await db.query('select pg_stat_force_next_flush()');
}

const POSTGRES_MUST_GROW = ['walBytes', 'blocksHit', 'checkpoints', 'buffersCheckpoint', 'buffersBackend'];

describe('PostgreSQL I/O counters', () => {
  describe('embedded PostgreSQL 17', () => {
    let target: TestTarget;
    let db: Db;

    beforeAll(async () => {
      target = await startTestTarget('postgres');
      // One connection: the writes and the statistics flush that follows them share a backend.
      db = await postgresDialect.connect(target.url, { max: 1 });
    });

    afterAll(async () => {
      await db?.close();
      await target?.stop();
    });

    it('reads WAL bytes, blocks, checkpoints and buffer writes from pg_stat_checkpointer and pg_stat_io, and they grow with writes', async () => {
      const [version] = await db.query<{ v: string }>(`select current_setting('server_version_num') as v`);
      expect(Number(version?.v)).toBeGreaterThanOrEqual(170000);
      const before = await postgresDialect.ioCounterReader!(db)();
      expectCounters(before, POSTGRES_COUNTERS);
      await postgresWrites(db);
      const after = await countersAfter(postgresDialect, db, before, POSTGRES_MUST_GROW);
      expectCounters(after, POSTGRES_COUNTERS);
      expectGrowth(before, after, POSTGRES_MUST_GROW);
    });
  });

  describe('PostgreSQL 15', () => {
    let cluster: PgCluster;
    let db: Db;

    beforeAll(async () => {
      cluster = await startCluster(new Cleanup());
      db = await postgresDialect.connect(cluster.url('postgres'), { max: 1 });
    }, 120_000);

    afterAll(async () => {
      await db?.close();
      await cluster?.stop();
    });

    it('reads the same counters from pg_stat_bgwriter, and they grow with writes', async () => {
      const [version] = await db.query<{ v: string }>(`select current_setting('server_version_num') as v`);
      expect(Number(version?.v)).toBeGreaterThanOrEqual(150000);
      expect(Number(version?.v)).toBeLessThan(170000);
      const before = await postgresDialect.ioCounterReader!(db)();
      expectCounters(before, POSTGRES_COUNTERS);
      await postgresWrites(db);
      const after = await countersAfter(postgresDialect, db, before, POSTGRES_MUST_GROW);
      expectCounters(after, POSTGRES_COUNTERS);
      expectGrowth(before, after, POSTGRES_MUST_GROW);
    });
  });
});

describe('MariaDB I/O counters', () => {
  let server: MariaDbServer;
  let db: Db;

  beforeAll(async () => {
    server = await startMariaDb();
    // As root: FLUSH TABLES … FOR EXPORT needs more than the test user's grants.
    db = await mysqlDialect.connect(server.rootUrl, { max: 1 });
  }, 120_000);

  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  it('reads the InnoDB status counters, and they grow with writes', async () => {
    const before = await mysqlDialect.ioCounterReader!(db)();
    expectCounters(before, MYSQL_COUNTERS);
    await db.query('create table io_counters_probe (id int primary key, pad varchar(200))');
    for (let batch = 0; batch < 20; batch++) {
      const rows = Array.from({ length: 500 }, (_, i) => `(${batch * 500 + i}, repeat('x', 200))`);
      await db.query(`insert into io_counters_probe values ${rows.join(', ')}`);
    }
    // Commits write only the redo log; data pages wait for the page cleaner unless flushed now.
    await db.query('flush tables io_counters_probe for export');
    await db.query('unlock tables');
    const mustGrow = ['dataWrites', 'dataWrittenBytes', 'logWrittenBytes', 'bufferPoolReadRequests'];
    const after = await countersAfter(mysqlDialect, db, before, mustGrow);
    expectCounters(after, MYSQL_COUNTERS);
    expectGrowth(before, after, mustGrow);
  });
});

describe('SQLite I/O counters', () => {
  let target: TestTarget;
  let db: Db;

  beforeAll(async () => {
    target = await startTestTarget('sqlite');
    db = await sqliteDialect.connect(target.url, { max: 1 });
  });

  afterAll(async () => {
    await db?.close();
    await target?.stop();
  });

  it('reads the WAL file size and the checkpoints counted in its header, and they grow with writes', async () => {
    await db.query('create table io_counters_probe (id integer primary key, pad blob)');
    const before = await sqliteDialect.ioCounterReader!(db)();
    expectCounters(before, ['walBytes', 'checkpoints']);
    // About 3000 pages in autocommitted inserts: past the 1000-page automatic checkpoint twice.
    for (let i = 0; i < 1500; i++)
      await db.query('insert into io_counters_probe (pad) values (randomblob(4000))');
    const after = await sqliteDialect.ioCounterReader!(db)();
    expectCounters(after, ['walBytes', 'checkpoints']);
    expectGrowth(before, after, ['walBytes', 'checkpoints']);
    expect(after.checkpoints).toBeGreaterThanOrEqual(2);
  });
});

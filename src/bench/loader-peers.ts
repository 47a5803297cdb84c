/**
 * Section 4 for MariaDB and SQLite: txbench's whole load of N warehouses next to each database's
 * own raw bulk path for the same rows, then the same keys, indexes and ANALYZE. MariaDB: the rows
 * exported to files, then server-side LOAD DATA INFILE in as many sessions as txbench uses
 * streams. SQLite: one transaction of prepared single-row INSERTs (better-sqlite3), the rows read
 * page by page from txbench's own load (the reading is not timed).
 */
import type { Cleanup } from './cleanup.js';
import { inLanes } from './lanes.js';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Db } from '../dialects/dialect.js';
import { mysqlDialect } from '../dialects/mysql/dialect.js';
import { closeSqlite, openSqlite } from '../dialects/sqlite/connect.js';
import { sqliteDialect } from '../dialects/sqlite/dialect.js';
import { loadTpcc, type LoadResult } from '../workloads/tpcc/loader.js';
import { afterDataStatements, COLUMNS, createTableStatement, TABLES } from '../workloads/tpcc/schema.js';
import { startMariaDb } from './mariadb-server.js';

export interface PeerLoad {
  database: string;
  /** How the raw rows went in, in a few words. */
  rawPath: string;
  txbench: { seconds: number; phaseSeconds: LoadResult['phaseSeconds']; rows: number };
  raw: { loadS: number; keysS: number; analyzeS: number; bytes?: number };
  /** txbench's whole load ÷ the raw bulk path alone, and ÷ raw bulk + keys + ANALYZE. */
  ratioToRaw: number;
  ratioToRawKeysAnalyze: number;
}

/** Column holding the warehouse number, for tables split in halves (as the PostgreSQL part). */
const SPLIT_BY: Partial<Record<string, string>> = {
  customer: 'c_w_id',
  history: 'h_w_id',
  orders: 'o_w_id',
  new_order: 'no_w_id',
  order_line: 'ol_w_id',
  stock: 's_w_id',
};

function peer(database: string, rawPath: string, load: LoadResult, raw: PeerLoad['raw']): PeerLoad {
  return {
    database,
    rawPath,
    txbench: { seconds: load.seconds, phaseSeconds: load.phaseSeconds, rows: load.rows },
    raw,
    ratioToRaw: load.seconds / raw.loadS,
    ratioToRawKeysAnalyze: load.seconds / (raw.loadS + raw.keysS + raw.analyzeS),
  };
}

export async function mariadbLoad(
  cleanup: Cleanup,
  warehouses: number,
  streams: number,
  progress: (line: string) => void,
): Promise<PeerLoad> {
  const w = warehouses;
  progress('MariaDB: starting mariadbd');
  const server = await startMariaDb(cleanup);
  try {
    const url = await server.createDatabase(`tpcc${w}`);
    progress(`MariaDB ${server.version}: txbench load, ${w} warehouses`);
    const load = await loadTpcc(url, { warehouses: w, jobs: streams });

    progress('MariaDB: exporting the rows to files (untimed)');
    const half = Math.ceil(w / 2);
    const parts = TABLES.flatMap((table) => {
      const col = SPLIT_BY[table];
      return col === undefined || w < 2
        ? [{ table, file: path.join(server.fileDir, table), where: 'true', bytes: 0 }]
        : [
            { table, file: path.join(server.fileDir, `${table}.1`), where: `${col} <= ${half}`, bytes: 0 },
            { table, file: path.join(server.fileDir, `${table}.2`), where: `${col} > ${half}`, bytes: 0 },
          ];
    });
    await onDb(url, streams, parts, (db, p) =>
      db.query(
        `select ${COLUMNS[p.table].join(', ')} from ${p.table} where ${p.where} into outfile '${p.file}' character set utf8mb4`,
      ),
    );
    for (const p of parts) p.bytes = (await stat(p.file)).size;
    parts.sort((a, b) => b.bytes - a.bytes);

    const rawUrl = await server.createDatabase('rawload');
    // MariaDB keeps its primary keys in CREATE TABLE (InnoDB clusters rows by them), as txbench's load does.
    await onDb(rawUrl, 1, TABLES, (db, table) => db.query(createTableStatement(mysqlDialect.ddl, table)));
    progress(`MariaDB: raw LOAD DATA INFILE in ${streams} sessions`);
    const t0 = performance.now();
    await onDb(rawUrl, streams, parts, (db, p) =>
      db.query(
        `load data infile '${p.file}' into table ${p.table} character set utf8mb4 (${COLUMNS[p.table].join(', ')})`,
      ),
    );
    const t1 = performance.now();
    progress('MariaDB: secondary indexes, then ANALYZE TABLE, on the raw-loaded tables');
    await onDb(rawUrl, streams, afterDataStatements(mysqlDialect.ddl), async (db, g) => {
      for (const statement of g.statements) await db.query(statement);
    });
    const t2 = performance.now();
    await onDb(rawUrl, streams, TABLES, async (db, table) => {
      for (const statement of mysqlDialect.analyze(table)) await db.query(statement);
    });
    const t3 = performance.now();
    return peer(`MariaDB ${server.version}`, `LOAD DATA INFILE from ${parts.length} files`, load, {
      loadS: (t1 - t0) / 1000,
      keysS: (t2 - t1) / 1000,
      analyzeS: (t3 - t2) / 1000,
      bytes: parts.reduce((a, p) => a + p.bytes, 0),
    });
  } finally {
    await server.stop();
  }
}

/** Rows read from txbench's load per page, then inserted (the insert is what is timed). */
const PAGE_ROWS = 20_000;

export async function sqliteLoad(
  cleanup: Cleanup,
  warehouses: number,
  progress: (line: string) => void,
): Promise<PeerLoad> {
  const dir = await mkdtemp(path.join(tmpdir(), 'txbench-bench-sqlite-'));
  const removeDir = cleanup.onCleanup('temporary directory', () => rm(dir, { recursive: true, force: true }));
  try {
    const url = `sqlite:${path.join(dir, 'tpcc.db')}`;
    progress(`SQLite: txbench load, ${warehouses} warehouses`);
    const load = await loadTpcc(url, { warehouses });
    const source = openSqlite(url, { create: false });
    // As txbench's bulk loader opens it: WAL, synchronous off (a cut-short load is redone).
    const target = openSqlite(`sqlite:${path.join(dir, 'raw.db')}`, { create: true, synchronous: 'off' });
    try {
      for (const table of TABLES) target.db.exec(createTableStatement(sqliteDialect.ddl, table));
      progress('SQLite: raw single-transaction prepared INSERT');
      let loadMs = 0;
      target.db.exec('begin immediate');
      for (const table of TABLES) {
        const columns = COLUMNS[table];
        const read = source.db.prepare(
          `select rowid as r_, ${columns.join(', ')} from ${table} where rowid > ? order by rowid limit ${PAGE_ROWS}`,
        );
        const insert = target.db.prepare(
          `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
        );
        let after = 0;
        for (;;) {
          const page = read.all([after]);
          if (page.length === 0) break;
          after = Number(page[page.length - 1]!.r_);
          const rows = page.map((row) => columns.map((c) => row[c]));
          const t = performance.now();
          for (const values of rows) insert.run(values);
          loadMs += performance.now() - t;
        }
      }
      const c = performance.now();
      target.db.exec('commit');
      loadMs += performance.now() - c;
      progress('SQLite: indexes, then ANALYZE, on the raw-loaded tables');
      const t1 = performance.now();
      for (const g of afterDataStatements(sqliteDialect.ddl))
        for (const statement of g.statements) target.db.exec(statement);
      const t2 = performance.now();
      for (const table of TABLES)
        for (const statement of sqliteDialect.analyze(table)) target.db.exec(statement);
      const t3 = performance.now();
      return peer('SQLite', 'one transaction of prepared INSERTs', load, {
        loadS: loadMs / 1000,
        keysS: (t2 - t1) / 1000,
        analyzeS: (t3 - t2) / 1000,
      });
    } finally {
      closeSqlite(source);
      closeSqlite(target);
    }
  } finally {
    await removeDir();
  }
}

/** Runs `fn` over `items` on `jobs` connections of a txbench Db at once, in order of the list. */
async function onDb<T>(
  url: string,
  jobs: number,
  items: readonly T[],
  fn: (db: Db, item: T) => Promise<unknown>,
): Promise<void> {
  const db = await mysqlDialect.connect(url, { max: jobs });
  try {
    await inLanes(jobs, items, (item) => fn(db, item));
  } finally {
    await db.close();
  }
}

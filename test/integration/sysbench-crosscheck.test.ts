/**
 * Cross-checks against real sysbench 1.0.20 (Debian's `sysbench`): txbench runs on tables that
 * `sysbench oltp_read_write prepare` created, sysbench runs on tables txbench loaded, and the
 * statements each tool issues per transaction, as the server counts them, are the same.
 *
 * - PostgreSQL (the embedded server, restarted with pg_stat_statements): calls per statement text
 *   (tables sbtest1..N folded into one) per transaction, for oltp_read_write with the defaults and
 *   oltp_write_only with other counts.
 * - MariaDB: SHOW GLOBAL STATUS deltas of Com_select, Com_update, Com_insert, Com_delete, Com_begin
 *   and Com_commit per Com_commit. Writes, BEGIN and COMMIT come only from the transactions and
 *   must be equal. A tool's own start-up SELECTs (server version, what is loaded) land in
 *   Com_select too, a fixed few per run: the reads are sysbench's per transaction when what is
 *   left over is fewer than the transactions (one read more per transaction would leave more).
 *
 * One thread (one terminal) each, no think time: every transaction completes, none collide.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type EmbeddedServer } from '../../dist/targets/embedded.js';
import { makeTempDir, removeDir, runCli, withDatabase } from './helpers.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

const run = promisify(execFile);

const TABLES = 2;
const TABLE_SIZE = 1000;
/**
 * Each tool's run, twelve in all (3 s before). What is compared is per transaction, exact whatever
 * the length; the length only has to give enough transactions (MariaDB's check asks more than 20).
 */
const SECONDS = 2;

type PerTx = Record<string, number>;

/** sysbench's own connection flags for a URL, in its driver's spelling. */
function sysbenchFlags(url: string): string[] {
  const u = new URL(url);
  const driver = u.protocol.startsWith('postgres') ? 'pgsql' : 'mysql';
  return [
    `--db-driver=${driver}`,
    `--${driver}-host=${u.hostname}`,
    `--${driver}-port=${u.port}`,
    `--${driver}-user=${decodeURIComponent(u.username)}`,
    `--${driver}-password=${decodeURIComponent(u.password)}`,
    `--${driver}-db=${u.pathname.slice(1)}`,
  ];
}

/** `name=value` options as each tool spells them: sysbench `--table_size=N`, txbench `--table-size N`. */
type Options = Record<string, string>;

/** Runs sysbench; resolves with the transactions it reports ("transactions: N"), 0 for prepare. */
async function sysbench(url: string, script: string, command: string, options: Options): Promise<number> {
  const args = [
    script,
    ...sysbenchFlags(url),
    `--tables=${TABLES}`,
    `--table_size=${TABLE_SIZE}`,
    '--threads=1',
    `--time=${SECONDS}`,
    ...Object.entries(options).map(([k, v]) => `--${k.replaceAll('-', '_')}=${v}`),
    command,
  ];
  const { stdout } = await run('sysbench', args, { timeout: 120_000 });
  return Number(/transactions:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
}

async function txbenchRun(dir: string, url: string, script: string, options: Options): Promise<undefined> {
  const result = await runCli(
    dir,
    [
      'run',
      '--db',
      url,
      '--workload',
      'sysbench',
      '--script',
      script,
      '--terminals',
      '1',
      '--warmup',
      '0s',
      '--duration',
      `${SECONDS}s`,
      '--no-monitor',
      ...Object.entries(options).flatMap(([k, v]) => [`--${k}`, v]),
    ],
    120_000,
  );
  expect(result.code, result.stderr).toBe(0);
  return undefined;
}

const CASES: { script: string; options: Options; expected: Record<string, number> }[] = [
  {
    script: 'oltp_read_write',
    options: {},
    expected: {
      BEGIN: 1,
      'SELECT C FROM SBTEST WHERE ID=$1': 10,
      'SELECT C FROM SBTEST WHERE ID BETWEEN $1 AND $2': 1,
      'SELECT SUM(K) FROM SBTEST WHERE ID BETWEEN $1 AND $2': 1,
      'SELECT C FROM SBTEST WHERE ID BETWEEN $1 AND $2 ORDER BY C': 1,
      'SELECT DISTINCT C FROM SBTEST WHERE ID BETWEEN $1 AND $2 ORDER BY C': 1,
      'UPDATE SBTEST SET K=K+$2 WHERE ID=$1': 1,
      'UPDATE SBTEST SET C=$1 WHERE ID=$2': 1,
      'DELETE FROM SBTEST WHERE ID=$1': 1,
      'INSERT INTO SBTEST (ID, K, C, PAD) VALUES ($1, $2, $3, $4)': 1,
      COMMIT: 1,
    },
  },
  {
    script: 'oltp_write_only',
    options: { 'index-updates': '2', 'non-index-updates': '3', 'delete-inserts': '2' },
    expected: {
      BEGIN: 1,
      'UPDATE SBTEST SET K=K+$2 WHERE ID=$1': 2,
      'UPDATE SBTEST SET C=$1 WHERE ID=$2': 3,
      'DELETE FROM SBTEST WHERE ID=$1': 2,
      'INSERT INTO SBTEST (ID, K, C, PAD) VALUES ($1, $2, $3, $4)': 2,
      COMMIT: 1,
    },
  },
];

describe('sysbench cross-check on PostgreSQL (pg_stat_statements)', () => {
  let dir: string;
  let server: EmbeddedServer | undefined;
  let prepared: string;
  let loaded: string;

  beforeAll(async () => {
    dir = await makeTempDir();
    const dataDir = path.join(dir, 'pg');
    server = await startEmbedded(dataDir, { create: true });
    const admin = postgres(server.url, { max: 1, onnotice: () => undefined });
    try {
      await admin.unsafe(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
      await admin.unsafe('create database sb_prepared');
      await admin.unsafe('create database sb_loaded');
    } finally {
      await admin.end({ timeout: 5 });
    }
    // shared_preload_libraries takes a restart.
    await server.stop();
    server = await startEmbedded(dataDir, { create: false });
    prepared = withDatabase(server.url, 'sb_prepared');
    loaded = withDatabase(server.url, 'sb_loaded');
    await withPg(server.url, (sql) => sql.unsafe('create extension pg_stat_statements'));
    await sysbench(prepared, 'oltp_read_write', 'prepare', {});
    const load = await runCli(
      dir,
      [
        'load',
        '--db',
        loaded,
        '--workload',
        'sysbench',
        '--tables',
        `${TABLES}`,
        '--table-size',
        `${TABLE_SIZE}`,
      ],
      120_000,
    );
    expect(load.code, load.stderr).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await removeDir(dir);
  });

  async function withPg<T>(url: string, f: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      return await f(sql);
    } finally {
      await sql.end({ timeout: 5 });
    }
  }

  /**
   * Calls per transaction of each statement the run issued on `database`'s sbtest tables, and
   * BEGIN/COMMIT. Transactions: what sysbench reports, or for txbench the COMMITs the server
   * counted. pg_stat_statements counts sysbench's BEGIN and COMMIT, which it runs as prepared
   * statements, once per connection whatever the executions, so a sysbench run's map leaves them out.
   */
  async function measure(database: string, go: () => Promise<number | undefined>): Promise<PerTx> {
    await withPg(server!.url, (sql) => sql.unsafe('select pg_stat_statements_reset()'));
    const reported = await go();
    const rows = await withPg(
      server!.url,
      (sql) => sql<{ query: string; calls: string }[]>`
        select s.query, s.calls from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = ${database}`,
    );
    const calls: Record<string, number> = {};
    for (const r of rows) {
      const text = r.query
        .toUpperCase()
        .replace(/SBTEST\d+/g, 'SBTEST')
        .trim();
      const ours = /^(BEGIN|COMMIT)$/.test(text) || /^(SELECT|UPDATE|DELETE|INSERT)\b.*\bSBTEST\b/.test(text);
      // txbench reads a foreign table's size once (`select count(*) ... from sbtest1`): not a transaction's.
      if (!ours || /COUNT\(\*\)/.test(text)) continue;
      calls[text] = (calls[text] ?? 0) + Number(r.calls);
    }
    if (reported !== undefined) {
      delete calls.BEGIN;
      delete calls.COMMIT;
    }
    const transactions = reported ?? calls.COMMIT ?? 0;
    expect(transactions).toBeGreaterThan(0);
    return Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, v / transactions]));
  }

  for (const c of CASES) {
    it(`${c.script} ${JSON.stringify(c.options)}: txbench on sysbench's tables, sysbench on txbench's`, async () => {
      const db = (url: string): string => new URL(url).pathname.slice(1);
      const sysbenchOnPrepared = await measure(db(prepared), () =>
        sysbench(prepared, c.script, 'run', c.options),
      );
      const txbenchOnPrepared = await measure(db(prepared), () =>
        txbenchRun(dir, prepared, c.script, c.options),
      );
      const sysbenchOnLoaded = await measure(db(loaded), () => sysbench(loaded, c.script, 'run', c.options));
      const txbenchOnLoaded = await measure(db(loaded), () => txbenchRun(dir, loaded, c.script, c.options));
      const { BEGIN: _b, COMMIT: _c, ...statements } = c.expected;
      expect(sysbenchOnPrepared).toEqual(statements);
      expect(sysbenchOnLoaded).toEqual(statements);
      expect(txbenchOnPrepared).toEqual(c.expected);
      expect(txbenchOnLoaded).toEqual(c.expected);
    });
  }
});

describe('sysbench cross-check on MariaDB (Com_* counters)', () => {
  let maria: MariaDbServer;
  let dir: string;
  let prepared: string;
  let loaded: string;

  const COUNTERS = ['Com_select', 'Com_update', 'Com_insert', 'Com_delete', 'Com_begin', 'Com_commit'];

  async function status(): Promise<Record<string, number>> {
    const conn = await mysql.createConnection(maria.rootUrl);
    try {
      const [rows] = await conn.query('show global status');
      const out: Record<string, number> = {};
      for (const r of rows as { Variable_name: string; Value: string }[]) {
        if (COUNTERS.includes(r.Variable_name)) out[r.Variable_name] = Number(r.Value);
      }
      return out;
    } finally {
      await conn.end();
    }
  }

  /** Each counter's delta over `go`. */
  async function measure(go: () => Promise<unknown>): Promise<PerTx> {
    const before = await status();
    await go();
    const after = await status();
    return Object.fromEntries(COUNTERS.map((k) => [k, after[k]! - before[k]!]));
  }

  beforeAll(async () => {
    maria = await startMariaDb();
    dir = await makeTempDir();
    const conn = await mysql.createConnection(maria.rootUrl);
    try {
      await conn.query('create database sb_prepared');
      await conn.query("grant all on sb_prepared.* to 'txbench'@'%'");
    } finally {
      await conn.end();
    }
    loaded = maria.url;
    const u = new URL(maria.url);
    u.pathname = '/sb_prepared';
    prepared = u.toString();
    await sysbench(prepared, 'oltp_read_write', 'prepare', {});
    const load = await runCli(
      dir,
      [
        'load',
        '--db',
        loaded,
        '--workload',
        'sysbench',
        '--tables',
        `${TABLES}`,
        '--table-size',
        `${TABLE_SIZE}`,
      ],
      120_000,
    );
    expect(load.code, load.stderr).toBe(0);
  }, 300_000);

  afterAll(async () => {
    await maria?.stop();
    await removeDir(dir);
  });

  /** oltp_read_write's defaults per transaction: 14 reads, 2 updates, a delete, an insert, BEGIN, COMMIT. */
  function expectReadWrite(run: PerTx, tool: string): void {
    const commits = run.Com_commit!;
    expect(commits, tool).toBeGreaterThan(20);
    for (const [k, n] of [
      ['Com_update', 2],
      ['Com_insert', 1],
      ['Com_delete', 1],
      ['Com_begin', 1],
    ] as const) {
      expect(run[k]! / commits, `${tool} ${k}`).toBe(n);
    }
    const extra = run.Com_select! - 14 * commits;
    expect(extra, `${tool} Com_select beyond 14 per transaction`).toBeGreaterThanOrEqual(0);
    expect(extra, `${tool} Com_select beyond 14 per transaction`).toBeLessThan(commits);
  }

  it("oltp_read_write: txbench on sysbench's tables, sysbench on txbench's", async () => {
    const sysbenchOnPrepared = await measure(() => sysbench(prepared, 'oltp_read_write', 'run', {}));
    const txbenchOnPrepared = await measure(() => txbenchRun(dir, prepared, 'oltp_read_write', {}));
    const sysbenchOnLoaded = await measure(() => sysbench(loaded, 'oltp_read_write', 'run', {}));
    const txbenchOnLoaded = await measure(() => txbenchRun(dir, loaded, 'oltp_read_write', {}));
    expectReadWrite(sysbenchOnPrepared, 'sysbench on tables sysbench prepared');
    expectReadWrite(txbenchOnPrepared, 'txbench on tables sysbench prepared');
    expectReadWrite(sysbenchOnLoaded, 'sysbench on tables txbench loaded');
    expectReadWrite(txbenchOnLoaded, 'txbench on tables txbench loaded');
  });
});

/**
 * The bench's bare loops on real servers, as the bench starts them. Section 10's
 * (dist/bench/floor-child.js) on a PostgreSQL 15 cluster and a mariadbd: each of section 7's
 * scripts runs, a transaction is its script's statements, and the writes reach the tables.
 * Section 1's MariaDB floor (dist/bench/tpcc-floor-child.js): txbench's client-SQL batches and
 * CALLs followed to their ends, every answer counted, none an error.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runJsonChild } from '../../dist/bench/children.js';
import { Cleanup } from '../../dist/bench/cleanup.js';
import { floorSteps } from '../../dist/bench/floor-steps.js';
import type { FloorRequest, FloorResult } from '../../dist/bench/floor-types.js';
import { startCluster, type PgCluster } from '../../dist/bench/pg-cluster.js';
import { loadTables, onMariaDb } from '../../dist/bench/sysbench-tables.js';
import type { TpccFloorRequest, TpccFloorResult } from '../../dist/bench/tpcc-floor-types.js';
import { startMariaDb } from '../../dist/bench/mariadb-server.js';
import { makeTempDir, removeDir, runCli } from './helpers.js';

const FLOOR_CHILD = new URL('../../dist/bench/floor-child.js', import.meta.url);
const TPCC_FLOOR_CHILD = new URL('../../dist/bench/tpcc-floor-child.js', import.meta.url);
const SCRIPTS = ['oltp_point_select', 'oltp_read_only', 'oltp_read_write'] as const;
const TABLES = { tables: 2, tableSize: 2_000 };
const quiet = (): void => undefined;

/** One connection, so that no two delete/insert pairs can meet: a clean run has no error answer. */
const floor = (
  cleanup: Cleanup,
  base: Omit<FloorRequest, 'script' | 'connections' | 'warmupMs' | 'durationMs'>,
  script: FloorRequest['script'],
): Promise<FloorResult> =>
  runJsonChild<FloorResult>(cleanup, FLOOR_CHILD, request({ ...base, script }), 'floor loop');

const request = (r: Omit<FloorRequest, 'connections' | 'warmupMs' | 'durationMs'>): FloorRequest => ({
  ...r,
  connections: 1,
  warmupMs: 300,
  durationMs: 1_500,
});

/**
 * Each transaction is the script's statements: the window cuts at most one transaction at each
 * end, so its statements are the transactions' within one transaction's either way.
 */
function expectWhole(r: FloorResult, script: FloorRequest['script']): void {
  const steps = floorSteps(script).length;
  expect(r.errors, script).toBe(0);
  expect(r.transactions, script).toBeGreaterThan(0);
  expect(Math.abs(r.statements - r.transactions * steps), script).toBeLessThan(steps);
  expect(r.cpuS, script).toBeGreaterThan(0);
}

describe("section 10's bare loop on real servers", () => {
  const cleanup = new Cleanup();
  let cluster: PgCluster;
  let url: string;

  beforeAll(async () => {
    cluster = await startCluster(cleanup);
    url = await cluster.createDatabase('floor');
    await loadTables(url, TABLES, quiet);
  }, 120_000);

  afterAll(async () => {
    await cleanup.cleanupAll();
  }, 60_000);

  it('runs every script on PostgreSQL, and its writes reach the tables', async () => {
    const base = {
      dialect: 'postgres' as const,
      host: '127.0.0.1',
      port: cluster.port,
      user: 'postgres',
      database: 'floor',
      ...TABLES,
    };
    const results = new Map<string, FloorResult>();
    for (const script of SCRIPTS) results.set(script, await floor(cleanup, base, script));
    for (const [script, r] of results) expectWhole(r, script as FloorRequest['script']);

    const sql = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const [t] = await sql<{ ins: string; upd: string; del: string; rows: string }[]>`
        SELECT sum(n_tup_ins) AS ins, sum(n_tup_upd) AS upd, sum(n_tup_del) AS del,
               (SELECT count(*) FROM sbtest1) + (SELECT count(*) FROM sbtest2) AS rows
          FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'`;
      const readWrite = results.get('oltp_read_write')!.transactions;
      // The load's rows, then one delete/insert pair and two updates a read/write transaction.
      expect(Number(t!.ins) - TABLES.tables * TABLES.tableSize).toBeGreaterThanOrEqual(readWrite);
      expect(Number(t!.del)).toBeGreaterThanOrEqual(readWrite);
      expect(Number(t!.upd)).toBeGreaterThanOrEqual(2 * readWrite);
      // Each DELETE's row is put back by its INSERT.
      expect(Number(t!.rows)).toBe(TABLES.tables * TABLES.tableSize);
    } finally {
      await sql.end();
    }
  }, 120_000);

  it('runs every script on MariaDB', async () => {
    const outcome = await onMariaDb(cleanup, 'floor', TABLES, quiet, async (maria) => {
      const u = new URL(maria.url);
      const base = {
        dialect: 'mysql' as const,
        url: maria.url,
        host: u.hostname,
        port: Number(u.port),
        user: decodeURIComponent(u.username),
        database: 'floor',
        ...TABLES,
      };
      const results: [FloorRequest['script'], FloorResult][] = [];
      for (const script of SCRIPTS) results.push([script, await floor(cleanup, base, script)]);
      return results;
    });
    if ('error' in outcome) throw new Error(outcome.error);
    for (const [script, r] of outcome) expectWhole(r, script);
  }, 180_000);

  it("runs TPC-C's client-SQL batches and CALLs on MariaDB, every answer followed to its end", async () => {
    const dir = await makeTempDir();
    const server = await startMariaDb(cleanup);
    try {
      const url = await server.createDatabase('tpcc');
      const load = await runCli(dir, ['load', '--db', url, '--warehouses', '1'], 300_000);
      expect(load.code, load.stderr).toBe(0);
      // txbench installs its procedures on its first --procedures run.
      const run = await runCli(
        dir,
        [
          'run',
          '--db',
          url,
          '--procedures',
          '--warmup',
          '0s',
          '--duration',
          '1s',
          '--no-monitor',
          '--out',
          dir,
        ],
        120_000,
      );
      expect(run.code, run.stderr).toBe(0);
      for (const mode of ['clientSql', 'procedures'] as const) {
        const request: TpccFloorRequest = {
          url,
          warehouses: 1,
          terminals: 2,
          mode,
          warmupMs: 300,
          durationMs: 1_500,
        };
        const r = await runJsonChild<TpccFloorResult>(
          cleanup,
          TPCC_FLOOR_CHILD,
          request,
          'MariaDB TPC-C floor',
        );
        expect(r.transactions, mode).toBeGreaterThan(0);
        expect(r.errors, mode).toBe(0);
        // At least a read a round trip: a client-SQL New-Order (45% of the mix) is two.
        expect(r.reads, mode).toBeGreaterThanOrEqual(r.transactions * (mode === 'clientSql' ? 1.4 : 0.9));
      }
    } finally {
      await server.stop();
      await removeDir(dir);
    }
  }, 300_000);
});

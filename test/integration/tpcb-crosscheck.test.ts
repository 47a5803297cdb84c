/**
 * Cross-check against real pgbench (Debian's postgresql-client): on one database that `pgbench -i`
 * initialized, `pgbench -b tpcb-like` and `txbench run --workload tpcb` change the same tables in
 * the same proportions: per transaction (one pgbench_history row each), one updated row in each of
 * pgbench_accounts, pgbench_tellers and pgbench_branches, as the server's table statistics count.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli, startTempServer, withDatabase, type TempServer } from './helpers.js';

const run = promisify(execFile);

const TABLES = ['pgbench_accounts', 'pgbench_tellers', 'pgbench_branches', 'pgbench_history'] as const;

type Stats = Record<string, { ins: number; upd: number }>;

describe('tpcb against pgbench -b tpcb-like', () => {
  let pg: TempServer;
  let dir: string;
  let url: string;
  let sql: postgres.Sql;

  beforeAll(async () => {
    pg = await startTempServer();
    dir = await makeTempDir();
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      await admin.unsafe('create database pgb');
    } finally {
      await admin.end({ timeout: 5 });
    }
    url = withDatabase(pg.url, 'pgb');
    await run('pgbench', ['-i', '-s', '1', '-q', url], { timeout: 120_000 });
    sql = postgres(url, { max: 1, onnotice: () => undefined });
  }, 300_000);

  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await pg?.stop();
    await removeDir(dir);
  });

  async function stats(): Promise<Stats> {
    const rows = await sql<{ relname: string; ins: string; upd: string }[]>`
      select relname, n_tup_ins as ins, n_tup_upd as upd from pg_stat_user_tables
      where relname like 'pgbench_%'`;
    return Object.fromEntries(rows.map((r) => [r.relname, { ins: Number(r.ins), upd: Number(r.upd) }]));
  }

  async function historyRows(): Promise<number> {
    const [row] = await sql<{ n: string }[]>`select count(*) as n from pgbench_history`;
    return Number(row?.n ?? 0);
  }

  /**
   * Rows changed per table per transaction over `go`. A backend sends its table statistics when
   * it exits (or at most once a second): wait until they account for every history row added.
   */
  async function measure(go: () => Promise<void>): Promise<Record<string, number>> {
    const rows0 = await historyRows();
    const s0 = await stats();
    await go();
    const transactions = (await historyRows()) - rows0;
    expect(transactions).toBeGreaterThan(0);
    let s1 = await stats();
    for (let i = 0; i < 100 && s1.pgbench_history!.ins - s0.pgbench_history!.ins < transactions; i++) {
      await new Promise((r) => setTimeout(r, 100));
      s1 = await stats();
    }
    const per: Record<string, number> = {};
    for (const t of TABLES) {
      per[`${t} inserts`] = (s1[t]!.ins - s0[t]!.ins) / transactions;
      per[`${t} updates`] = (s1[t]!.upd - s0[t]!.upd) / transactions;
    }
    return per;
  }

  it('both change the four tables alike per transaction', async () => {
    const pgbench = await measure(async () => {
      await run('pgbench', ['-b', 'tpcb-like', '-c', '1', '-T', '3', '-n', url], { timeout: 120_000 });
    });
    const txbench = await measure(async () => {
      const r = await runCli(
        dir,
        [
          'run',
          '--db',
          url,
          '--workload',
          'tpcb',
          '--terminals',
          '1',
          '--warmup',
          '0s',
          '--duration',
          '3s',
          '--no-monitor',
        ],
        120_000,
      );
      expect(r.code, r.stderr).toBe(0);
    });
    const expected = {
      'pgbench_accounts inserts': 0,
      'pgbench_accounts updates': 1,
      'pgbench_tellers inserts': 0,
      'pgbench_tellers updates': 1,
      'pgbench_branches inserts': 0,
      'pgbench_branches updates': 1,
      'pgbench_history inserts': 1,
      'pgbench_history updates': 0,
    };
    expect(pgbench).toEqual(expected);
    expect(txbench).toEqual(pgbench);
  });
});

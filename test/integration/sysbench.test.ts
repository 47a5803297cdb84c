/**
 * `--workload sysbench` through the CLI on each dialect's real server (embedded PostgreSQL,
 * MariaDB, SQLite): load 4 small tables, run a few seconds, and check what sysbench users read
 * (TPS, QPS with reads/writes/other in oltp_read_write's 14:4:2 proportions) and what the tables
 * hold (ids 1..N, the k_N index, c and pad shaped as sysbench makes them). On PostgreSQL also
 * `txbench steps`, an unknown option, and sysbench tables under `--workload tpcc`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectFor } from '../../dist/dialects/for-url.js';
import { makeTempDir, removeDir, runCli } from './helpers.js';
import { dialectsUnderTest, startTestTarget, type TestTarget } from './targets/index.js';

const TABLES = '4';
const TABLE_SIZE = '10000';

for (const name of dialectsUnderTest()) {
  describe(`sysbench on ${name}`, () => {
    let target: TestTarget;
    let dir: string;

    beforeAll(async () => {
      target = await startTestTarget(name);
      dir = await makeTempDir();
    });
    afterAll(async () => {
      await target?.stop();
      await removeDir(dir);
    });

    it('loads sbtest1..4 as sysbench prepare does', async () => {
      const load = await runCli(
        dir,
        [
          'load',
          '--db',
          target.url,
          '--workload',
          'sysbench',
          '--tables',
          TABLES,
          '--table-size',
          TABLE_SIZE,
        ],
        180_000,
      );
      expect(load.code, load.stderr).toBe(0);
      const dialect = await dialectFor(target.url);
      const db = await dialect.connect(target.url, { max: 1 });
      try {
        for (let t = 1; t <= 4; t++) {
          const [row] = await db.query<{
            n: unknown;
            lo: unknown;
            hi: unknown;
            kmin: unknown;
            kmax: unknown;
          }>(
            `select count(*) as n, min(id) as lo, max(id) as hi, min(k) as kmin, max(k) as kmax from sbtest${t}`,
          );
          expect(Number(row?.n)).toBe(10_000);
          expect(Number(row?.lo)).toBe(1);
          expect(Number(row?.hi)).toBe(10_000);
          expect(Number(row?.kmin)).toBeGreaterThanOrEqual(1);
          expect(Number(row?.kmax)).toBeLessThanOrEqual(10_000);
        }
        const rows = await db.query<{ c: string; pad: string }>('select c, pad from sbtest1 where id <= 3');
        for (const r of rows) {
          // CHAR(n) pads with spaces on some databases: the digits are what sysbench writes.
          expect(r.c.trimEnd()).toMatch(/^\d{11}(-\d{11}){9}$/);
          expect(r.pad.trimEnd()).toMatch(/^\d{11}(-\d{11}){4}$/);
        }
      } finally {
        await db.close();
      }
    });

    it('runs oltp_read_write and reports TPS and QPS as sysbench does', async () => {
      const run = await runCli(
        dir,
        [
          'run',
          '--db',
          target.url,
          '--workload',
          'sysbench',
          '--duration',
          '5s',
          '--warmup',
          '1s',
          '--terminals',
          '2',
          '--no-monitor',
          '--json',
          path.join(dir, `${name}.json`),
        ],
        120_000,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/QPS [\d,.]+ +reads\/s [\d,.]+ +writes\/s [\d,.]+ +other\/s [\d,.]+/);
      const report = JSON.parse(await readFile(path.join(dir, `${name}.json`), 'utf8')) as {
        workload: string;
        summary: {
          tps: number;
          qps: number;
          readsPerSecond: number;
          writesPerSecond: number;
          otherPerSecond: number;
        };
      };
      expect(report.workload).toBe('sysbench');
      const s = report.summary;
      expect(s.tps).toBeGreaterThan(0);
      // 14 reads, 4 writes and 2 others per transaction (rounding aside).
      expect(s.readsPerSecond / s.tps).toBeCloseTo(14, 0);
      expect(s.writesPerSecond / s.tps).toBeCloseTo(4, 0);
      expect(s.otherPerSecond / s.tps).toBeCloseTo(2, 0);
      expect(s.qps / s.tps).toBeCloseTo(20, 0);
    });

    if (name === 'postgres') {
      it('steps over user counts', async () => {
        const steps = await runCli(
          dir,
          [
            'steps',
            '--db',
            target.url,
            '--workload',
            'sysbench',
            '--script',
            'oltp_point_select',
            '--users',
            '1,2',
            '--duration',
            '2s',
            '--warmup',
            '0s',
            '--no-monitor',
          ],
          120_000,
        );
        expect(steps.code, steps.stderr).toBe(0);
        // The scaling table: one row per user count, each with its TPS.
        expect(steps.stdout).toMatch(/^users +TPS/m);
        expect(steps.stdout).toMatch(/^ *1 +[\d,.]+ /m);
        expect(steps.stdout).toMatch(/^ *2 +[\d,.]+ /m);
      });

      it('rejects an unknown option with the list of its own', async () => {
        const bad = await runCli(dir, [
          'run',
          '--db',
          target.url,
          '--workload',
          'sysbench',
          '--warehouses',
          '2',
        ]);
        expect(bad.code).toBe(2);
        expect(bad.stderr.trim().split('\n')).toHaveLength(1);
        expect(bad.stderr).toMatch(/--warehouses/);
        expect(bad.stderr).toMatch(/--table-size/);
        expect(bad.stderr).toMatch(/--rand-type/);
      });

      it('names the sysbench tables when asked to run TPC-C on them', async () => {
        const bad = await runCli(dir, ['run', '--db', target.url, '--duration', '1s']);
        expect(bad.code).toBe(2);
        expect(bad.stderr.trim().split('\n')).toHaveLength(1);
        expect(bad.stderr).toMatch(/sysbench tables sbtest1\.\.sbtest4/);
      });
    }
  });
}

/**
 * TPC-B (`--workload tpcb`, pgbench's tables and its tpcb-like script) loaded, run and checked
 * through the CLI on every dialect under test: the balances it moves add up in all four tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectFor } from '../../dist/dialects/for-url.js';
import { makeTempDir, removeDir, runCli } from './helpers.js';
import { dialectsUnderTest, startTestTarget, type TestTarget } from './targets/index.js';

for (const name of dialectsUnderTest()) {
  describe(`--workload tpcb on ${name}`, () => {
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

    it('loads scale 1, runs tpcb-like for 5 s, and its balance checks pass', async () => {
      const load = await runCli(
        dir,
        ['load', '--db', target.url, '--workload', 'tpcb', '--scale', '1'],
        180_000,
      );
      expect(load.code, load.stderr).toBe(0);
      const run = await runCli(
        dir,
        [
          'run',
          '--db',
          target.url,
          '--workload',
          'tpcb',
          '--duration',
          '5s',
          '--warmup',
          '1s',
          '--no-monitor',
        ],
        120_000,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^\s*tpcb-like\s+[\d,]+\s+\d/m);
      const dialect = await dialectFor(target.url);
      const db = await dialect.connect(target.url, { max: 1 });
      try {
        const [row] = await db.query<{ n: unknown }>('select count(*) as n from pgbench_history');
        expect(Number(row?.n)).toBeGreaterThan(0);
        const [accounts] = await db.query<{ n: unknown }>('select count(*) as n from pgbench_accounts');
        expect(Number(accounts?.n)).toBe(100_000);
      } finally {
        await db.close();
      }
      const check = await runCli(dir, ['check', '--db', target.url, '--workload', 'tpcb'], 120_000);
      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).not.toMatch(/FAIL/);
    });
  });
}

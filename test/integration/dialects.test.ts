/**
 * The suite every dialect must pass: load 1 warehouse, check the population, run a few seconds
 * with every transaction type, check consistency; and the same run in stored-procedure mode where
 * the dialect has it. TXBENCH_DIALECTS=postgres,mysql,sqlite chooses the dialects (all by default).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkloadRun } from '../../dist/run/workload-run.js';
import type { RunReport } from '../../src/results/run-file.js';
import { findWorkload } from '../../dist/workloads/registry.js';
import { checkDatabase } from '../../dist/workloads/tpcc/check-database.js';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import { tpccDialectFor } from '../../dist/workloads/tpcc/tpcc-dialect.js';
import { dialectsUnderTest, startTestTarget, type TestTarget } from './targets/index.js';

const TYPES = ['newOrder', 'payment', 'orderStatus', 'delivery', 'stockLevel'] as const;

function expectHealthyRun(report: RunReport): void {
  const wholeRun = report.audit.wholeRun as { match: boolean | null };
  expect(report.status).toBe('completed');
  for (const type of TYPES) {
    expect(report.transactions[type]?.count, type).toBeGreaterThan(0);
    expect(report.transactions[type]?.errors, type).toBe(0);
  }
  const newOrder = report.transactions.newOrder!;
  expect(newOrder.rollbacks ?? 0).toBeLessThan(newOrder.count * 0.05);
  expect(wholeRun.match).toBe(true);
}

async function shortRun(url: string, procedures: boolean): Promise<RunReport> {
  return new WorkloadRun(url, 'suite', {
    workload: await findWorkload('tpcc'),
    workloadOptions: { procedures },
    terminals: 10,
    thinkScale: 0,
    warmupMs: 500,
    durationMs: 4000,
    rampMs: 0,
    intervalMs: 60_000,
    seed: 11,
  }).run();
}

for (const name of dialectsUnderTest()) {
  describe(`dialect ${name}`, () => {
    let target: TestTarget;

    beforeAll(async () => {
      target = await startTestTarget(name);
      await loadTpcc(target.url, { warehouses: 1, seed: 7, replace: true });
    });

    afterAll(async () => {
      await target?.stop();
    });

    it('loads 1 warehouse that passes every population check and consistency condition', async () => {
      const results = await checkDatabase(target.url, true);
      expect(results.filter((r) => !r.pass)).toEqual([]);
    });

    it('runs every transaction type with no errors, and keeps every consistency condition', async () => {
      expectHealthyRun(await shortRun(target.url, false));
      const results = await checkDatabase(target.url, false);
      expect(results.filter((r) => !r.pass)).toEqual([]);
    });

    it('runs in stored-procedure mode with the same effects, where the dialect has procedures', async () => {
      const { dialect } = await tpccDialectFor(target.url);
      if (!dialect.capabilities.procedures) {
        await expect(shortRun(target.url, true)).rejects.toThrow(/--procedures is not available/);
        return;
      }
      expectHealthyRun(await shortRun(target.url, true));
      const results = await checkDatabase(target.url, false);
      expect(results.filter((r) => !r.pass)).toEqual([]);
    });
  });
}

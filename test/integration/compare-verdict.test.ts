/**
 * The noise of a run and the verdicts of `txbench compare`, from real runs of the built CLI on an
 * embedded PostgreSQL: each run prints its figures with ± and stores summary.ci95 (schema-valid),
 * and compare says a think-scale 0.5 run is slower on TPS than an unpaced one.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import {
  makeTempDir,
  removeDir,
  runCli,
  startTempServer,
  type CliResult,
  type TempServer,
} from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';

let pg: TempServer;
let cwd: string;

beforeAll(async () => {
  cwd = await makeTempDir('txbench-verdict-cwd-');
  pg = await startTempServer();
  await loadTpcc(pg.url, { warehouses: 1, seed: 30 });
}, 180_000);

afterAll(async () => {
  await pg?.stop();
  await removeDir(cwd);
});

/** 10 s in 1 s intervals: ten intervals, enough for a ± on every figure. */
async function run(thinkScale: string): Promise<CliResult> {
  const args = ['run', '--db', pg.url, '--think-scale', thinkScale, '--warmup', '2s', '--duration', '10s'];
  return runCli(cwd, [...args, '--interval', '1s', '--out', path.join(cwd, 'results')], 120_000);
}

describe('noise and verdicts from real runs', () => {
  let unpaced: CliResult;
  let paced: CliResult;

  beforeAll(async () => {
    unpaced = await run('0');
    paced = await run('0.5');
  }, 300_000);

  it('each run prints TPS and response times with ±, and keeps ci95 in a valid run.json', async () => {
    for (const r of [unpaced, paced]) {
      const context = JSON.stringify({ ...r, stdout: r.stdout.slice(-3000) });
      expect(r.code, context).toBe(0);
      expect(r.stdout, context).toMatch(/TPS [\d,.]+ ± [\d,.]+/);
      expect(r.stdout, context).toMatch(/response ms: avg [\d.]+ ± [\d.]+ /);
      await expectValidRunDir(runDirOf(r.stdout), 'run');
    }
    // The paced run may finish too few transactions for a p99 in enough intervals (9 in one CI run),
    // and its rarer types too few for any interval; the unpaced run's do not.
    expect(unpaced.stdout).toMatch(/response ms: avg [\d.]+ ± [\d.]+ .* p99 [\d.]+ ± [\d.]+/);
    expect(unpaced.stdout).toMatch(/^ {2}New-Order .* ± .* ± /m);
  });

  it('compare says the paced run is slower on TPS, in text and CSV', async () => {
    const dirs = [runDirOf(unpaced.stdout), runDirOf(paced.stdout)];
    const text = await runCli(cwd, ['compare', ...dirs]);
    expect(text.code, JSON.stringify(text)).toBe(0);
    expect(text.stdout).toMatch(/^\S.* TPS +−[\d,.]+ ± [\d,.]+ +slower$/m);
    const csv = await runCli(cwd, ['compare', '--format', 'csv', ...dirs]);
    const [header, first, second] = csv.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const verdict = header!.indexOf('TPS verdict');
    expect(verdict).toBeGreaterThan(0);
    expect(first![verdict]).toBe('baseline');
    expect(second![verdict]).toBe('slower');
  });
});

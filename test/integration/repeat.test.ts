/**
 * `--repeat N` as a user runs it (the built CLI) against a real embedded PostgreSQL loaded with
 * one warehouse: `run --repeat 2 --reload` keeps both repetitions as schema-valid run directories
 * beside a schema-valid repeat.json, prints the mean ± interval table, and reloads the database
 * before each repetition (what the first one added is gone); `steps --repeat 2` gives each step's
 * figures over the repetitions; `compare` on the parent directory shows them.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import type { RepeatFile } from '../../src/results/repeat-file.js';
import { repeatSchemaCheck } from '../../dist/results/repeat-schema.js';
import {
  makeTempDir,
  removeDir,
  runCli,
  startTempServer,
  type CliResult,
  type TempServer,
} from './helpers.js';
import { expectValidRunDir } from './run-dir-schema.js';

const repeatCheck = repeatSchemaCheck();
const repeatSchemaErrors = (value: unknown): string[] => repeatCheck.errors(value);

let pg: TempServer;
let cwd: string;

const SHORT = ['--warmup', '1s', '--duration', '4s', '--interval', '1s', '--terminals', '5'];

/** The parent directory a repeated command printed (`repeated run directory: DIR`). */
function parentOf(r: CliResult): string {
  const match = /^repeated run directory: (.+)$/m.exec(r.stdout);
  expect(match, `${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`).not.toBeNull();
  return match![1]!;
}

async function repeatFileOf(dir: string): Promise<RepeatFile> {
  const file = JSON.parse(await readFile(path.join(dir, 'repeat.json'), 'utf8')) as RepeatFile;
  expect(repeatSchemaErrors(file)).toEqual([]);
  return file;
}

async function ordersInDatabase(): Promise<number> {
  const sql = postgres(pg.url, { max: 1, onnotice: () => undefined });
  try {
    const [row] = await sql<{ n: string }[]>`select count(*)::text as n from orders`;
    return Number(row!.n);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

beforeAll(async () => {
  cwd = await makeTempDir('txbench-repeat-cwd-');
  pg = await startTempServer();
  await loadTpcc(pg.url, { warehouses: 1, seed: 7 });
}, 120_000);

afterAll(async () => {
  await pg?.stop();
  await removeDir(cwd);
});

describe('run --repeat 2 --reload', () => {
  let result: CliResult;
  let parent: string;
  let ordersLoaded: number;

  beforeAll(async () => {
    ordersLoaded = await ordersInDatabase();
    result = await runCli(
      cwd,
      ['run', '--db', pg.url, '--repeat', '2', '--reload', ...SHORT, '--out', 'out'],
      300_000,
    );
    parent = parentOf(result);
  }, 320_000);

  it('exits 0 and keeps each repetition as a schema-valid run directory', async () => {
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect((await readdir(parent)).sort()).toEqual(['rep-1', 'rep-2', 'repeat.json']);
    await expectValidRunDir(path.join(parent, 'rep-1'), 'run');
    await expectValidRunDir(path.join(parent, 'rep-2'), 'run');
  });

  it('writes a schema-valid repeat.json whose figures are taken over both repetitions', async () => {
    const file = await repeatFileOf(parent);
    expect([file.of, file.status, file.requested, file.reload]).toEqual(['run', 'completed', 2, true]);
    const tps = file.groups[0]!.figures.find((f) => f.key === 'tps')!;
    const reps = await Promise.all(
      ['rep-1', 'rep-2'].map(
        async (d) =>
          (
            JSON.parse(await readFile(path.join(parent, d, 'run.json'), 'utf8')) as {
              summary: { tps: number };
            }
          ).summary.tps,
      ),
    );
    expect(tps.values).toEqual(reps);
    expect(tps.halfWidth).not.toBeNull();
  });

  it('prints one table with mean ± CI, min … max and each repetition', () => {
    expect(result.stdout).toMatch(/figure\s+mean ± 95% CI\s+min … max\s+rep 1\s+rep 2/);
    expect(result.stdout).toMatch(/^TPS\s+[\d,.]+ ± [\d,.]+/m);
    expect(result.stdout).toMatch(/^New-Order avg ms\s+[\d,.]+ ± /m);
  });

  it('reloads before each repetition: the database holds the load plus the last repetition only', async () => {
    expect(result.stderr.match(/--reload: loading/g)).toHaveLength(2);
    const last = JSON.parse(await readFile(path.join(parent, 'rep-2', 'run.json'), 'utf8')) as {
      audit: { wholeRun: { ordersAddedInDatabase: number } };
    };
    expect(await ordersInDatabase()).toBe(ordersLoaded + last.audit.wholeRun.ordersAddedInDatabase);
  });

  it('compare on the parent directory gives a row per repetition and the figures over them', async () => {
    const compared = await runCli(cwd, ['compare', parent]);
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toMatch(/\(rep-1\)/);
    expect(compared.stdout).toMatch(/\(rep-2\)/);
    expect(compared.stdout).toMatch(/^TPS\s+[\d,.]+ ± /m);
  });
});

describe('steps --repeat 2', () => {
  it('repeats the whole sequence and gives each step mean ± CI over the repetitions', async () => {
    const result = await runCli(
      cwd,
      ['steps', '--db', pg.url, '--users', '1,3', '--repeat', '2', ...SHORT.slice(0, 6), '--out', 'steps'],
      300_000,
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const parent = parentOf(result);
    await expectValidRunDir(path.join(parent, 'rep-1'), 'steps');
    await expectValidRunDir(path.join(parent, 'rep-2'), 'steps');
    const file = await repeatFileOf(parent);
    expect(file.groups.map((g) => g.users)).toEqual([1, 3]);
    expect(file.groups.every((g) => g.figures[0]!.values.length === 2)).toBe(true);
    expect(result.stdout).toMatch(/^users\s+TPS \(± 95% CI\)/m);
    expect(result.stdout).toMatch(/^3\s+[\d,.]+ ± /m);
  }, 320_000);
});

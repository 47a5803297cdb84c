/**
 * --workers on real servers: a run split across worker threads drives the same terminals (ids,
 * homes, decks, random streams) as one thread, its merged figures are the sum of its workers',
 * its audit matches the database, Ctrl-C keeps every worker's results, and MariaDB works too.
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectFor } from '../../dist/dialects/for-url.js';
import { decodeHistogram } from '../../dist/metrics/histogram.js';
import {
  BIN,
  cleanEnv,
  makeTempDir,
  removeDir,
  REPO_ROOT,
  runCli,
  startTempServer,
  type TempServer,
  withDatabase,
} from './helpers.js';
import { expectValidRunDir } from './run-dir-schema.js';
import { startTestTarget, type TestTarget } from './targets/index.js';

const SEEN = path.join(REPO_ROOT, 'test', 'fixtures', 'seen-workload.ts');

interface Slice {
  first: number;
  count: number;
  connections: number;
  transactions: number;
}
interface RunJson {
  status: string;
  precondition?: { seconds: number; transactions: Record<string, { count: number }> };
  config: { workers: number; workerSlices: Slice[]; terminals: number; connections: number; deck: number[] };
  transactions: Record<string, { count: number }>;
  intervals: { phase: string; perType: Record<string, { count: number }> }[];
  audit: {
    pass: boolean;
    checks: { name: string; pass: boolean | null }[];
    wholeRun?: { match: boolean | null; newOrdersCommitted: number; ordersAddedInDatabase: number | null };
  };
}

function runDirOf(stdout: string): string {
  const m = /run directory: (.+)$/m.exec(stdout);
  if (!m) throw new Error(`no run directory in:\n${stdout}`);
  return m[1]!.trim();
}

async function readRun(dir: string): Promise<{ run: RunJson; histograms: Record<string, string> }> {
  const run = JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8')) as RunJson;
  const histograms = JSON.parse(await readFile(path.join(dir, 'histograms.json'), 'utf8')) as Record<
    string,
    string
  >;
  return { run, histograms };
}

/** The slices cover terminals 0..n-1 once each, in order; their transactions add up to the run's. */
function expectSlicesAddUp(run: RunJson, workers: number): void {
  const slices = run.config.workerSlices;
  expect(run.config.workers).toBe(workers);
  expect(slices).toHaveLength(workers);
  let next = 0;
  for (const s of slices) {
    expect(s.first).toBe(next);
    expect(s.count).toBeGreaterThan(0);
    expect(s.connections).toBeGreaterThan(0);
    next += s.count;
  }
  expect(next).toBe(run.config.terminals);
  const total = Object.values(run.transactions).reduce((a, t) => a + t.count, 0);
  expect(slices.reduce((a, s) => a + s.transactions, 0)).toBe(total);
}

/** Each type's merged histogram holds exactly its count: the workers' histograms were added, not sampled. */
function expectHistogramsHoldCounts(run: RunJson, histograms: Record<string, string>): void {
  for (const [key, t] of Object.entries(run.transactions)) {
    expect(decodeHistogram(histograms[key]!).totalCount, key).toBe(t.count);
  }
}

describe('--workers on the embedded PostgreSQL', () => {
  let pg: TempServer;
  let dir: string;
  let seenUrl: string;

  beforeAll(async () => {
    pg = await startTempServer();
    dir = await makeTempDir();
    const tpcc = await runCli(dir, ['load', '--db', pg.url, '--warehouses', '2'], 240_000);
    expect(tpcc.code, tpcc.stderr).toBe(0);
    // The fixture's table lives in a database of its own: txbench loads one workload per database.
    const dialect = await dialectFor(pg.url);
    const db = await dialect.connect(pg.url, { max: 1 });
    await db.query('create database seen').finally(() => db.close());
    seenUrl = withDatabase(pg.url, 'seen');
    const seen = await runCli(dir, ['load', '--db', seenUrl, '--workload', SEEN], 120_000);
    expect(seen.code, seen.stderr).toBe(0);
  }, 400_000);

  afterAll(async () => {
    await pg?.stop();
    await removeDir(dir);
  });

  async function seenRows(): Promise<Map<number, { home: number; steps: [number, number][] }>> {
    const dialect = await dialectFor(seenUrl);
    const db = await dialect.connect(seenUrl, { max: 1 });
    try {
      const rows = await db.query<{ terminal: number; n: number; home: number; type: number; draw: number }>(
        'select terminal, n, home, type, draw from seen where terminal >= 0 order by terminal, n',
      );
      await db.query('delete from seen where terminal >= 0');
      const byTerminal = new Map<number, { home: number; steps: [number, number][] }>();
      for (const r of rows) {
        const t = byTerminal.get(Number(r.terminal)) ?? { home: Number(r.home), steps: [] };
        expect(Number(r.home)).toBe(t.home);
        t.steps.push([Number(r.type), Number(r.draw)]);
        byTerminal.set(Number(r.terminal), t);
      }
      return byTerminal;
    } finally {
      await db.close();
    }
  }

  it('a user workload (.ts through jiti in each worker) sees the same terminals, homes, decks and draws with 1 and 2 workers', async () => {
    const args = ['--workload', SEEN, '--terminals', '12', '--connections', '4', '--seed', '11'];
    const common = [
      '--warmup',
      '0s',
      '--duration',
      '3s',
      '--interval',
      '1s',
      '--no-monitor',
      '--out',
      path.join(dir, 'seen'),
    ];
    const one = await runCli(dir, ['run', '--db', seenUrl, ...args, ...common, '--workers', '1'], 120_000);
    expect(one.code, one.stderr).toBe(0);
    const seenOne = await seenRows();
    const two = await runCli(dir, ['run', '--db', seenUrl, ...args, ...common, '--workers', '2'], 120_000);
    expect(two.code, two.stderr).toBe(0);
    const seenTwo = await seenRows();
    const { run, histograms } = await readRun(runDirOf(two.stdout));
    expectSlicesAddUp(run, 2);
    expectHistogramsHoldCounts(run, histograms);
    expect((await readRun(runDirOf(one.stdout))).run.config.workers).toBe(1);

    const ids = Array.from({ length: 12 }, (_, i) => i);
    expect([...seenOne.keys()].sort((a, b) => a - b)).toEqual(ids);
    expect([...seenTwo.keys()].sort((a, b) => a - b)).toEqual(ids);
    for (const id of ids) {
      const a = seenOne.get(id)!;
      const b = seenTwo.get(id)!;
      // The fixture's home rule: (id * 7 + terminals) % 5, whichever thread made the state.
      expect(a.home, `terminal ${id}`).toBe((id * 7 + 12) % 5);
      expect(b.home, `terminal ${id}`).toBe(a.home);
      // Same deck and random stream: the same types and draws, transaction by transaction.
      const n = Math.min(a.steps.length, b.steps.length);
      expect(n).toBeGreaterThan(5);
      expect(b.steps.slice(0, n), `terminal ${id}`).toEqual(a.steps.slice(0, n));
    }
  }, 300_000);

  it("TPC-C with 1 and 2 workers: the same configuration and mix; with 2 the audit matches the database, check passes, and the merged counts are the workers' sum", async () => {
    const args = [
      '--terminals',
      '20',
      '--seed',
      '3',
      '--warmup',
      '1s',
      '--duration',
      '4s',
      '--interval',
      '1s',
      '--no-monitor',
      '--out',
      path.join(dir, 'tpcc'),
    ];
    const one = await runCli(dir, ['run', '--db', pg.url, ...args, '--workers', '1'], 120_000);
    expect(one.code, one.stderr).toBe(0);
    const two = await runCli(dir, ['run', '--db', pg.url, ...args, '--workers', '2', '--check'], 120_000);
    expect(two.code, `${two.stdout}\n${two.stderr}`).toBe(0);
    expect(two.stdout).toMatch(/check/i);
    expect(two.stderr).toMatch(/20 terminals, 20 connections over 2 worker threads,/);
    const a = (await readRun(runDirOf(one.stdout))).run;
    await expectValidRunDir(runDirOf(two.stdout), 'run');
    const { run: b, histograms } = await readRun(runDirOf(two.stdout));
    const { workers: _w1, workerSlices: _s1, ...configOne } = a.config;
    const { workers: _w2, workerSlices: _s2, ...configTwo } = b.config;
    expect(configTwo).toEqual(configOne);
    expectSlicesAddUp(b, 2);
    expect(b.config.workerSlices.map((s) => s.connections)).toEqual([10, 10]);
    expectHistogramsHoldCounts(b, histograms);
    // The measured intervals' counts are the merged histograms' too.
    for (const run of [a, b]) {
      const total = Object.values(run.transactions).reduce((x, t) => x + t.count, 0);
      const deckTotal = run.config.deck.reduce((x, y) => x + y, 0);
      Object.values(run.transactions).forEach((t, i) => {
        // Same deck, same shares within sampling noise (a few hundred transactions).
        expect(Math.abs(t.count / total - run.config.deck[i]! / deckTotal)).toBeLessThan(0.08);
      });
    }
    expect(b.audit.wholeRun?.match).toBe(true);
    expect(b.audit.wholeRun?.newOrdersCommitted).toBeGreaterThan(0);
    // (The window's audit checks are rates over a few hundred transactions, left to chance here.)
  }, 300_000);

  it('a worker thread that dies mid-run fails the run with one line (exit 3), never hangs', async () => {
    const run = await runCli(
      dir,
      [
        'run',
        '--db',
        seenUrl,
        '--workload',
        SEEN,
        '--exit-at',
        '20',
        '--workers',
        '2',
        '--terminals',
        '4',
        '--warmup',
        '0s',
        '--duration',
        '30s',
        '--no-monitor',
        '--out',
        path.join(dir, 'crash'),
      ],
      90_000,
    );
    expect(run.timedOut).toBe(false);
    expect(run.code, run.stderr).toBe(3);
    const lines = run.stderr.split('\n').filter((l) => /crashed/.test(l));
    expect(lines).toEqual([
      expect.stringMatching(/^txbench run: worker thread 1 of 2 crashed \(exited unexpectedly \(code 7\)\)/),
    ]);
    await seenRows();
  }, 120_000);

  it('several targets each get their own workers', async () => {
    // The second target is a copy of the first's database (its txbench_meta included), not a
    // second load; the copy is made from another database, as the source must have no sessions.
    const dialect = await dialectFor(pg.url);
    const db = await dialect.connect(withDatabase(pg.url, 'postgres'), { max: 1 });
    const first = new URL(pg.url).pathname.slice(1);
    await db.query(`create database second template ${first} strategy file_copy`).finally(() => db.close());
    const second = withDatabase(pg.url, 'second');
    const run = await runCli(
      dir,
      [
        'run',
        '--db',
        pg.url,
        '--label',
        'first',
        '--db',
        second,
        '--label',
        'second',
        '--workers',
        '2',
        '--terminals',
        '6',
        '--warmup',
        '1s',
        '--duration',
        '3s',
        '--no-monitor',
        '--out',
        path.join(dir, 'targets'),
      ],
      120_000,
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const runDir = runDirOf(run.stdout);
    await expectValidRunDir(runDir, 'targets');
    const file = JSON.parse(await readFile(path.join(runDir, 'run.json'), 'utf8')) as {
      targets: { label: string; report: RunJson }[];
    };
    expect(file.targets.map((t) => t.label)).toEqual(['first', 'second']);
    for (const t of file.targets) {
      expectSlicesAddUp(t.report, 2);
      for (const s of t.report.config.workerSlices) expect(s.transactions).toBeGreaterThan(0);
      expect(t.report.audit.wholeRun?.match).toBe(true);
    }
  }, 400_000);

  it("Ctrl-C during a 2-worker run keeps every worker's results (exit 130)", async () => {
    const out = path.join(dir, 'interrupted');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'run',
        '--db',
        pg.url,
        '--workers',
        '2',
        '--terminals',
        '10',
        '--warmup',
        '0s',
        '--duration',
        '60s',
        '--interval',
        '1s',
        '--no-monitor',
        '--out',
        out,
      ],
      { cwd: dir, env: cleanEnv(), stdio: 'pipe' },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Wait for two measured intervals in intervals.ndjson, then interrupt.
    const deadline = Date.now() + 90_000;
    for (;;) {
      const runs = await readdir(out).catch(() => [] as string[]);
      const file = runs[0] === undefined ? undefined : path.join(out, runs[0], 'intervals.ndjson');
      const text = file === undefined ? '' : await readFile(file, 'utf8').catch(() => '');
      if ((text.match(/"measure"/g) ?? []).length >= 2) break;
      if (Date.now() > deadline) throw new Error(`no measured intervals:\n${stdout}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGINT');
    const code = await exited;
    expect(code, stderr).toBe(130);
    const { run, histograms } = await readRun(runDirOf(stdout));
    await expectValidRunDir(runDirOf(stdout), 'run');
    expect(run.status).toBe('interrupted');
    expectSlicesAddUp(run, 2);
    for (const s of run.config.workerSlices) expect(s.transactions).toBeGreaterThan(0);
    expectHistogramsHoldCounts(run, histograms);
  }, 200_000);
});

describe('--workers on MariaDB', () => {
  let target: TestTarget;
  let dir: string;

  beforeAll(async () => {
    target = await startTestTarget('mysql');
    dir = await makeTempDir();
    const load = await runCli(dir, ['load', '--db', target.url, '--warehouses', '1'], 240_000);
    expect(load.code, load.stderr).toBe(0);
  }, 400_000);

  afterAll(async () => {
    await target?.stop();
    await removeDir(dir);
  });

  it("a 2-worker TPC-C run with a precondition round: merged counts are the workers' sum and the audit matches the database", async () => {
    const run = await runCli(
      dir,
      [
        'run',
        '--db',
        target.url,
        '--workers',
        '2',
        '--terminals',
        '10',
        '--precondition',
        '1s',
        '--warmup',
        '1s',
        '--duration',
        '4s',
        '--no-monitor',
        '--out',
        path.join(dir, 'r'),
      ],
      120_000,
    );
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const { run: r, histograms } = await readRun(runDirOf(run.stdout));
    expectSlicesAddUp(r, 2);
    for (const s of r.config.workerSlices) expect(s.transactions).toBeGreaterThan(0);
    expectHistogramsHoldCounts(r, histograms);
    // The same workers ran the preconditioning round first, on the same connections.
    expect(r.precondition?.seconds).toBeGreaterThan(0.9);
    expect(Object.values(r.precondition!.transactions).reduce((a, t) => a + t.count, 0)).toBeGreaterThan(0);
    expect(r.audit.wholeRun?.match).toBe(true);
  }, 200_000);
});

describe('--workers refused where one thread is the rule', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir();
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it('SQLite: one line, exit 2, before anything is opened', async () => {
    const db = `sqlite:${path.join(dir, 'w.db')}`;
    const run = await runCli(
      dir,
      ['run', '--db', db, '--workers', '2', '--duration', '1s', '--warmup', '0s'],
      60_000,
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/--workers 2: .*one writer.*drop --workers/);
  });
});

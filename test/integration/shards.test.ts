/**
 * Four shards of one run, started as four CLI processes with one --start-at against one real
 * server (embedded PostgreSQL, then MariaDB), merged with `txbench merge`: the merged run is the
 * sum of its shards, its New-Order audit matches the database, the windows overlap, and the
 * merged directory is a run like any other (schema, results, compare, report). A missing shard is
 * refused, and merged with --allow-partial. Bad shard flags are one line and exit 2.
 */
import { spawn } from 'node:child_process';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectFor } from '../../dist/dialects/for-url.js';
import { decodeHistogram } from '../../dist/metrics/histogram.js';
import {
  BIN,
  cleanEnv,
  makeTempDir,
  removeDir,
  runCli,
  startTempServer,
  withDatabase,
  type CliResult,
  type TempServer,
} from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';
import { dialectsUnderTest, startTestTarget, type TestTarget } from './targets/index.js';

const SHARDS = 4;
const TERMINALS = 8;

interface Report {
  config: {
    terminals: number;
    shard?: {
      index: number;
      count: number;
      firstTerminal: number;
      terminals: number;
      totalTerminals: number;
      host: string;
      startAt: string | null;
      clockOffsetMs: number | null;
    };
    mergedFrom?: { index: number; dir: string }[];
    shards?: { partial: boolean; missing: number[] };
  };
  summary: {
    transactions: number;
    nopm: number | null;
    tpm: number | null;
    windowStartedAt: string;
    windowEndedAt: string;
    partial?: { reason: string; shards: number[] };
  };
  transactions: Record<string, { count: number; errors: number }>;
  audit: {
    wholeRun: {
      newOrdersCommitted: number;
      ordersAddedInDatabase: number | null;
      match: boolean | null;
      note?: string;
    };
  };
  shardBasis?: { runTallies: Record<string, number> };
  intervals: { perType: Record<string, { count: number }> }[];
}

async function readReport(dir: string): Promise<Report> {
  return JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8')) as Report;
}

async function histogramCounts(dir: string): Promise<Record<string, number>> {
  const encoded = JSON.parse(await readFile(path.join(dir, 'histograms.json'), 'utf8')) as Record<
    string,
    string
  >;
  return Object.fromEntries(Object.entries(encoded).map(([k, e]) => [k, decodeHistogram(e).totalCount]));
}

const oneLine = (r: CliResult): string[] => r.stderr.trim().split('\n');

/** A --start-at `leadMs` from now, on a whole second. */
const startAtAfter = (leadMs: number): string =>
  new Date(Math.ceil((Date.now() + leadMs) / 1000) * 1000).toISOString();

/**
 * Starts shards together (`start` spawns them all with the --start-at it is given, `leadMs` from
 * now) and waits for them. A shard whose set-up ends more than the grace after --start-at is
 * refused by design (exit 2, "in the past"): on a machine too loaded for the lead (four shards'
 * set-up took about 2 s on 2 idle cores, over 12 s at load 25), every shard is started once more
 * with three times the lead, so that the test does not fail on a loaded machine. The leads (10 s,
 * 8 s) fit CI, where another file runs beside this one; at a load of 25 the retry's 30 s or 24 s
 * are needed. `start` runs again from the beginning: anything it measures before the shards (the
 * database's counters) is measured again.
 */
async function startTogether(
  leadMs: number,
  start: (startAt: string) => Promise<CliResult[]>,
): Promise<{ startAt: string; runs: CliResult[] }> {
  for (let lead = leadMs; ; lead *= 3) {
    const startAt = startAtAfter(lead);
    const runs = await start(startAt);
    const late = runs.some((r) => r.code === 2 && /--start-at .* in the past/.test(r.stderr));
    if (!late || lead > leadMs) return { startAt, runs };
    console.log(
      `shards: --start-at ${lead / 1000} s ahead was too soon for this machine; again, further ahead`,
    );
  }
}

// SQLite is one file on one machine: there is nothing to shard across load machines.
for (const name of dialectsUnderTest().filter((d) => d !== 'sqlite')) {
  describe(`four shards on ${name}`, () => {
    let target: TestTarget;
    let dir: string;

    const sumNextOrderIds = async (): Promise<number> => {
      const dialect = await dialectFor(target.url);
      const db = await dialect.connect(target.url, { max: 1 });
      try {
        const [row] = await db.query<{ s: unknown }>('select sum(d_next_o_id) as s from district');
        return Number(row!.s);
      } finally {
        await db.close();
      }
    };

    beforeAll(async () => {
      target = await startTestTarget(name);
      dir = await makeTempDir();
      const load = await runCli(dir, ['load', '--db', target.url, '--warehouses', '1'], 180_000);
      expect(load.code, load.stderr).toBe(0);
    }, 240_000);
    afterAll(async () => {
      await target?.stop();
      await removeDir(dir);
    });

    it('runs four shards together and merges them into one run that is their sum', async () => {
      let idsBefore = 0;
      const shardArgs = (i: number, at: string): string[] => [
        'run',
        '--db',
        target.url,
        '--shard',
        `${i}/${SHARDS}`,
        '--start-at',
        at,
        '--terminals',
        String(TERMINALS),
        '--warmup',
        '1s',
        '--duration',
        '5s',
        '--interval',
        '1s',
        '--no-monitor',
        '--out',
        `shard${i}`,
      ];
      const { startAt, runs } = await startTogether(10_000, async (at) => {
        idsBefore = await sumNextOrderIds();
        return Promise.all(
          Array.from({ length: SHARDS }, (_, i) => runCli(dir, shardArgs(i + 1, at), 120_000)),
        );
      });
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      for (const r of runs) expect(r.stderr).toMatch(/waiting for --start-at/);
      expect(runs[1]!.stderr).toContain('shard 2/4 (terminals 2..3 of 8)');
      const dirs = runs.map((r) => runDirOf(r.stdout));
      const shards = await Promise.all(dirs.map(readReport));
      shards.forEach((s, i) => {
        expect(s.config.shard).toMatchObject({
          index: i + 1,
          count: SHARDS,
          firstTerminal: (i * TERMINALS) / SHARDS,
          terminals: TERMINALS / SHARDS,
          totalTerminals: TERMINALS,
          startAt,
        });
        expect(s.config.terminals).toBe(TERMINALS / SHARDS);
        expect(typeof s.config.shard!.clockOffsetMs).toBe('number');
        // A shard cannot reconcile with the database alone: the others wrote to it too.
        expect(s.audit.wholeRun.match).toBeNull();
        expect(s.audit.wholeRun.note).toMatch(/txbench merge/);
      });
      await Promise.all(dirs.map((d) => expectValidRunDir(d, 'run')));

      const merge = await runCli(dir, ['merge', ...dirs, '--out', 'merged']);
      expect(merge.code, merge.stderr).toBe(0);
      const mergedDir = runDirOf(merge.stdout);
      await expectValidRunDir(mergedDir, 'run');
      const merged = await readReport(mergedDir);
      const idsAfter = await sumNextOrderIds();

      const sum = (f: (s: Report) => number): number => shards.reduce((a, s) => a + f(s), 0);
      expect(merged.summary.transactions).toBe(sum((s) => s.summary.transactions));
      expect(merged.summary.transactions).toBeGreaterThan(0);
      for (const key of Object.keys(merged.transactions)) {
        expect(merged.transactions[key]!.count).toBe(sum((s) => s.transactions[key]!.count));
      }
      const shardHistograms = await Promise.all(dirs.map(histogramCounts));
      const mergedHistograms = await histogramCounts(mergedDir);
      for (const [key, n] of Object.entries(mergedHistograms)) {
        expect(n).toBe(shardHistograms.reduce((a, h) => a + h[key]!, 0));
      }
      // Every shard's intervals land in a slot of the merged series: none is lost.
      const intervalCount = merged.intervals.reduce(
        (a, i) => a + Object.values(i.perType).reduce((b, t) => b + t.count, 0),
        0,
      );
      expect(intervalCount).toBe(
        sum((s) =>
          s.intervals.reduce((a, i) => a + Object.values(i.perType).reduce((b, t) => b + t.count, 0), 0),
        ),
      );

      // The New-Order audit over every shard against what the database gained.
      const { wholeRun } = merged.audit;
      expect(wholeRun.newOrdersCommitted).toBe(sum((s) => s.shardBasis!.runTallies.committedNewOrders!));
      expect(wholeRun.ordersAddedInDatabase).toBe(idsAfter - idsBefore);
      expect(wholeRun.match).toBe(true);

      // The database's counters are read once (shard 1's), never summed.
      expect(merged.summary.nopm).toBe(shards[0]!.summary.nopm);
      expect(merged.summary.tpm).toBe(shards[0]!.summary.tpm);
      expect(merged.config.terminals).toBe(TERMINALS);
      expect(merged.config.mergedFrom!.map((m) => m.index)).toEqual([1, 2, 3, 4]);
      expect(merged.config.shards!.partial).toBe(false);

      // The windows overlap: the latest start comes before the earliest end.
      const starts = shards.map((s) => Date.parse(s.summary.windowStartedAt));
      const ends = shards.map((s) => Date.parse(s.summary.windowEndedAt));
      expect(Math.max(...starts)).toBeLessThan(Math.min(...ends));

      // What follows reads the shards' and merged directories, each command on its own output; they
      // run side by side. Only `check` and the other seed's run use the database, one after the other.
      const without3 = dirs.filter((_, i) => i !== 2);
      const databaseAfterwards = async (): Promise<void> => {
        const check = await runCli(dir, ['check', '--db', target.url], 120_000);
        expect(check.code, check.stdout + check.stderr).toBe(0);
        if (name !== 'postgres') return;
        // A shard of another run (another seed) is refused, one line.
        const other = await runCli(
          dir,
          [
            ...['run', '--db', target.url, '--shard', '3/4', '--seed', '99'],
            ...['--terminals', String(TERMINALS), '--warmup', '0s', '--duration', '1s'],
            ...['--no-monitor', '--out', 'other'],
          ],
          120_000,
        );
        expect(other.code, other.stderr).toBe(0);
        const mixed = await runCli(dir, ['merge', ...without3, runDirOf(other.stdout), '--out', 'mixed']);
        expect(mixed.code).toBe(2);
        expect(oneLine(mixed)).toHaveLength(1);
        expect(mixed.stderr).toMatch(/not a shard of the same run .* differs/);
      };
      const readByOtherCommands = async (): Promise<void> => {
        const [compare, report, results] = await Promise.all([
          runCli(dir, ['compare', mergedDir, dirs[0]!]),
          runCli(dir, ['report', mergedDir, '--out', path.join(dir, 'merged.html')]),
          runCli(dir, ['results', 'merged']),
        ]);
        expect(compare.code, compare.stderr).toBe(0);
        expect(compare.stdout).toContain(path.basename(mergedDir));
        expect(report.code, report.stderr).toBe(0);
        expect(results.code, results.stderr).toBe(0);
        expect(results.stdout).toContain(path.basename(mergedDir));
      };
      // Shard 3 left out: refused, naming it; merged with --allow-partial, and marked so.
      const shardLeftOut = async (): Promise<void> => {
        const refused = await runCli(dir, ['merge', ...without3, '--out', 'partial']);
        expect(refused.code).toBe(2);
        expect(oneLine(refused)).toHaveLength(1);
        expect(refused.stderr).toMatch(/shard 3 of 4 missing.*--allow-partial/);
        const partial = await runCli(dir, ['merge', ...without3, '--out', 'partial', '--allow-partial']);
        expect(partial.code, partial.stderr).toBe(0);
        const partialReport = await readReport(runDirOf(partial.stdout));
        expect(partialReport.config.shards).toMatchObject({ partial: true, missing: [3] });
        expect(partialReport.summary.transactions).toBe(
          merged.summary.transactions - shards[2]!.summary.transactions,
        );
      };
      // Shard 2 without its histograms.json: its transactions would drop out of the merged
      // percentiles while its counts stayed in. Refused, naming it; with --allow-partial its counts
      // are added, the percentiles are the other shards', and every report says so.
      const histogramsMissing = async (): Promise<void> => {
        const bare = path.join(dir, 'bare-shard2');
        await cp(dirs[1]!, bare, { recursive: true });
        await rm(path.join(bare, 'histograms.json'));
        const gapDirs = [dirs[0]!, bare, dirs[2]!, dirs[3]!];
        const noHistograms = await runCli(dir, ['merge', ...gapDirs, '--out', 'gap']);
        expect(noHistograms.code).toBe(2);
        expect(oneLine(noHistograms)).toHaveLength(1);
        expect(noHistograms.stderr).toMatch(
          /shard 2 \(.*bare-shard2\): no histograms\.json.*--allow-partial/,
        );
        const gap = await runCli(dir, ['merge', ...gapDirs, '--out', 'gap', '--allow-partial']);
        expect(gap.code, gap.stderr).toBe(0);
        expect(gap.stderr).toMatch(/partial run: shard 2 without readable histograms/);
        expect(gap.stdout).toMatch(/^ {2}PARTIAL: shard 2 without readable histograms/m);
        const gapDir = runDirOf(gap.stdout);
        await expectValidRunDir(gapDir, 'run');
        const gapReport = await readReport(gapDir);
        expect(gapReport.summary.transactions).toBe(merged.summary.transactions);
        expect(gapReport.summary.partial).toMatchObject({ shards: [2] });
        const gapHistograms = await histogramCounts(gapDir);
        for (const [key, n] of Object.entries(gapHistograms)) {
          expect(n).toBe(shardHistograms.reduce((a, h, i) => a + (i === 1 ? 0 : h[key]!), 0));
        }
        const gapHtml = path.join(dir, 'gap.html');
        const [gapCompare, gapHtmlReport] = await Promise.all([
          runCli(dir, ['compare', gapDir]),
          runCli(dir, ['report', gapDir, '--out', gapHtml]),
        ]);
        expect(gapCompare.code, gapCompare.stderr).toBe(0);
        expect(gapCompare.stdout).toMatch(/completed, partial/);
        expect(gapHtmlReport.code).toBe(0);
        expect(await readFile(gapHtml, 'utf8')).toContain('PARTIAL: shard 2 without readable histograms');
      };
      await Promise.all([databaseAfterwards(), readByOtherCommands(), shardLeftOut(), histogramsMissing()]);
    }, 300_000);

    it('two shards of two worker threads each: each shard splits its own slice, and the merge still reconciles', async () => {
      let idsBefore = 0;
      const args = (i: number, startAt: string): string[] => [
        ...['run', '--db', target.url, '--shard', `${i}/2`, '--start-at', startAt, '--workers', '2'],
        ...['--terminals', String(TERMINALS), '--warmup', '1s', '--duration', '4s', '--no-monitor'],
        ...['--out', `workers${i}`],
      ];
      const { runs } = await startTogether(8_000, async (startAt) => {
        idsBefore = await sumNextOrderIds();
        return Promise.all([1, 2].map((i) => runCli(dir, args(i, startAt), 120_000)));
      });
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const dirs = runs.map((r) => runDirOf(r.stdout));
      const shards = await Promise.all(
        dirs.map(async (d) => (await readReport(d)) as Report & { config: { workerSlices: unknown[] } }),
      );
      // Shard 1 drives terminals 0..3, shard 2 terminals 4..7: each halves its own slice.
      expect(
        shards.map((s) => s.config.workerSlices.map((w) => w as { first: number; count: number })),
      ).toMatchObject([
        [
          { first: 0, count: 2 },
          { first: 2, count: 2 },
        ],
        [
          { first: 4, count: 2 },
          { first: 6, count: 2 },
        ],
      ]);
      const merge = await runCli(dir, ['merge', ...dirs, '--out', 'workers-merged']);
      expect(merge.code, merge.stderr).toBe(0);
      const merged = await readReport(runDirOf(merge.stdout));
      expect(merged.summary.transactions).toBe(shards.reduce((a, s) => a + s.summary.transactions, 0));
      expect(merged.audit.wholeRun.ordersAddedInDatabase).toBe((await sumNextOrderIds()) - idsBefore);
      expect(merged.audit.wholeRun.match).toBe(true);
    }, 300_000);

    it('Ctrl-C while waiting for --start-at exits 130, measures nothing and leaves no run directory', async () => {
      const startAt = new Date(Date.now() + 120_000).toISOString();
      const args = ['run', '--db', target.url, '--shard', '1/2', '--start-at', startAt, '--terminals', '2'];
      const child = spawn(process.execPath, [BIN, ...args, '--no-monitor', '--out', 'cancelled'], {
        cwd: dir,
        env: cleanEnv(),
        stdio: 'pipe',
      });
      let stderr = '';
      const waiting = new Promise<void>((resolve) =>
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
          if (stderr.includes('waiting for --start-at')) resolve();
        }),
      );
      const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await waiting;
      child.kill('SIGINT');
      expect(await closed, stderr).toBe(130);
      expect(stderr).toMatch(/interrupted while waiting for --start-at; nothing was measured/);
      expect(await readdir(path.join(dir, 'cancelled')).catch(() => [])).toEqual([]);
    }, 120_000);
  });
}

// Each case is its own process and temp directory: several at a time, each asserting through its
// own test's expect.
describe('bad shard flags', { concurrent: true }, () => {
  it.for<[flags: string[], message: RegExp]>([
    [['--shard', '0/4'], /--shard must be I\/N/],
    [['--shard', '5/4'], /--shard must be I\/N/],
    [['--shard', 'x'], /--shard must be I\/N/],
    [['--start-at', 'yesterday'], /--start-at must be an ISO 8601 time/],
    [['--start-at', '2020-01-01T00:00:00Z'], /in the past/],
    [['--shard', '1/4'], /--shard needs --seed S or --start-at/],
  ])('txbench run %j: one line, exit 2', async ([flags, message], { expect }) => {
    const dir = await makeTempDir();
    try {
      const r = await runCli(dir, ['run', '--db', 'postgres://nobody@127.0.0.1:1/none', ...flags]);
      expect(r.code).toBe(2);
      expect(oneLine(r)).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    } finally {
      await removeDir(dir);
    }
  });

  it('txbench merge of something that is not a shard: one line, exit 2', async ({ expect }) => {
    const dir = await makeTempDir();
    try {
      const r = await runCli(dir, ['merge', path.join(dir, 'nothing'), '--out', 'x']);
      expect(r.code).toBe(2);
      expect(oneLine(r)).toHaveLength(1);
      expect(r.stderr).toMatch(/does not exist/);
    } finally {
      await removeDir(dir);
    }
  });
});

describe('two shards of a run on two targets (two databases of one embedded PostgreSQL)', () => {
  let server: TempServer;
  let dir: string;
  const urls: string[] = [];

  beforeAll(async () => {
    server = await startTempServer();
    dir = await makeTempDir();
    const dialect = await dialectFor(server.url);
    const db = await dialect.connect(server.url, { max: 1 });
    try {
      await db.query('create database shard_a');
      urls.push(withDatabase(server.url, 'shard_a'));
      const load = await runCli(dir, ['load', '--db', urls[0]!, '--warehouses', '1'], 180_000);
      expect(load.code, load.stderr).toBe(0);
      // The second target is a copy of the first load (its txbench_meta included), not a second load.
      await db.query('create database shard_b template shard_a strategy file_copy');
      urls.push(withDatabase(server.url, 'shard_b'));
    } finally {
      await db.close();
    }
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
    await removeDir(dir);
  });

  it('merges each target over the shards, then adds the targets up', async () => {
    const args = (i: number, startAt: string): string[] => [
      'run',
      ...['--db', urls[0]!, '--label', 'A', '--db', urls[1]!, '--label', 'B'],
      ...['--shard', `${i}/2`, '--start-at', startAt, '--terminals', '4'],
      ...['--warmup', '1s', '--duration', '4s', '--no-monitor', '--out', `multi${i}`],
    ];
    const { runs } = await startTogether(8_000, (startAt) =>
      Promise.all([1, 2].map((i) => runCli(dir, args(i, startAt), 120_000))),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const dirs = runs.map((r) => runDirOf(r.stdout));
    const merge = await runCli(dir, ['merge', ...dirs, '--out', 'multi']);
    expect(merge.code, merge.stderr).toBe(0);
    const mergedDir = runDirOf(merge.stdout);
    await expectValidRunDir(mergedDir, 'targets');
    interface TargetsFile {
      summary: { transactions: number };
      targets: { label: string; report: Report }[];
    }
    const read = async (d: string): Promise<TargetsFile> =>
      JSON.parse(await readFile(path.join(d, 'run.json'), 'utf8')) as TargetsFile;
    const merged = await read(mergedDir);
    const shards = await Promise.all(dirs.map(read));
    expect(merged.targets.map((t) => t.label)).toEqual(['A', 'B']);
    merged.targets.forEach((t, i) => {
      const parts = shards.map((s) => s.targets[i]!.report);
      expect(t.report.summary.transactions).toBe(parts.reduce((a, p) => a + p.summary.transactions, 0));
      expect(t.report.config.terminals).toBe(4);
      // Each target's database gained exactly its own shards' New-Orders.
      expect(t.report.audit.wholeRun.match).toBe(true);
    });
    expect(merged.summary.transactions).toBe(
      merged.targets.reduce((a, t) => a + t.report.summary.transactions, 0),
    );
    const compare = await runCli(dir, ['compare', mergedDir]);
    expect(compare.code, compare.stderr).toBe(0);
    expect(compare.stdout).toMatch(/A \+ B \(sum\)/);
  }, 300_000);
});

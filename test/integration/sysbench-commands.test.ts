/**
 * `--workload sysbench` through the commands that are not the single run: two targets driven at
 * once and added up, a sweep of a server setting, then `compare` and `report` over the results —
 * all on one embedded PostgreSQL (two databases), with nothing workload-specific in those
 * commands: the figures they show (TPS, QPS) come from the workload's headline figures.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectFor } from '../../dist/dialects/for-url.js';
import { makeTempDir, removeDir, runCli, startTempServer, withDatabase, type TempServer } from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';

const SMALL = ['--workload', 'sysbench', '--tables', '2', '--table-size', '2000'];
const SHORT = ['--warmup', '0s', '--duration', '2s', '--interval', '1s', '--no-monitor'];

interface Summary {
  tps: number;
  qps?: number;
  transactions: number;
  figures?: { key: string; value: number | null }[];
}

describe('sysbench across commands (embedded PostgreSQL)', () => {
  let pg: TempServer;
  let dir: string;
  let second: string;
  const results = (): string => path.join(dir, 'results');

  beforeAll(async () => {
    pg = await startTempServer();
    dir = await makeTempDir();
    const dialect = await dialectFor(pg.url);
    const db = await dialect.connect(pg.url, { max: 1 });
    try {
      await db.query('create database sb2');
    } finally {
      await db.close();
    }
    second = withDatabase(pg.url, 'sb2');
    for (const url of [pg.url, second]) {
      const load = await runCli(dir, ['load', '--db', url, ...SMALL], 120_000);
      expect(load.code, load.stderr).toBe(0);
    }
  }, 240_000);
  afterAll(async () => {
    await pg?.stop();
    await removeDir(dir);
  });

  it('drives two targets at once and adds them up, QPS included', async () => {
    const json = path.join(dir, 'two.json');
    const run = await runCli(
      dir,
      [
        'run',
        '--workload',
        'sysbench',
        '--db',
        pg.url,
        '--label',
        'one',
        '--db',
        second,
        '--label',
        'two',
        ...SHORT,
        '--out',
        results(),
        '--json',
        json,
      ],
      120_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as {
      kind: string;
      targets: { label: string; report: { workload: string; summary: Summary } }[];
      summary: Summary;
    };
    expect(report.kind).toBe('targets');
    expect(report.targets.map((t) => t.label)).toEqual(['one', 'two']);
    for (const t of report.targets) {
      expect(t.report.workload).toBe('sysbench');
      expect(t.report.summary.transactions).toBeGreaterThan(0);
    }
    const sum = report.targets.reduce((a, t) => a + t.report.summary.transactions, 0);
    expect(report.summary.transactions).toBe(sum);
    // The sum's headline figures are the workload's, added up: QPS of both targets.
    const qps = (s: Summary): number | null | undefined => s.figures?.find((f) => f.key === 'qps')?.value;
    const parts = report.targets.map((t) => qps(t.report.summary) ?? NaN);
    expect(qps(report.summary)).toBeCloseTo(parts[0]! + parts[1]!, 0);
    expect(run.stdout).toMatch(/QPS/);
    // run.json holds no TPC-C fields and still meets the schema.
    await expectValidRunDir(runDirOf(run.stdout), 'targets');
  });

  it('sweeps a server setting', async () => {
    const sweep = await runCli(
      dir,
      [
        'sweep',
        '--db',
        pg.url,
        '--set',
        'work_mem=4MB,8MB',
        ...SMALL.slice(0, 2),
        ...SHORT,
        '--out',
        results(),
      ],
      180_000,
    );
    expect(sweep.code, sweep.stderr).toBe(0);
    expect(sweep.stdout).toMatch(/work_mem/);
    expect(sweep.stdout).toMatch(/4MB/);
    expect(sweep.stdout).toMatch(/8MB/);
    await expectValidRunDir(runDirOf(sweep.stdout), 'sweep');
  });

  it('compares the runs with TPS and QPS and no New-Order rate', async () => {
    const compare = await runCli(dir, ['compare', results()]);
    expect(compare.code, compare.stderr).toBe(0);
    const [header, ...rows] = compare.stdout.trim().split('\n');
    expect(header).toMatch(/^label +TPS +avg response ms +QPS /);
    expect(header).not.toMatch(/New-Orders|tpmC/);
    // Two targets and their sum, then two sweep values.
    expect(rows.filter((r) => /\S/.test(r))).toHaveLength(5);
    for (const r of rows) expect(r).not.toMatch(/ n\/a +n\/a +n\/a +n\/a /);
    const csv = await runCli(dir, ['compare', results(), '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toMatch(/,QPS \(queries\/s\),/);
  });

  it('reports them on one HTML page with QPS cards and no TPC-C figures', async () => {
    const out = path.join(dir, 'report.html');
    const report = await runCli(dir, ['report', results(), '--out', out]);
    expect(report.code, report.stderr).toBe(0);
    const page = await readFile(out, 'utf8');
    expect(page).toMatch(/QPS/);
    expect(page).not.toMatch(/New-Orders\/min|NOPM|tpmC/);
    // Every run directory got its own report too.
    const runs = await readdir(results());
    expect(runs.length).toBe(2);
  });
});

/**
 * `txbench run` against a real embedded PostgreSQL loaded with 2 warehouses: a TpccRun of 20
 * terminals at think-scale 0 (every type runs without errors, the whole-run audit matches the
 * orders the database gained, the consistency conditions still hold), the CLI's JSON report,
 * and the CLI's refusals of bad input (exit 2, one line, nothing started).
 *
 * Like the other suites it drives the compiled code under dist/ (run `npm run build` first);
 * the types come from src/.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDatabase } from '../../dist/workloads/tpcc/check-database.js';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import type * as RunModule from '../../src/run/workload-run.js';
import type { RunReport } from '../../src/results/run-file.js';
/** The TPC-C parts of a run report, as the TPC-C workload writes them. */
type TpccView = RunReport & {
  config: RunReport['config'] & {
    constants: {
      load: { cLast: number; cId: number; olIId: number };
      run: { cLast: number; cId: number; olIId: number };
    };
  };
  summary: RunReport['summary'] & { tpmC: number; nopm: number | null };
  audit: RunReport['audit'] & {
    counters: import('../../src/workloads/tpcc/profile.js').TpccCounters;
    wholeRun: { newOrdersCommitted: number; ordersAddedInDatabase: number | null; match: boolean | null };
  };
};

import type * as RegistryModule from '../../src/workloads/registry.js';
import {
  makeTempDir,
  removeDir,
  startTempServer,
  withDatabase,
  type TempServer,
  runCli as runCliIn,
  type CliResult,
} from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';

const TYPES = ['newOrder', 'payment', 'orderStatus', 'delivery', 'stockLevel'] as const;
/** A specifier tsc does not resolve: dist/run has no declarations, so the types come from src. */
const DIST_RUN = new URL('../../dist/run/workload-run.js', import.meta.url).href;
const DIST_REGISTRY = new URL('../../dist/workloads/registry.js', import.meta.url).href;
const tpcc = async (): Promise<RunModule.RunOptions['workload']> =>
  ((await import(DIST_REGISTRY)) as typeof RegistryModule).findWorkload('tpcc');

let pg: TempServer;
let sql: postgres.Sql;
let cwd: string;

const runCli = (args: string[], timeoutMs?: number): Promise<CliResult> => runCliIn(cwd, args, timeoutMs);

async function sumNextOrderIds(): Promise<number> {
  const [row] = await sql<{ s: string }[]>`select sum(d_next_o_id)::text as s from district`;
  return Number(row!.s);
}

async function count(table: string): Promise<number> {
  const [row] = await sql.unsafe<{ n: string }[]>(`select count(*)::text as n from ${table}`);
  return Number(row!.n);
}

/** What a run would change: order numbers, orders, payments, deliveries. */
async function fingerprint(): Promise<string> {
  const [row] = await sql<{ f: string }[]>`
    select (select sum(d_next_o_id) from district)::text || '/' || (select count(*) from history)::text || '/' ||
      (select count(*) from new_order)::text || '/' || (select sum(w_ytd) from warehouse)::text as f`;
  return row!.f;
}

beforeAll(async () => {
  cwd = await makeTempDir('txbench-run-cwd-');
  pg = await startTempServer();
  await loadTpcc(pg.url, { warehouses: 2, seed: 424242 });
  sql = postgres(pg.url, { max: 2, onnotice: () => undefined });
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await pg?.stop();
  await removeDir(cwd);
});

describe('TpccRun: 20 terminals, 2 warehouses, think-scale 0, 1 s warm-up, 10 s window', () => {
  let report: TpccView;
  let idsBefore: number;
  let idsAfter: number;
  let ordersBefore: number;
  let ordersAfter: number;
  const phases: string[] = [];

  beforeAll(async () => {
    idsBefore = await sumNextOrderIds();
    ordersBefore = await count('orders');
    const { WorkloadRun } = (await import(DIST_RUN)) as typeof RunModule;
    const run = new WorkloadRun(
      pg.url,
      'test',
      {
        workload: await tpcc(),
        terminals: 20,
        thinkScale: 0,
        warmupMs: 1000,
        durationMs: 10_000,
        rampMs: 0,
        intervalMs: 2000,
      },
      { onPhase: (phase) => phases.push(phase) },
    );
    report = (await run.run()) as TpccView;
    idsAfter = await sumNextOrderIds();
    ordersAfter = await count('orders');
  });

  it('completes, through warm-up, window and drain', () => {
    expect(report.status).toBe('completed');
    expect(report.failure).toBeUndefined();
    expect(phases).toEqual(['warmup', 'measure', 'drain', 'done']);
    expect(report.summary.windowSeconds).toBeGreaterThan(9.5);
    expect(report.summary.windowSeconds).toBeLessThan(11);
  });

  it('measures scheduler lateness and its own CPU at think-scale 0, and drained everything', () => {
    expect(report.summary.schedulerLatenessMs).not.toBeNull();
    expect(report.summary.clientCpu?.usPerTransaction).toBeGreaterThan(0);
    expect(report.summary.ceilingTpmC).toBeNull();
    expect(report.drain.inFlight).toBe(0);
    expect(report.drain.abandoned).toBe(report.drain.queued);
  });

  it('resolves the configuration from what was loaded', () => {
    expect(report.config).toMatchObject({
      target: 'test',
      warehouses: 2,
      loadedWarehouses: 2,
      terminals: 20,
      connections: 20,
      thinkScale: 0,
      warmupS: 1,
      durationS: 10,
      deck: [10, 10, 1, 1, 1],
      mode: 'client-sql',
    });
    const { load, run } = report.config.constants;
    const delta = Math.abs(run.cLast - load.cLast);
    expect(delta >= 65 && delta <= 119 && delta !== 96 && delta !== 112).toBe(true);
  });

  it('runs every one of the five types, without errors', () => {
    for (const key of TYPES) {
      const t = report.transactions[key]!;
      expect(t.count, key).toBeGreaterThan(0);
      expect(t.errors, key).toBe(0);
      expect(t.responseMs.avg, key).toBeGreaterThan(0);
      expect(t.responseMs.max, key).toBeGreaterThanOrEqual(t.responseMs.p50);
    }
    expect(report.summary.errors).toBe(0);
    expect(Object.values(report.errors).every((n) => n === 0)).toBe(true);
  });

  it('reports tpmC, TPS, NOPM and TPM consistently with the counts', () => {
    const { summary } = report;
    const newOrders = report.transactions.newOrder!.count;
    expect(summary.tpmC).toBeGreaterThan(0);
    // windowSeconds is rounded to the millisecond in the report, hence the relative slack.
    expect(Math.abs(summary.tpmC - (newOrders * 60) / summary.windowSeconds)).toBeLessThanOrEqual(
      1 + summary.tpmC * 2e-4,
    );
    const all = TYPES.reduce((a, k) => a + report.transactions[k]!.count, 0);
    expect(summary.transactions).toBe(all);
    expect(Math.abs(summary.tps - all / summary.windowSeconds)).toBeLessThan(0.1);
    // NOPM counts committed New-Orders (rollbacks excluded), from the database.
    expect(summary.nopm).not.toBeNull();
    expect(summary.nopm!).toBeGreaterThan(0);
    expect(summary.nopm!).toBeLessThanOrEqual(summary.tpmC * 1.2 + 60);
    expect(summary.tpm).not.toBeNull();
    expect(summary.tpm!).toBeGreaterThan(0);
  });

  it('follows the 23-card deck', () => {
    const shares = TYPES.map((k) => report.transactions[k]!.mixPct);
    // 20 terminals, each in its own deck: within a few points of 43.48 / 43.48 / 4.35 x 3.
    expect(Math.abs(shares[0]! - 43.48)).toBeLessThan(5);
    expect(Math.abs(shares[1]! - 43.48)).toBeLessThan(5);
    for (const s of shares.slice(2)) expect(Math.abs(s - 4.35)).toBeLessThan(2.5);
  });

  it('rolls back under 5% of New-Orders (about 1%)', () => {
    const no = report.transactions.newOrder!;
    expect(no.rollbacks).toBeDefined();
    expect((no.rollbacks as number) / no.count).toBeLessThan(0.05);
    expect(report.audit.counters.newOrderRollbacks).toBe(no.rollbacks);
  });

  it('the whole-run audit matches: committed New-Orders = orders the database gained', () => {
    const { wholeRun } = report.audit;
    expect(wholeRun.match).toBe(true);
    expect(wholeRun.newOrdersCommitted).toBeGreaterThan(0);
    // Checked here independently, with sum(D_NEXT_O_ID) and count(*) of ORDER.
    expect(idsAfter - idsBefore).toBe(wholeRun.newOrdersCommitted);
    expect(wholeRun.ordersAddedInDatabase).toBe(idsAfter - idsBefore);
    expect(ordersAfter - ordersBefore).toBe(idsAfter - idsBefore);
  });

  it('audit figures are present and plausible', () => {
    const { counters, checks } = report.audit;
    const newOrders = report.transactions.newOrder!.count;
    expect(counters.orderLines / newOrders).toBeGreaterThan(9);
    expect(counters.orderLines / newOrders).toBeLessThan(11);
    expect(counters.paymentsByName).toBeGreaterThan(0);
    expect(counters.remotePayments).toBeGreaterThan(0);
    expect(counters.deliveredDistricts).toBeGreaterThan(0);
    expect(checks.length).toBeGreaterThanOrEqual(7);
    // With two warehouses the remote figures apply.
    expect(checks.find((c) => c.name === 'remote Payments %')!.pass).not.toBeNull();
    expect(typeof report.audit.pass).toBe('boolean');
  });

  it('every consistency condition holds afterwards', async () => {
    const results = await checkDatabase(pg.url, false);
    expect(results.length).toBeGreaterThanOrEqual(11);
    expect(results.filter((r) => !r.pass).map((r) => `${r.id}: ${r.title} (${r.violations})`)).toEqual([]);
  });

  it('has measured intervals covering the window', () => {
    expect(report.intervals.length).toBeGreaterThanOrEqual(4);
    for (const i of report.intervals) {
      expect(i.phase).toBe('measure');
      expect(i.seconds).toBeGreaterThan(0);
      expect(Object.keys(i.perType).sort()).toEqual([...TYPES].sort());
    }
    const seconds = report.intervals.reduce((a, i) => a + i.seconds, 0);
    expect(Math.abs(seconds - report.summary.windowSeconds)).toBeLessThan(0.1);
    expect(report.intervals.some((i) => i.tps > 0)).toBe(true);
  });

  it('carries a histogram per type', () => {
    expect(Object.keys(report.histograms).sort()).toEqual([...TYPES].sort());
    for (const h of Object.values(report.histograms)) expect(h.length).toBeGreaterThan(0);
  });
});

describe('TpccRun: stopping', () => {
  it('stop() mid-window ends the run as interrupted and keeps what was measured', async () => {
    const { WorkloadRun } = (await import(DIST_RUN)) as typeof RunModule;
    const run: RunModule.WorkloadRun = new WorkloadRun(
      pg.url,
      'test',
      {
        workload: await tpcc(),
        terminals: 4,
        thinkScale: 0,
        warmupMs: 0,
        durationMs: 60_000,
        rampMs: 0,
        intervalMs: 60_000,
      },
      {
        onPhase: (phase) => {
          if (phase === 'measure') setTimeout(() => run.stop(), 1500);
        },
      },
    );
    const report = (await run.run()) as TpccView;
    expect(report.status).toBe('interrupted');
    expect(report.failure).toBe('interrupted by the user');
    expect(report.summary.windowSeconds).toBeGreaterThan(1);
    expect(report.summary.windowSeconds).toBeLessThan(10);
    expect(report.summary.transactions).toBeGreaterThan(0);
    expect(report.audit.wholeRun.match).toBe(true);
  });

  // Regression: a Ctrl-C between set-up and the engine's start (here: from onStart) used to hang.
  it('stop() right after onStart (before the engine started) returns as interrupted', async () => {
    const { WorkloadRun } = (await import(DIST_RUN)) as typeof RunModule;
    const run: RunModule.WorkloadRun = new WorkloadRun(
      pg.url,
      'test',
      {
        workload: await tpcc(),
        terminals: 1,
        thinkScale: 0,
        warmupMs: 0,
        durationMs: 1_000,
        rampMs: 0,
        intervalMs: 3_600_000,
      },
      { onStart: () => run.stop() },
    );
    const outcome = await Promise.race([
      run.run().then((r) => r.status),
      new Promise<string>((resolve) => setTimeout(() => resolve('still running after 5 s'), 5_000)),
    ]);
    expect(outcome).toBe('interrupted');
  });
});

describe('TpccRun: outputs', () => {
  // A slow output never delays the run (issue 31, item 2): its handler waits on a promise the
  // test holds, far longer than the run's intervals, while another output and the report get
  // every interval and the summary. Counts, not times.
  it('an output far slower than the intervals neither holds up the others nor the run', async () => {
    const { WorkloadRun } = (await import(DIST_RUN)) as typeof RunModule;
    type Event = Parameters<NonNullable<RunModule.RunOptions['outputs']>[number]['event']>[0];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slowSeen: Event[] = [];
    const seen: Event[] = [];
    const run = new WorkloadRun(pg.url, 'test', {
      workload: await tpcc(),
      terminals: 4,
      thinkScale: 0,
      warmupMs: 0,
      durationMs: 2_000,
      rampMs: 0,
      intervalMs: 200,
      monitor: false,
      outputs: [
        {
          name: 'slow',
          event: (e) => {
            slowSeen.push(e);
            return held;
          },
        },
        { name: 'counting', event: (e) => void seen.push(e) },
      ],
    });
    const report = await run.run();
    const intervals = seen.filter((e) => e.kind === 'interval');
    const measured = intervals.filter((e) => e.kind === 'interval' && e.interval.phase === 'measure');
    expect(report.status).toBe('completed');
    expect(report.intervals.length).toBeGreaterThanOrEqual(5);
    expect(measured.map((e) => (e.kind === 'interval' ? e.interval.atS : -1))).toEqual(
      report.intervals.map((i) => i.atS),
    );
    expect(seen.map((e) => e.kind).slice(0, 2)).toEqual(['start', 'phase']);
    const last = seen.at(-1)!;
    expect(last.kind).toBe('summary');
    expect(last.kind === 'summary' && last.report.summary.transactions).toBe(report.summary.transactions);
    // Still on its first event when the run was over: everything after waited in its own queue.
    expect(slowSeen).toHaveLength(1);
    release();
  });
});

describe('txbench run (the CLI)', () => {
  it('writes a complete JSON report, with no password in it, and passes --check', async () => {
    const json = path.join(cwd, 'run.json');
    const idsBefore = await sumNextOrderIds();
    const r = await runCli(
      [
        'run',
        '--db',
        pg.url,
        '--terminals',
        '10',
        '--warmup',
        '0s',
        '--duration',
        '3s',
        '--json',
        json,
        '--check',
      ],
      90_000,
    );
    const context = JSON.stringify({ ...r, stdout: r.stdout.slice(-2000) });
    expect(r.timedOut, context).toBe(false);
    expect(r.code, context).toBe(0);
    expect(r.stderr, context).not.toContain('    at ');
    const text = await readFile(json, 'utf8');
    const report = JSON.parse(text) as Record<string, unknown> & RunReport;

    expect(report.status).toBe('completed');
    for (const key of ['tps', 'tpmC', 'nopm', 'tpm'] as const) {
      expect(typeof report.summary[key], `summary.${key}`).toBe('number');
    }
    expect(report.summary.tpmC).toBeGreaterThan(0);
    for (const p of ['avg', 'p50', 'p90', 'p95', 'p99', 'max'] as const) {
      expect(typeof report.summary.responseMs[p], `summary.responseMs.${p}`).toBe('number');
    }
    for (const key of TYPES) {
      const t = report.transactions[key];
      expect(t, key).toBeDefined();
      for (const field of ['count', 'errors', 'retries'] as const)
        expect(typeof t![field], `${key}.${field}`).toBe('number');
      for (const p of ['avg', 'p50', 'p90', 'p95', 'p99', 'max'] as const) {
        expect(typeof t!.responseMs[p], `${key}.responseMs.${p}`).toBe('number');
      }
    }
    expect(typeof report.transactions.newOrder!.rollbacks).toBe('number');
    expect(report.audit).toBeDefined();
    expect(Array.isArray(report.audit.checks)).toBe(true);
    expect(Array.isArray(report.intervals)).toBe(true);
    expect(report.intervals.length).toBeGreaterThanOrEqual(1);
    expect(report.config).toMatchObject({ warehouses: 2, terminals: 10, warmupS: 0, durationS: 3 });
    // --json leaves the encoded histograms to the run directory.
    expect(report.histograms).toBeUndefined();

    // The password appears nowhere: not in the file, the config, or the output.
    const password = pg.server.password;
    expect(password.length).toBeGreaterThan(8);
    expect(text).not.toContain(password);
    expect(text).not.toContain(encodeURIComponent(password));
    expect(JSON.stringify(report.config)).not.toContain(password);
    expect(r.stdout).not.toContain(password);
    expect(r.stderr).not.toContain(password);

    // --check ran and passed; the run's New-Orders reached the database.
    expect(r.stdout).toMatch(/^all \d+ checks passed$/m);
    expect(r.stdout).not.toMatch(/^FAIL /m);
    expect(await sumNextOrderIds()).toBeGreaterThan(idsBefore);

    // The run directory (./results/run-…) holds a run.json of kind "run" that matches the schema.
    await expectValidRunDir(runDirOf(r.stdout), 'run');
  });

  describe('bad input: exit 2, one line on stderr, no stack trace, nothing started', () => {
    let before: string;

    beforeAll(async () => {
      before = await fingerprint();
    });

    it.each([
      [['--duration', 'abc'], /--duration/],
      [['--think-scale', '-1'], /--think-scale/],
      [['--mix', '50,50,0,0,1'], /--mix must add up to 100/],
      [['--terminals', '0'], /--terminals/],
      [['--warehouses', '5'], /--warehouses 5 is more than the 2 loaded/],
    ])('run %j', async (flags, pattern) => {
      const r = await runCli(['run', '--db', pg.url, '--duration', '2s', ...flags], 30_000);
      const context = JSON.stringify(r);
      expect(r.timedOut, context).toBe(false);
      expect(r.code, context).toBe(2);
      expect(r.stderr, context).not.toContain('    at ');
      const lines = r.stderr.trim().split('\n');
      expect(lines, context).toHaveLength(1);
      expect(lines[0]).toMatch(/^txbench run: /);
      expect(lines[0]).toMatch(pattern);
      expect(r.stderr).not.toContain(pg.server.password);
      expect(r.stdout).toBe('');
      expect(await fingerprint()).toBe(before);
    });

    it('check against an empty database exits 2 and says to load first', async () => {
      await sql.unsafe('create database empty');
      const emptyUrl = withDatabase(pg.url, 'empty');
      const r = await runCli(['check', '--db', emptyUrl], 30_000);
      const context = JSON.stringify(r);
      expect(r.code, context).toBe(2);
      expect(r.stderr).not.toContain('    at ');
      const lines = r.stderr.trim().split('\n');
      expect(lines, context).toHaveLength(1);
      expect(lines[0]).toMatch(/^txbench check: .*txbench load/);
      expect(r.stderr).not.toContain(pg.server.password);
      // Still empty: check creates nothing.
      const empty = postgres(emptyUrl, { max: 1, onnotice: () => undefined });
      try {
        const [row] = await empty<{ n: number }[]>`
          select count(*)::int as n from pg_tables where schemaname = 'public'`;
        expect(row!.n).toBe(0);
      } finally {
        await empty.end({ timeout: 5 });
      }
    });

    it('run against an empty external database exits 2, says to load first, and writes nothing', async () => {
      const emptyUrl = withDatabase(pg.url, 'empty');
      const r = await runCli(['run', '--db', emptyUrl, '--duration', '2s'], 30_000);
      expect(r.code, JSON.stringify(r)).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^txbench run: nothing is loaded .*txbench load/);
      const empty = postgres(emptyUrl, { max: 1, onnotice: () => undefined });
      try {
        const [row] = await empty<{ n: number }[]>`
          select count(*)::int as n from pg_tables where schemaname = 'public'`;
        expect(row!.n).toBe(0);
      } finally {
        await empty.end({ timeout: 5 });
      }
    });
  });
});

describe('a mix below the minimums, allowed with --allow-nonstandard-mix', () => {
  it('runs and is marked config.nonstandardMix in run.json', async () => {
    const out = path.join(cwd, 'nonstandard');
    const r = await runCli(
      [
        'run',
        '--db',
        pg.url,
        '--terminals',
        '2',
        '--warmup',
        '0s',
        '--duration',
        '1s',
        '--mix',
        '60,30,4,3,3',
        '--allow-nonstandard-mix',
        '--out',
        out,
      ],
      60_000,
    );
    expect(r.code, JSON.stringify(r)).toBe(0);
    const [dir] = await readdir(out);
    const run = JSON.parse(await readFile(path.join(out, dir!, 'run.json'), 'utf8')) as RunReport;
    expect(run.config.nonstandardMix).toBe(true);
    expect(run.config.deck).toEqual([60, 30, 4, 3, 3]);
  });
});

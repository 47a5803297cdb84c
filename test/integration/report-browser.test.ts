/**
 * The HTML report in a real headless browser (Debian's chromium driven by playwright-core): real
 * run directories written by the CLI against an embedded PostgreSQL — a single run, user-count
 * steps, two targets and a sweep — each with its report.html, and `txbench report` over all of
 * them. Each page must load offline with no console error and no request but its own file, draw
 * every chart, draw as many series and points as the run has, and show run.json's figures.
 * Screenshots go to test-artifacts/report/ (git-ignored) for a person to look at.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISTRIBUTION_PERCENTILES } from '../../dist/report/html/charts.js';
import { millis, twoDecimals } from '../../dist/report/numbers.js';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import {
  cleanEnv,
  makeTempDir,
  removeDir,
  REPO_ROOT,
  startTempServer,
  withDatabase,
  type TempServer,
} from './helpers.js';
import { expectValidRunDir } from './run-dir-schema.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'report');
const SHORT = [
  '--warmup',
  '1s',
  '--duration',
  '3s',
  '--think-scale',
  '0',
  '--interval',
  '1s',
  '--terminals',
  '4',
];

function txbench(args: string[], cwd = REPO_ROOT): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin/txbench.js'), ...args], {
    cwd,
    env: cleanEnv(),
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The parts of run.json and intervals.ndjson this test checks the page against. */
interface RunJson {
  commandLine: string;
  summary: {
    tps: number;
    tpmC: number;
    nopm: number;
    errors: number;
    ci95?: { tps: { halfWidth: number | null } | null };
  };
  transactions: Record<string, { count: number; rollbacks?: number }>;
  environment: { database: { version: string } };
  steps: unknown[];
  targets: { label: string; summary: { tps: number } }[];
  sweep: unknown[];
}
interface IntervalJson {
  phase: string;
  seconds: number;
  target?: string;
  perType: Record<string, { count: number; p50Ms: number; p95Ms: number; p99Ms: number }>;
  devices?: { name: string }[];
}

interface RunDir {
  dir: string;
  run: RunJson;
  intervals: IntervalJson[];
}

async function readRunDir(parent: string): Promise<RunDir> {
  const [name] = await readdir(parent);
  const dir = path.join(parent, name!);
  const run = JSON.parse(await readFile(path.join(dir, 'run.json'), 'utf8')) as RunJson;
  const all = (await readFile(path.join(dir, 'intervals.ndjson'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as IntervalJson);
  // A sliver of an interval cut off by a phase change is kept in the file, not drawn.
  const longest = Math.max(...all.map((i) => i.seconds));
  const intervals = all.filter((i) => !(i.phase === 'drain' && i.seconds < 1) && i.seconds >= longest / 10);
  return { dir, run, intervals };
}

interface Drawn {
  id: string;
  series: number;
  points: number;
  /** Pixels in the series' colours: the data drawn, not only the axes. */
  seriesPixels: number;
}

interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
  charts: Drawn[];
}

/** The page's series colours (src/report/html/client/main.ts), as RGB. */
const PALETTE_RGB = [
  '1f77b4',
  'd62728',
  '2ca02c',
  'ff7f0e',
  '9467bd',
  '8c564b',
  'e377c2',
  '17becf',
  '7f7f7f',
  'bcbd22',
].map((hex) => [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)));

async function open(browser: Browser, file: string, shot: string): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  const charts = await page.evaluate((palette) => {
    return Array.from(document.querySelectorAll<HTMLElement>('[data-chart]')).map((el) => {
      let seriesPixels = 0;
      for (const canvas of Array.from(el.querySelectorAll('canvas'))) {
        const ctx = canvas.getContext('2d');
        if (ctx === null) continue;
        const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 0; i < px.length; i += 4) {
          const near = (a: number, b: number) => Math.abs(a - b) < 30;
          const isSeries = palette.some(
            (c) => near(px[i]!, c[0]!) && near(px[i + 1]!, c[1]!) && near(px[i + 2]!, c[2]!),
          );
          if (px[i + 3]! > 0 && isSeries) seriesPixels++;
        }
      }
      return {
        id: el.dataset.chart ?? '',
        series: Number(el.dataset.series ?? -1),
        points: Number(el.dataset.points ?? -1),
        seriesPixels,
      };
    });
  }, PALETTE_RGB);
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, shot), fullPage: true });
  return { page, errors, requests, charts };
}

function chart(opened: Opened, suffix: string): Drawn {
  const found = opened.charts.find((c) => c.id.endsWith(suffix));
  if (found === undefined)
    throw new Error(`no chart *${suffix} among ${opened.charts.map((c) => c.id).join(', ')}`);
  return found;
}

async function card(page: Page, key: string): Promise<{ label: string; value: string }> {
  const el = page.locator(`[data-card="${key}"]`).first();
  return {
    label: await el.locator('.card-label').innerText(),
    value: await el.locator('.card-value').innerText(),
  };
}

const two = (x: number): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const whole = (x: number): string => Math.trunc(x).toLocaleString('en-US');
/** A number in a chart's numbers table (src/report/html/page.ts). */
const millisText = (x: number): string => (Math.abs(x) >= 100 ? twoDecimals(x) : millis(x));

/** What every page must be: offline, quiet, every chart drawn with its data. */
function expectCleanPage(opened: Opened, file: string): void {
  expect(opened.errors).toEqual([]);
  expect(opened.requests).toEqual([pathToFileURL(file).href]);
  expect(opened.charts.length).toBeGreaterThan(0);
  for (const c of opened.charts) expect(c.seriesPixels, `chart ${c.id} draws its series`).toBeGreaterThan(20);
}

describe('the HTML report in headless chromium', () => {
  let pg: TempServer;
  let dir: string;
  let browser: Browser;
  const runs: Record<'single' | 'steps' | 'targets' | 'sweep', RunDir> = {} as never;

  beforeAll(async () => {
    pg = await startTempServer();
    dir = await makeTempDir('txbench-report-');
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    await admin.unsafe('create database vm1');
    await admin.unsafe('create database vm2');
    await admin.end();
    const vm1 = withDatabase(pg.url, 'vm1');
    const vm2 = withDatabase(pg.url, 'vm2');
    await loadTpcc(vm1, { warehouses: 1, seed: 1 });
    await loadTpcc(vm2, { warehouses: 1, seed: 2 });
    const commands: Record<keyof typeof runs, string[]> = {
      single: ['run', '--db', vm1, '--label', 'vm1'],
      steps: ['steps', '--db', vm1, '--label', 'vm1', '--users', '1,4'],
      targets: ['run', '--db', vm1, '--label', 'vm1', '--db', vm2, '--label', 'vm2'],
      sweep: ['sweep', '--db', vm1, '--label', 'vm1', '--set', 'work_mem=4MB,8MB'],
    };
    for (const [name, args] of Object.entries(commands) as [keyof typeof runs, string[]][]) {
      const out = path.join(dir, 'results', name);
      const r = txbench([...args, ...SHORT, '--out', out]);
      expect(r.status, `${name}: ${r.stderr}`).toBe(0);
      runs[name] = await readRunDir(out);
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  }, 400_000);

  afterAll(async () => {
    await browser?.close();
    await pg?.stop();
    await removeDir(dir);
  });

  it('a run records its command line, password hidden, and writes report.html beside run.json', async () => {
    const kinds = { single: 'run', steps: 'steps', targets: 'targets', sweep: 'sweep' } as const;
    for (const [name, { dir: runDir, run }] of Object.entries(runs)) {
      await expectValidRunDir(runDir, kinds[name as keyof typeof kinds]);
      expect(existsSync(path.join(runDir, 'report.html')), runDir).toBe(true);
      expect(run.commandLine).toMatch(/^txbench (run|steps|sweep) --db /);
      expect(run.commandLine).not.toContain(new URL(pg.url).password || 'no password');
    }
  });

  it('single run: cards show run.json, every chart has the run’s series and points', async () => {
    const { dir: runDir, run, intervals } = runs.single;
    const file = path.join(runDir, 'report.html');
    const opened = await open(browser, file, 'single-run.png');
    expectCleanPage(opened, file);
    expect(await card(opened.page, 'tps')).toEqual({ label: 'TPS', value: two(run.summary.tps) });
    expect(await card(opened.page, 'tpmC')).toEqual({
      label: 'New-Orders/min (unpaced)',
      value: whole(run.summary.tpmC),
    });
    expect((await card(opened.page, 'nopm')).value).toBe(whole(run.summary.nopm));
    expect((await card(opened.page, 'errors')).value).toBe(whole(run.summary.errors));
    expect((await card(opened.page, 'rollbacks')).value).toBe(
      whole(run.transactions.newOrder?.rollbacks ?? NaN),
    );

    const types = Object.keys(run.transactions).filter((t) => (run.transactions[t]?.count ?? 0) > 0);
    const typesOverTime = new Set(
      intervals.flatMap((i) => Object.keys(i.perType).filter((t) => (i.perType[t]?.count ?? 0) > 0)),
    );
    expect(chart(opened, '-tps')).toMatchObject({ series: 1, points: intervals.length });
    // Response time over time: a chart per type that ran, its p50, p95 and p99 per interval.
    const responseCharts = opened.charts.filter((c) => c.id.includes('-response-'));
    expect(responseCharts.map((c) => c.id.replace(/.*-response-/, '')).sort()).toEqual(
      [...typesOverTime].sort(),
    );
    for (const c of responseCharts) expect(c).toMatchObject({ series: 3, points: intervals.length });
    // The numbers beside the New-Order chart are the intervals' own percentiles.
    const newOrder = intervals.map((i) => i.perType.newOrder!);
    const table = await opened.page
      .locator('[id$="-response-newOrder"] details.numbers table')
      .evaluate((t) =>
        Array.from((t as HTMLTableElement).tBodies[0]!.rows).map((r) =>
          Array.from(r.cells)
            .slice(1)
            .map((c) => c.textContent),
        ),
      );
    expect(table).toEqual(
      newOrder.map((t) => (t.count > 0 ? [t.p50Ms, t.p95Ms, t.p99Ms].map(millisText) : ['–', '–', '–'])),
    );
    const headings = await opened.page.locator('[id$="-response-newOrder"] thead th').allTextContents();
    expect(headings).toEqual([
      'time since start (s)',
      'p50 (response time (ms))',
      'p95 (response time (ms))',
      'p99 (response time (ms))',
    ]);
    expect(chart(opened, '-percentiles')).toMatchObject({
      series: types.length,
      points: DISTRIBUTION_PERCENTILES.length,
    });
    expect(chart(opened, '-cpu')).toMatchObject({ series: 5, points: intervals.length });
    const disks = new Set(intervals.flatMap((i) => (i.devices ?? []).map((d) => d.name)));
    const deviceCharts = opened.charts.filter((c) => c.id.includes('-device-'));
    expect(deviceCharts.length).toBe(disks.size > 0 ? 4 : 0);
    for (const c of deviceCharts) expect(c.points).toBe(intervals.length);
    const environment = await opened.page.locator('table.env').innerText();
    expect(environment).toContain(run.environment.database.version);
    expect(await opened.page.locator('pre.command').innerText()).toBe(run.commandLine);
    expect(await opened.page.locator(`#run-${path.basename(runDir)} h2 a`).getAttribute('href')).toBe(
      `#run-${path.basename(runDir)}`,
    );
    await opened.page.close();
  });

  it('steps: TPS and response against users, one point per step, the knee named', async () => {
    const { dir: runDir, run } = runs.steps;
    const file = path.join(runDir, 'report.html');
    const opened = await open(browser, file, 'steps.png');
    expectCleanPage(opened, file);
    expect(chart(opened, '-steps')).toMatchObject({ series: 2, points: run.steps.length });
    // Each user count over its own time: a line per step, as many points as its longest step.
    const { intervals } = runs.steps;
    const perStep = [...new Set(intervals.map((i) => i.target))].map(
      (t) => intervals.filter((i) => i.target === t).length,
    );
    expect(chart(opened, '-over-time')).toMatchObject({
      series: run.steps.length,
      points: Math.max(...perStep),
    });
    expect(await opened.page.locator('.note').allInnerTexts()).toContainEqual(
      expect.stringMatching(/^knee: /),
    );
    await opened.page.close();
  });

  it('two targets: a line per target and the sum, the spread, the aggregate cards', async () => {
    const { dir: runDir, run, intervals } = runs.targets;
    const file = path.join(runDir, 'report.html');
    const opened = await open(browser, file, 'targets.png');
    expectCleanPage(opened, file);
    const perTarget = run.targets.map((t) => intervals.filter((i) => i.target === `[${t.label}]`).length);
    expect(chart(opened, '-tps')).toMatchObject({
      series: run.targets.length + 1,
      points: Math.max(...perTarget),
    });
    // Each target its own host CPU and device charts, drawn from its own intervals.
    run.targets.forEach((t, i) => {
      const own = perTarget[i]!;
      expect(chart(opened, `-t${i + 1}-cpu`), t.label).toMatchObject({ series: 5, points: own });
      const devices = opened.charts.filter((c) => c.id.includes(`-t${i + 1}-device-`));
      for (const c of devices) expect(c.points, c.id).toBe(own);
    });
    expect(await card(opened.page, 'tps')).toEqual({ label: 'TPS', value: two(run.summary.tps) });
    const spread = await opened.page.locator('table.figures').innerText();
    for (const t of run.targets) expect(spread).toContain(two(t.summary.tps));
    expect(spread).toMatch(/max\/min/);
    await opened.page.close();
  });

  it('sweep: TPS and response per setting value, one point per value', async () => {
    const { dir: runDir, run } = runs.sweep;
    const file = path.join(runDir, 'report.html');
    const opened = await open(browser, file, 'sweep.png');
    expectCleanPage(opened, file);
    expect(chart(opened, '-sweep-tps')).toMatchObject({ series: 2, points: run.sweep.length });
    expect(chart(opened, '-over-time').series).toBe(run.sweep.length);
    await opened.page.close();
  });

  it('txbench report over the results directories: one file, every run, the comparison bars', async () => {
    const out = path.join(dir, 'all.html');
    const r = txbench([
      'report',
      path.join(dir, 'results', 'single'),
      path.join(dir, 'results', 'steps'),
      path.join(dir, 'results', 'targets'),
      path.join(dir, 'results', 'sweep'),
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`report: ${out}`);
    const size = (await stat(out)).size;
    expect(size).toBeLessThan(500_000);
    const opened = await open(browser, out, 'all-runs.png');
    expectCleanPage(opened, out);
    const rows =
      1 + runs.steps.run.steps.length + runs.targets.run.targets.length + 1 + runs.sweep.run.sweep.length;
    expect(chart(opened, 'comparison-chart')).toMatchObject({ series: 2, points: rows });
    for (const { dir: runDir } of Object.values(runs)) {
      expect(await opened.page.locator(`section#run-${path.basename(runDir)}`).count()).toBe(1);
    }
    await opened.page.close();
  });

  it('a run killed mid-way (no run.json, a cut-short intervals.ndjson): draws what is there and says what is missing', async () => {
    const broken = path.join(dir, 'broken', 'run-killed');
    await mkdir(broken, { recursive: true });
    const lines = (await readFile(path.join(runs.single.dir, 'intervals.ndjson'), 'utf8'))
      .split('\n')
      .filter(Boolean);
    await writeFile(path.join(broken, 'intervals.ndjson'), lines.join('\n') + '\n' + lines[0]!.slice(0, 20));
    await copyFile(path.join(runs.single.dir, 'histograms.json'), path.join(broken, 'histograms.json'));
    const out = path.join(dir, 'broken.html');
    const r = txbench(['report', broken, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/run\.json: missing/);
    const opened = await open(browser, out, 'killed-run.png');
    expectCleanPage(opened, out);
    const alert = await opened.page.locator('.missing').innerText();
    expect(alert).toMatch(/run\.json: missing/);
    expect(alert).toMatch(/intervals\.ndjson: line \d+ is damaged/);
    expect(chart(opened, '-tps').points).toBe(runs.single.intervals.length);
    await opened.page.close();
  });

  it('an unreadable path: one line on stderr, exit 2', () => {
    const r = txbench(['report', path.join(dir, 'no-such-run')]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no-such-run: cannot read/);
  });

  it('live dashboard: at least three updates arrive while the run goes on, then the final report', async () => {
    const out = path.join(dir, 'live');
    // `--dashboard` alone: any free port, its URL on stderr.
    const args = ['run', '--db', withDatabase(pg.url, 'vm1'), '--label', 'vm1', '--dashboard'];
    const live = [
      '--warmup',
      '1s',
      '--duration',
      '8s',
      '--interval',
      '1s',
      '--think-scale',
      '0',
      '--terminals',
      '4',
    ];
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin/txbench.js'), ...args, ...live, '--out', out],
      {
        cwd: REPO_ROOT,
        env: cleanEnv(),
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const until = async (what: RegExp): Promise<RegExpExecArray> => {
      for (;;) {
        const match = what.exec(stderr);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`exited before ${what}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const url = (await until(/^dashboard: (http:\/\/127\.0\.0\.1:\d+\/)$/m))[1]!;
    await until(/^-- measure$/m);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(url);
    // Read together, in the page: updates may arrive between two separate reads.
    const state = () =>
      page.evaluate(() => ({
        updates: Number(document.body.dataset.updates ?? 0),
        points: Object.fromEntries(
          Array.from(document.querySelectorAll<HTMLElement>('[data-chart]')).map((el) => [
            el.dataset.chart!,
            Number(el.dataset.points ?? -1),
          ]),
        ),
        // Each chart's numbers toggle and table rows, redone with it.
        numbers: Object.fromEntries(
          Array.from(document.querySelectorAll<HTMLElement>('figure')).map((f) => [
            f.id,
            [
              f.querySelector('details.numbers summary')?.textContent ?? '',
              f.querySelectorAll('details.numbers tbody tr').length,
            ],
          ]),
        ),
      }));
    const atStart = await state();
    const tpsId = Object.keys(atStart.points).find((id) => id.endsWith('-tps'))!;
    // Three new intervals drawn (a page also gets the updates since it was drawn again, and skips them).
    await page.waitForFunction(
      ([id, n]) =>
        Number(document.querySelector<HTMLElement>(`[data-chart="${id}"]`)?.dataset.points) >= n + 3,
      [tpsId, atStart.points[tpsId]!] as const,
      { timeout: 60_000 },
    );
    const later = await state();
    const updates = later.updates - atStart.updates;
    expect(updates).toBeGreaterThanOrEqual(3);
    // Each update is a point on every chart over time, not only on the throughput chart (but a
    // sliver of an interval cut off by a phase change is not drawn).
    const grew = (suffix: RegExp): [string, number][] =>
      Object.entries(later.points)
        .filter(([id]) => suffix.test(id))
        .map(([id, n]) => [id, n - (atStart.points[id] ?? 0)]);
    const [[, throughput] = ['', 0]] = grew(/-tps$/);
    expect(throughput).toBeGreaterThanOrEqual(3);
    expect(throughput).toBeLessThanOrEqual(updates);
    for (const suffix of [/-response-newOrder$/, /-response-payment$/, /-cpu$/]) {
      expect(grew(suffix), `${suffix}`).toEqual([[expect.any(String), throughput]]);
    }
    // The disk charts too, when this machine's disks can be watched.
    for (const [id, growth] of grew(/-device-/)) expect(growth, id).toBe(throughput);
    // Their numbers beside them grew with them.
    for (const [id, points] of Object.entries(later.points)) {
      expect(later.numbers[id], id).toEqual([
        expect.stringMatching(new RegExp(` × ${points} points\\)$`)),
        points,
      ]);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-live.png'), fullPage: true });
    // The final report replaces the live page: run.json's cards, and no live connection.
    await page.waitForSelector('[data-card="tps"]', { timeout: 60_000 });
    expect(await exited).toBe(0);
    const final = await readRunDir(out);
    // With enough intervals the card carries the 95% half width of summary.ci95 beside the figure.
    const h = final.run.summary.ci95?.tps?.halfWidth ?? null;
    expect(await card(page, 'tps')).toEqual({
      label: 'TPS',
      value: h === null ? two(final.run.summary.tps) : `${two(final.run.summary.tps)} ± ${two(h)}`,
    });
    expect(await page.locator('#txbench-data').textContent()).not.toContain('"live"');
    expect(errors).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-final.png'), fullPage: true });
    await page.close();
  });

  it('--dashboard on a port in use: one line, exit 2, before anything starts', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    try {
      const out = path.join(dir, 'never');
      const r = txbench([
        'run',
        '--db',
        withDatabase(pg.url, 'vm1'),
        '--dashboard',
        String(port),
        '--out',
        out,
      ]);
      expect(r.status).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        `txbench run: cannot serve the dashboard: port ${port} on 127.0.0.1 is in use; choose another --dashboard PORT, or give --dashboard alone for any free port`,
      ]);
      expect(existsSync(out)).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

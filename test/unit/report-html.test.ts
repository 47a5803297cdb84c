/** The HTML report's pure parts: what each chart is made of, the cards, and reading damaged runs. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeHistogram, latencyMs, newHistogram, recordUs } from '../../src/metrics/histogram.js';
import {
  chartedIntervals,
  deviceCharts,
  distributionChart,
  DISTRIBUTION_PERCENTILES,
  hasInterval,
  phaseBands,
  responseCharts,
  stepsChart,
  targetsThroughputChart,
  timeSeriesCharts,
} from '../../src/report/html/charts.js';
import { loadRunDir, type IntervalRow, type LoadedRun } from '../../src/report/html/load.js';
import { reportInput } from '../../src/report/html/report.js';
import { percentileToX, xToPercentile } from '../../src/report/html/model.js';
import { summaryCards } from '../../src/report/html/sections.js';
import { stepsJson, targetsJson, writeRun } from './run-fixtures.js';
import { bandLabelLines } from '../../src/report/html/client/band-labels.js';

const row = (atS: number, phase: string, tps: number, extra: Partial<IntervalRow> = {}): IntervalRow => ({
  atS,
  phase,
  seconds: 5,
  tps,
  ...extra,
});

describe('HTML report charts', () => {
  it('shades warm-up as one band over adjacent intervals and nothing over the measured window', () => {
    const rows = [row(5, 'warmup', 1), row(10, 'warmup', 2), row(15, 'measure', 3)];
    expect(phaseBands(rows, { warmup: 'warm-up' })).toEqual([{ from: 0, to: 10, label: 'warm-up' }]);
  });

  it('leaves out the drain sliver but keeps a drain interval of a second or more', () => {
    const rows = [row(5, 'measure', 1), { ...row(5.02, 'drain', 900), seconds: 0.02 }, row(11, 'drain', 4)];
    expect(chartedIntervals(rows).map((r) => r.atS)).toEqual([5, 11]);
  });

  it('leaves out a sliver cut off by the end of the window, keeping short phases of real length', () => {
    const rows = [row(5, 'warmup', 1), { ...row(7, 'warmup', 1), seconds: 2 }, row(12, 'measure', 3)];
    rows.push({ ...row(12.01, 'measure', 0), seconds: 0.01 });
    expect(chartedIntervals(rows).map((r) => r.atS)).toEqual([5, 7, 12]);
  });

  it('draws each type its p50, p95 and p99 per interval, with a gap where the type did not run', () => {
    const t = (count: number, p50Ms: number, p95Ms: number, p99Ms: number) => ({
      count,
      errors: 0,
      avgMs: p50Ms,
      p50Ms,
      p90Ms: p95Ms,
      p95Ms,
      p99Ms,
    });
    const rows = [
      row(5, 'measure', 1, { perType: { newOrder: t(3, 10, 20, 30), delivery: t(1, 50, 60, 70) } }),
      row(10, 'measure', 1, { perType: { newOrder: t(0, 0, 0, 0), delivery: t(2, 51, 61, 71) } }),
      row(15, 'measure', 1, { perType: { newOrder: t(4, 11, 21, 31), stockLevel: t(0, 0, 0, 0) } }),
    ];
    const charts = responseCharts('r', rows, { newOrder: 'New-Order', delivery: 'Delivery' });
    expect(charts.map((c) => [c.id, c.title, c.y.label])).toEqual([
      [
        'r-newOrder',
        'New-Order response time over time (p50, p95 and p99 of each interval)',
        'response time (ms)',
      ],
      [
        'r-delivery',
        'Delivery response time over time (p50, p95 and p99 of each interval)',
        'response time (ms)',
      ],
    ]);
    expect(charts[0]!.series).toEqual([
      { label: 'p50', values: [10, null, 11] },
      { label: 'p95', values: [20, null, 21] },
      { label: 'p99', values: [30, null, 31] },
    ]);
    expect(charts[1]!.series.map((s) => s.values)).toEqual([
      [50, 51, null],
      [60, 61, null],
      [70, 71, null],
    ]);
  });

  it('a file from before interval percentiles: draws its avg and p90, and says so', () => {
    const rows = [
      row(5, 'measure', 1, { perType: { newOrder: { count: 3, errors: 0, avgMs: 10, p90Ms: 20 } } }),
      row(10, 'measure', 1, { perType: { newOrder: { count: 0, errors: 0, avgMs: 0, p90Ms: 0 } } }),
      row(15, 'measure', 1, { perType: { delivery: { count: 0, errors: 0, avgMs: 0, p90Ms: 0 } } }),
    ];
    const [chart, ...others] = responseCharts('r', rows, { newOrder: 'New-Order' });
    expect(others).toEqual([]);
    expect(chart!.title).toBe(
      'New-Order response time over time (average and p90 of each interval; this run predates interval p50/p95/p99)',
    );
    expect(chart!.series).toEqual([
      { label: 'avg', values: [10, null, null] },
      { label: 'p90', values: [20, null, null] },
    ]);
  });

  it('reads each percentile from the HDR histogram, 50% to 99.999% on the log axis', () => {
    const h = newHistogram();
    for (let i = 1; i <= 10_000; i++) recordUs(h, i * 100);
    const chart = distributionChart('d', { newOrder: encodeHistogram(h) }, { newOrder: 'New-Order' });
    expect(DISTRIBUTION_PERCENTILES[0]).toBe(50);
    expect(DISTRIBUTION_PERCENTILES.at(-1)).toBe(99.999);
    expect(chart.x.values[0]).toBeCloseTo(Math.log10(2));
    expect(chart.x.values.at(-1)).toBeCloseTo(5);
    const values = chart.series[0]!.values as number[];
    expect(values[0]).toBeCloseTo(latencyMs(h).p50, 0);
    expect(values.every((v, i) => i === 0 || v >= values[i - 1]!)).toBe(true);
    // A decoded histogram knows its maximum to its precision (3 significant digits).
    expect(values.at(-1)).toBeLessThanOrEqual((h.maxValue / 1000) * 1.001);
    expect(xToPercentile(percentileToX(99.9))).toBeCloseTo(99.9);
  });

  it('adds several targets interval by interval, leaving the sum out where one target is missing', () => {
    const rows = [
      row(5, 'measure', 10, { target: 'a' }),
      row(5.2, 'measure', 20, { target: 'b' }),
      row(10, 'measure', 11, { target: 'a' }),
    ];
    const chart = targetsThroughputChart('t', rows, ['a', 'b']);
    expect(chart.x.values).toEqual([5.1, 10]);
    expect(chart.series).toEqual([
      { label: 'a', values: [10, 11] },
      { label: 'b', values: [20, null] },
      { label: 'sum', values: [30, null] },
    ]);
  });

  it('charts each disk read and write, and nothing without disks', () => {
    const device = {
      name: 'vda',
      role: 'data+log',
      readIops: 1,
      writeIops: 2,
      readMBps: 3,
      writeMBps: 4,
      readLatencyMs: null,
      writeLatencyMs: 0.5,
      queueDepth: 1.5,
    };
    const charts = deviceCharts('d', [row(5, 'measure', 1, { devices: [device] }), row(10, 'measure', 1)]);
    expect(charts.map((c) => c.y.label)).toEqual([
      'IOPS',
      'MB/s',
      'ms per I/O',
      'average requests in flight',
    ]);
    expect(charts[2]!.series).toEqual([
      { label: 'vda (data+log) read', values: [null, null] },
      { label: 'vda (data+log) write', values: [0.5, null] },
    ]);
    expect(deviceCharts('d', [row(5, 'measure', 1, { devices: [] })])).toEqual([]);
  });

  it('marks the knee on the steps chart', () => {
    const chart = stepsChart('s', [{ users: 1, tps: 10, avgMs: 1 }], 1);
    expect(chart.marks).toEqual([{ x: 1, label: 'knee: 1 users' }]);
    expect(stepsChart('s', [], undefined).marks).toEqual([]);
  });
});

describe('HTML report cards', () => {
  const summary = {
    tps: 343.216,
    tpmC: 8903.7,
    nopm: 8838.4,
    tpm: 20004,
    errors: 2,
    responseMs: { avg: 57.499, p99: 272.127 },
    clientCpu: { coresUsed: 0.221, usPerTransaction: 644.9 },
  };
  const transactions = { newOrder: { rollbacks: 5 }, payment: {} };

  it('names the New-Order rate tpmC only when paced with a standard mix', () => {
    const value = (cards: ReturnType<typeof summaryCards>, key: string) => cards.find((c) => c.key === key);
    const unpaced = summaryCards(summary, { thinkScale: 0 }, transactions);
    expect(value(unpaced, 'tpmC')).toEqual({
      key: 'tpmC',
      label: 'New-Orders/min (unpaced)',
      value: '8,903',
    });
    expect(value(summaryCards(summary, { thinkScale: 1 }, transactions), 'tpmC')?.label).toBe('tpmC');
    // A `targets` run's sum: its targets' pacing when they agree, 'not recorded' when they differ.
    const targets = (...scales: number[]) => ({ targets: scales.map((thinkScale) => ({ thinkScale })) });
    expect(value(summaryCards(summary, targets(0.25, 0.25), transactions), 'tpmC')?.label).toBe(
      'New-Orders/min (paced ×0.25)',
    );
    expect(value(summaryCards(summary, targets(0.25, 1), transactions), 'tpmC')?.label).toBe(
      'New-Orders/min (pacing not recorded)',
    );
    expect(value(summaryCards(summary, { thinkScale: 0.25 }, transactions), 'tpmC')?.label).toBe(
      'New-Orders/min (paced ×0.25)',
    );
    expect(unpaced.map((c) => c.value)).toEqual([
      '343.22',
      '8,903',
      '8,838',
      '20,004',
      '57.5',
      '272',
      '5',
      '2',
      '0.22 cores, 645 µs/tx',
    ]);
  });
});

describe("another workload's cards and disclaimer", () => {
  it('a sysbench summary gives QPS and its parts, and no New-Order rate, NOPM or rollbacks', () => {
    const summary = {
      tps: 300,
      tpm: 18000,
      errors: 0,
      responseMs: { avg: 3, p99: 9 },
      figures: [
        { key: 'qps', label: 'QPS', value: 6000, unit: 'queries/s' },
        { key: 'readsPerSecond', label: 'reads/s', value: 4200, unit: 'queries/s' },
      ],
    };
    const cards = summaryCards(summary, { thinkScale: 0 }, { transaction: { count: 10 } });
    expect(cards.map((c) => c.label)).toEqual([
      'TPS',
      'QPS',
      'reads/s',
      'TPM',
      'avg response ms',
      'p99 response ms',
      'errors',
      'txbench CPU',
    ]);
    expect(cards.find((c) => c.key === 'qps')?.value).toBe('6,000');
  });

  it("the page carries each run's own disclaimer once, the TPC-C one for files that do not say", () => {
    const loaded = (id: string, disclaimer?: string): LoadedRun => ({
      id,
      dir: id,
      record: undefined,
      raw: disclaimer === undefined ? {} : { disclaimer },
      intervals: [],
      histograms: undefined,
      missing: [],
    });
    const input = reportInput([loaded('a', 'Not sysbench.'), loaded('b', 'Not sysbench.'), loaded('c')]);
    expect(input.disclaimers).toEqual([
      'Not sysbench.',
      'The workload is derived from TPC-C and is not comparable with published TPC-C results.',
    ]);
  });
});

describe('the differences between runs', () => {
  it('says why a row without a 95% interval gets n/a verdicts', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-report-'));
    try {
      const steps = stepsJson('pg', [
        { terminals: 1, tps: 10 },
        { terminals: 20, tps: 90 },
      ]);
      // The 20-user step's window had enough intervals for a ±; the 1-user step's too few.
      const ci = (mean: number, halfWidth: number | null) => ({ mean, halfWidth, n: 6, batchSize: 1 });
      const [one, twenty] = steps.steps as { summary: Record<string, unknown> }[];
      twenty!.summary.ci95 = { method: 'batch-means', intervals: 6, tps: ci(90, 4) };
      one!.summary.ci95 = { method: 'batch-means', intervals: 3, tps: ci(10, null) };
      // With a costs file (as a plan's report has) one run's rows are compared too.
      const input = reportInput([await loadRunDir(await writeRun(dir, 'run-1', steps))], new Map());
      expect(input.comparison!.warnings.filter((w) => w.startsWith('no 95%'))).toEqual([
        expect.stringMatching(
          /^no 95% interval for pg @ 1 user: a window of fewer than 5 measured intervals/,
        ),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a sum over targets: says it has no interval of its own, not that its window was short', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-report-'));
    try {
      const run = targetsJson([{ target: 'a' }, { target: 'b' }]);
      const ci = {
        method: 'batch-means',
        intervals: 6,
        tps: { mean: 100, halfWidth: 3, n: 6, batchSize: 1 },
      };
      for (const t of run.targets as { summary: Record<string, unknown> }[]) t.summary.ci95 = ci;
      const input = reportInput([await loadRunDir(await writeRun(dir, 'run-1', run))], new Map());
      expect(input.comparison!.warnings.filter((w) => w.startsWith('no 95%'))).toEqual([
        "no 95% interval for a + b (sum): a sum over several targets has none of its own (each target's row has its own), so its verdicts are n/a",
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('reading a damaged run directory', () => {
  it('keeps the intact intervals and names what is missing', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-report-'));
    try {
      await writeFile(
        path.join(dir, 'intervals.ndjson'),
        JSON.stringify(row(5, 'measure', 12)) + '\n{"atS": 10, "pha',
      );
      const run = await loadRunDir(dir);
      expect(run.record).toBeUndefined();
      expect(run.intervals.map((r) => r.tps)).toEqual([12]);
      expect(run.missing.join('\n')).toMatch(/run\.json: missing/);
      expect(run.missing.join('\n')).toMatch(/intervals\.ndjson: line 2 is damaged/);
      expect(run.missing.join('\n')).toMatch(/histograms\.json: missing/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('charts over time of a section (what the live page redraws)', () => {
  const host = { cpuUserPct: 1, cpuSystemPct: 2, cpuIowaitPct: 0, cpuStealPct: 0, txbenchCpuPct: 5 };
  const names = { newOrder: 'New-Order' };

  it('several targets: the throughput of each and the sum, and each target its own CPU chart', () => {
    const rows = [
      row(5, 'measure', 10, { target: 'vm1', host }),
      row(5.1, 'measure', 20, { target: 'vm2', host: { ...host, cpuUserPct: 9 } }),
      row(10, 'measure', 11, { target: 'vm1', host }),
    ];
    const { head, monitor } = timeSeriesCharts('run-x', { kind: 'targets', names, labels: [], rows });
    expect(head.map((c) => [c.id, c.series.map((s) => s.label)])).toEqual([
      ['run-x-tps', ['vm1', 'vm2', 'sum']],
    ]);
    expect(monitor.map((c) => [c.id, c.title, c.x.values.length])).toEqual([
      ['run-x-t1-cpu', 'Host CPU: vm1', 2],
      ['run-x-t2-cpu', 'Host CPU: vm2', 1],
    ]);
    expect(monitor[1]!.series[0]!.values).toEqual([9]);
  });

  it('steps: each user count over its own time, no sum; a single run: throughput and a chart per type', () => {
    const steps = timeSeriesCharts('s', {
      kind: 'steps',
      names,
      labels: ['1 users', '4 users'],
      rows: [row(5, 'measure', 10, { target: '1 users' }), row(5, 'measure', 30, { target: '4 users' })],
    });
    expect(steps.head.map((c) => c.series)).toEqual([
      [
        { label: '1 users', values: [10] },
        { label: '4 users', values: [30] },
      ],
    ]);
    const perType = { newOrder: { count: 1, p50Ms: 1, p95Ms: 2, p99Ms: 3 } };
    const run = timeSeriesCharts('r', {
      kind: 'run',
      names,
      labels: [],
      rows: [row(5, 'measure', 1, { perType })],
    });
    expect(run.head.map((c) => c.id)).toEqual(['r-tps', 'r-response-newOrder']);
    expect(run.monitor).toEqual([]);
  });
});

describe('a run with a precondition (two engine runs, each counting from its own start)', () => {
  const names = { newOrder: 'New-Order' };
  // Preconditioning 10 s, then warm-up 5 s and a window of 10 s, as intervals.ndjson has them.
  const rounds = (target?: string): IntervalRow[] =>
    [
      row(5, 'precondition', 10),
      row(10, 'precondition', 11),
      { ...row(10.01, 'drain', 0), seconds: 0.01 },
      row(5, 'warmup', 12),
      row(10, 'measure', 13),
      row(15, 'measure', 14),
    ].map((r) => (target === undefined ? r : { ...r, target }));

  it('several targets: one sum line from start to end, and the warm-up shaded after the preconditioning', () => {
    const rows = [...rounds('a'), ...rounds('b')];
    const { head } = timeSeriesCharts('r', { kind: 'targets', names, labels: ['a', 'b'], rows });
    const chart = head[0]!;
    // The second engine run starts where the first's last interval (its drain) ended.
    expect(chart.x.values).toEqual([5, 10, 15.01, 20.01, 25.01]);
    expect(chart.series.find((s) => s.label === 'sum')!.values).toEqual([20, 22, 24, 26, 28]);
    expect(chart.bands).toEqual([
      { from: 0, to: 10, label: 'preconditioning' },
      { from: 10.01, to: 15.01, label: 'warm-up' },
    ]);
  });

  it('a single run: its throughput over one clock', () => {
    const { head } = timeSeriesCharts('r', { kind: 'run', names, labels: [], rows: rounds() });
    expect(head[0]!.x.values).toEqual([5, 10, 15.01, 20.01, 25.01]);
    expect(head[0]!.bands!.map((b) => [b.from, b.to])).toEqual([
      [0, 10],
      [10.01, 15.01],
    ]);
  });

  it('the live page takes the second engine run as new, and an interval sent again as one it has', () => {
    const page = rounds().slice(0, 3);
    expect(hasInterval(page, row(5, 'warmup', 12))).toBe(false);
    expect(hasInterval(page, row(10, 'precondition', 11))).toBe(true);
  });
});

describe('the shaded phases’ names', () => {
  it('go down a line where the one before would overlap, and back up where there is room', () => {
    const lineOf = bandLabelLines();
    expect([lineOf(0, 100), lineOf(40, 60), lineOf(120, 50), lineOf(130, 10)]).toEqual([0, 1, 0, 1]);
  });
});

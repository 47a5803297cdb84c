import { describe, expect, it } from 'vitest';
import { windowNoise, type NoiseInterval } from '../../src/metrics/window-noise.js';
import { difference, noNoiseLine } from '../../src/report/verdict.js';
import { formatRunSummary } from '../../src/report/run-summary.js';
import type { RunReport } from '../../src/results/run-file.js';
import { device, runJson } from './run-fixtures.js';

/** A measured interval of 10 s: TPS, New-Orders/min, one type's times, one disk's latencies. */
function interval(tps: number, more: Partial<NoiseInterval> = {}): NoiseInterval {
  return {
    seconds: 10,
    tps,
    tpmC: tps * 27,
    perType: { newOrder: { count: tps * 10, avgMs: tps / 10, p99Ms: tps / 2 } },
    responseMs: { avg: tps / 10, p99: tps / 2 },
    devices: [{ name: 'vda', role: 'data', readLatencyMs: 0.2, writeLatencyMs: tps / 1000 }],
    ...more,
  };
}

const ALTERNATING = [100, 110, 95, 105, 100, 102, 98, 104, 96];

describe('the noise of a window (batch means over its intervals)', () => {
  it('gives every headline figure a mean and a half width from nine intervals', () => {
    const noise = windowNoise(
      ALTERNATING.map((t) => interval(t)),
      ['tpmC', 'nopm'],
    );
    expect(noise.intervals).toBe(9);
    expect(noise.tps?.mean).toBeCloseTo(101.1, 1);
    expect(noise.tps?.halfWidth).toBeGreaterThan(0);
    expect(noise.tps?.n).toBe(9);
    expect(noise.figures.tpmC?.halfWidth).toBeCloseTo(27 * noise.tps!.halfWidth!, 0);
    // A figure the intervals do not carry (NOPM is read from the database once) has none.
    expect(noise.figures.nopm).toBeUndefined();
    expect(noise.responseMs.avg?.halfWidth).toBeGreaterThan(0);
    expect(noise.transactions.newOrder?.p99?.halfWidth).toBeGreaterThan(0);
    // A constant figure has no noise at all.
    expect(noise.devices).toEqual([
      expect.objectContaining({
        name: 'vda',
        readLatencyMs: { mean: 0.2, halfWidth: 0, n: 9, batchSize: 1 },
      }),
    ]);
  });

  it('leaves out the sliver a phase change cuts off, and a type in the intervals it completed nothing', () => {
    const rows = [
      ...ALTERNATING.map((t) => interval(t)),
      interval(5000, { seconds: 0.01 }),
      interval(100, { perType: { newOrder: { count: 0, avgMs: 0, p99Ms: 0 } } }),
    ];
    const noise = windowNoise(rows, []);
    expect(noise.intervals).toBe(10);
    expect(noise.tps?.mean).toBeLessThan(110);
    expect(noise.transactions.newOrder?.avg?.n).toBe(9);
  });

  it('has no half width below five intervals, and nothing at all without intervals', () => {
    const noise = windowNoise(
      [100, 120, 90].map((t) => interval(t)),
      ['tpmC'],
    );
    expect(noise.tps).toMatchObject({ halfWidth: null, n: 3 });
    expect(windowNoise([], []).tps).toBeNull();
  });

  it('takes all types’ average from each type’s when an interval has no overall figure (older files)', () => {
    const rows = ALTERNATING.map((t) =>
      interval(t, {
        responseMs: undefined,
        perType: { a: { count: 1, avgMs: 10 }, b: { count: 3, avgMs: 30 } },
      }),
    );
    expect(windowNoise(rows, []).responseMs.avg?.mean).toBe(25);
    expect(windowNoise(rows, []).responseMs.p99).toBeNull();
  });
});

describe('verdicts', () => {
  it('no difference detected when the interval of the difference holds zero', () => {
    expect(difference({ value: 105, halfWidth: 4 }, { value: 100, halfWidth: 3 }, true)).toEqual({
      delta: 5,
      halfWidth: 5,
      verdict: 'no difference detected',
    });
  });

  it('faster or slower beyond it; for a response time lower is faster', () => {
    expect(difference({ value: 110, halfWidth: 3 }, { value: 100, halfWidth: 4 }, true).verdict).toBe(
      'faster',
    );
    expect(difference({ value: 90, halfWidth: 3 }, { value: 100, halfWidth: 4 }, true).verdict).toBe(
      'slower',
    );
    expect(difference({ value: 90, halfWidth: 3 }, { value: 100, halfWidth: 4 }, false).verdict).toBe(
      'faster',
    );
    expect(difference({ value: 110, halfWidth: 3 }, { value: 100, halfWidth: 4 }, false).verdict).toBe(
      'slower',
    );
  });

  it('n/a, not an error, when a run has no interval or no figure', () => {
    expect(difference({ value: 110, halfWidth: null }, { value: 100, halfWidth: 4 }, true)).toEqual({
      delta: 10,
      halfWidth: null,
      verdict: 'n/a',
    });
    expect(difference({ value: null, halfWidth: 1 }, { value: 100, halfWidth: 4 }, true).verdict).toBe('n/a');
  });

  it('one line names the figures on which every row is within noise', () => {
    expect(
      noNoiseLine([
        { name: 'TPS', verdicts: ['no difference detected', 'no difference detected'] },
        { name: 'New-Order rate', verdicts: ['no difference detected', 'no difference detected'] },
        { name: 'p99 response ms', verdicts: ['no difference detected', 'no difference detected'] },
      ]),
    ).toBe('No difference beyond noise between these runs on TPS, New-Order rate and p99 response ms');
    expect(noNoiseLine([{ name: 'TPS', verdicts: ['no difference detected', 'faster'] }])).toBeUndefined();
    expect(noNoiseLine([{ name: 'TPS', verdicts: ['n/a'] }])).toBeUndefined();
  });
});

describe('the run summary prints each figure with its ±', () => {
  const ci = (mean: number, halfWidth: number | null): Record<string, unknown> => ({
    mean,
    halfWidth,
    n: 9,
    batchSize: 1,
  });
  const withNoise = (h: number | null): RunReport => {
    const report = runJson({
      tps: 1638.2,
      tpmC: 43000,
      avg: 12.3,
      p99: 45,
      devices: [device('vda', 'data')],
    });
    (report.summary as Record<string, unknown>).ci95 = {
      method: 'batch-means',
      intervals: h === null ? 3 : 9,
      tps: ci(1638, h === null ? null : 41.04),
      figures: { tpmC: ci(43000, h === null ? null : 1100) },
      responseMs: { avg: ci(12.3, h === null ? null : 0.81), p99: ci(45, h === null ? null : 3.2) },
      transactions: {
        newOrder: { avg: ci(5, h === null ? null : 0.42), p99: ci(20, h === null ? null : 2.5) },
      },
      devices: [
        { name: 'vda', role: 'data', readLatencyMs: ci(0.5, h === null ? null : 0.05), writeLatencyMs: null },
      ],
    };
    return report as unknown as RunReport;
  };

  it('beside TPS, the New-Order rate, response times per type and overall, and device latency', () => {
    const text = formatRunSummary(withNoise(1));
    expect(text).toContain('New-Orders/min (unpaced) 43,000 ± 1,100');
    expect(text).toContain('TPS 1,638.20 ± 41.04');
    expect(text).toContain('response ms: avg 12.3 ± 0.81');
    expect(text).toContain('p99 45.0 ± 3.20');
    expect(text).toMatch(/New-Order .* 5\.00 ± 0\.42 .* 20\.0 ± 2\.50/);
    expect(text).toMatch(/latency avg r [\d.]+ ± 0\.05 \/ w /);
    expect(text).toContain(
      "95% confidence interval from the window's 9 intervals (batch means, 9 batches of 1)",
    );
    expect(text).not.toContain('too few intervals');
  });

  it('no ± with too few intervals, and says so once', () => {
    const parts = formatRunSummary(withNoise(null)).split('(too few intervals for ±)');
    expect(parts.length).toBe(2);
    expect(parts.join('')).not.toContain('±');
  });

  it('a run.json from before ci95 prints as before', () => {
    const text = formatRunSummary(runJson() as unknown as RunReport);
    expect(text).not.toContain('±');
    expect(text).not.toContain('too few intervals');
  });
});

describe('the HTML report', () => {
  it('shows each headline card with its ±', async () => {
    const { summaryCards } = await import('../../src/report/html/sections.js');
    const s = runJson({ tps: 1638.2, avg: 12.3, p99: 45 }).summary as Record<string, unknown>;
    s.ci95 = {
      tps: { mean: 1638, halfWidth: 41.04, n: 9, batchSize: 1 },
      figures: {},
      responseMs: { avg: { mean: 12, halfWidth: 0.81, n: 9, batchSize: 1 }, p99: null },
    };
    const cards = Object.fromEntries(summaryCards(s, undefined, undefined).map((c) => [c.key, c.value]));
    expect(cards.tps).toBe('1,638.20 ± 41.04');
    expect(cards.avg).toBe('12.3 ± 0.81');
    expect(cards.p99).toBe('45.0');
  });
});

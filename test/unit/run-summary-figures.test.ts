/** The text report prints txbench's CPU once, and says when the drain gave up. */
import { describe, expect, it } from 'vitest';
import type { DrainReport } from '../../src/engine/engine-result.js';
import type { ClientCpu } from '../../src/metrics/client-cpu.js';
import { drainWarning, formatRunSummary, formatTargetsTable } from '../../src/report/run-summary.js';
import { aggregate } from '../../src/run/aggregate.js';
import type { RunReport } from '../../src/results/run-file.js';

const NO_DRAIN: DrainReport = { limitMs: 30_000, queued: 0, inFlight: 0, abandoned: 0, oldestAgeMs: null };
const latency = { avg: 5, p50: 4, p90: 9, p95: 11, p99: 20, max: 50 };

function report(target: string, clientCpu: ClientCpu | null, drain = NO_DRAIN): RunReport {
  return {
    status: drain.inFlight > 0 ? 'incomplete-drain' : 'completed',
    disclaimer: 'derived from TPC-C',
    config: { target },
    environment: { device: { kind: 'remote', reason: 'the server is on 192.0.2.10' } },
    summary: {
      windowSeconds: 60,
      transactions: 6000,
      tps: 100,
      tpmC: 2600,
      nopm: null,
      tpm: null,
      responseMs: latency,
      ceilingTpmC: null,
      efficiencyPct: null,
      errors: 0,
      retries: 0,
      clientCpu,
      schedulerLatenessMs: { p50: 0.1, p99: 0.5, max: 2 },
    },
    drain,
    transactions: {},
    audit: {
      checks: [],
      pass: true,
      wholeRun: { newOrdersCommitted: 0, ordersAddedInDatabase: null, match: null },
    },
    errors: {},
    histograms: {},
  } as unknown as RunReport;
}

const cores = (text: string): number => text.match(/cores/g)?.length ?? 0;

describe('txbench CPU in the text report', () => {
  it('several targets: the process CPU once, not once per target', () => {
    const reports = [report('a', null), report('b', null), report('c', null)];
    const sum = aggregate(reports, { userUs: 3_000_000, systemUs: 600_000, seconds: 60 });
    const text = formatTargetsTable(reports, sum);
    expect(cores(text)).toBe(1);
    // 3.6 s over 60 s, and 200 µs per transaction of the 18,000.
    expect(text).toContain('0.06 cores, 200 µs CPU per transaction');
  });

  it('one target: its own figure', () => {
    const text = formatRunSummary(
      report('a', { userS: 3, systemS: 0.6, coresUsed: 0.06, usPerTransaction: 600 }),
    );
    expect(cores(text)).toBe(1);
    expect(text).toContain('0.06 cores, 600 µs CPU per transaction');
  });
});

describe('an incomplete drain in the text report', () => {
  const stuck: DrainReport = { limitMs: 30_000, queued: 7, inFlight: 2, abandoned: 9, oldestAgeMs: 31_500 };

  it('one warning line with the counts and the oldest age', () => {
    const text = formatRunSummary(report('a', null, stuck));
    const warnings = text.split('\n').filter((l) => l.includes('WARNING'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(drainWarning(stuck));
    expect(drainWarning(stuck)).toMatch(/after 30s with 2 transactions still running and 7 never started/);
    expect(drainWarning(stuck)).toContain('32s');
    expect(text).toContain('INCOMPLETE-DRAIN');
  });

  it('no warning when the drain finished', () => {
    expect(formatRunSummary(report('a', null))).not.toContain('WARNING');
  });

  it('several targets: a warning for the target whose drain gave up', () => {
    const reports = [report('a', null), report('b', null, stuck)];
    const text = formatTargetsTable(reports, aggregate(reports, null));
    expect(text.split('\n').filter((l) => l.includes('WARNING'))).toEqual([
      `WARNING b: ${drainWarning(stuck)}`,
    ]);
  });
});

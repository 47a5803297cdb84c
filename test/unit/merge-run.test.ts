import { describe, expect, it } from 'vitest';
import { decodeHistogram, encodeHistogram, newHistogram, recordUs } from '../../src/metrics/histogram.js';
import type { ShardFile } from '../../src/run/merge-files.js';
import { mergeShardReports } from '../../src/run/merge-run.js';
import { mergeShardFiles } from '../../src/run/merge-shards.js';
import { checkShardSet, type ShardRun } from '../../src/run/shard-merge.js';
import { UsageError } from '../../src/errors.js';
import { formatRunSummary } from '../../src/report/run-summary.js';
import { rowsFromRun } from '../../src/report/compare-rows.js';
import type { RunRecord } from '../../src/results/store.js';
import type { RunReport } from '../../src/results/run-file.js';
import { workload as tpcc } from '../../src/workloads/tpcc/workload.js';
import type { Workload } from '../../src/workloads/workload.js';

/** Five types, as TPC-C's audit expects; every transaction is of the first. */
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4'];
const START = Date.parse('2026-12-01T22:30:00Z');

/** A shard with `n` transactions of type a, each taking `ms`, and the database readings given. */
function shard(
  index: number,
  n: number,
  ms: number,
  ids: { start: number; end: number; committed?: number },
): ShardRun {
  const h = newHistogram();
  for (let i = 0; i < n; i++) recordUs(h, ms * 1000);
  const report = {
    schemaVersion: 3,
    kind: 'run',
    tool: { name: 'txbench', version: 'test' },
    workload: 'tpcc',
    disclaimer: 'd',
    status: 'completed',
    startedAt: new Date(START - 2000 + index).toISOString(),
    endedAt: new Date(START + 12_000 + index).toISOString(),
    config: {
      target: 'db',
      workload: 'tpcc',
      workloadOptions: {},
      warehouses: 1,
      seed: 1,
      deck: [10, 10, 1, 1, 1],
      thinkScale: 0,
      terminals: 2,
      connections: 2,
      warmupS: 1,
      durationS: 10,
      intervalS: 10,
      typeNames: Object.fromEntries(KEYS.map((k) => [k, k])),
      shard: {
        index,
        count: 2,
        firstTerminal: 2 * (index - 1),
        terminals: 2,
        totalTerminals: 4,
        host: `h${index}`,
        startAt: null,
        clockOffsetMs: index,
      },
    },
    environment: {},
    summary: {
      windowSeconds: 10,
      transactions: n,
      tps: n / 10,
      tpm: 600 * index,
      nopm: 111 * index,
      tpmC: 60 * index,
      errors: 1,
      retries: 0,
      clientCpu: null,
      schedulerLatenessMs: { p50: index, p99: 2 * index, max: 3 * index },
      windowStartedAt: new Date(START + 10 * index).toISOString(),
      windowEndedAt: new Date(START + 10_000 + 10 * index).toISOString(),
      figures: [{ key: 'tps', label: 'TPS', value: n / 10, unit: 'transactions/s' }],
    },
    drain: { limitMs: 30_000, queued: 1, inFlight: 0, abandoned: 1, oldestAgeMs: null },
    outages: [],
    faults: {
      onError: 'continue',
      txnTimeoutS: 60,
      reconnects: 0,
      reconnectFailures: 0,
      cancelled: 0,
      abandoned: 0,
      failed: 1,
      errorRatePct: 0,
      exceeded: null,
    },
    transactions: Object.fromEntries(
      KEYS.map((k, i) => [
        k,
        {
          name: k,
          count: i === 0 ? n : 0,
          errors: i === 0 ? 1 : 0,
          retries: 0,
          mixPct: 0,
          responseMs: {},
          rollbacks: i === 0 ? index : 0,
        },
      ]),
    ),
    audit: { checks: [], pass: true },
    errors: { conflict: 1 },
    intervals: [],
    histograms: Object.fromEntries(KEYS.map((k, i) => [k, encodeHistogram(i === 0 ? h : newHistogram())])),
    shardBasis: {
      windowSeconds: 10,
      counters: { newOrderRollbacks: index, orderLines: 10 * n },
      runTallies: { committedNewOrders: ids.committed ?? ids.end - ids.start, newOrdersInDoubt: 0 },
      windowCounters: { start: { nextOrderIds: ids.start + 1 }, end: { nextOrderIds: ids.end - 1 } },
      audit: { nextOrderIdsAtStart: ids.start, nextOrderIdsAtEnd: ids.end },
    },
  } as unknown as RunReport;
  return { dir: `s${index}`, report };
}

describe('mergeShardReports', () => {
  const set = checkShardSet(
    [shard(2, 30, 20, { start: 101, end: 131 }), shard(1, 40, 10, { start: 100, end: 140 })],
    false,
  );

  it('adds counts and histograms, and takes the database counters from shard 1 only', () => {
    const merged = mergeShardReports(set, tpcc as unknown as Workload);
    expect(merged.summary.transactions).toBe(70);
    expect(merged.transactions.k0!.count).toBe(70);
    expect(merged.transactions.k0!.errors).toBe(2);
    expect(merged.transactions.k0!.rollbacks).toBe(3);
    expect(decodeHistogram(merged.histograms.k0!).totalCount).toBe(70);
    // 40 at 10 ms and 30 at 20 ms: the median is 10 ms, the 90th percentile 20 ms.
    expect(merged.transactions.k0!.responseMs.p50).toBeCloseTo(10, 1);
    expect(merged.transactions.k0!.responseMs.p90).toBeCloseTo(20, 1);
    expect(merged.summary.tps).toBe(7);
    expect(merged.summary.tpm).toBe(600);
    // NOPM from shard 1's readings at its window's edges (139 - 101 over 10 s), not summed.
    expect(merged.summary.nopm).toBe(228);
    expect(merged.summary.tpmC).toBe(180);
    expect(merged.summary.schedulerLatenessMs).toEqual({ p50: 2, p99: 4, max: 6 });
    expect(merged.config.terminals).toBe(4);
    expect(merged.config.mergedFrom).toMatchObject([
      { index: 1, host: 'h1', clockOffsetMs: 1 },
      { index: 2 },
    ]);
    expect(merged.errors).toEqual({ conflict: 2 });
    expect(merged.drain.abandoned).toBe(2);
  });

  it('reconciles the New-Orders of every shard with the orders the database gained over all of them', () => {
    // Together: shard 1 read 100 before the common start and 170 after its drain, shard 2 100 and
    // 168 (it drained first); they committed 40 and 30: the database gained 70, all theirs.
    const together = checkShardSet(
      [
        shard(1, 40, 10, { start: 100, end: 170, committed: 40 }),
        shard(2, 30, 20, { start: 100, end: 168, committed: 30 }),
      ],
      false,
    );
    expect(mergeShardReports(together, tpcc as unknown as Workload).audit.wholeRun).toMatchObject({
      newOrdersCommitted: 70,
      ordersAddedInDatabase: 70,
      match: true,
    });
    // The shards claim 70 New-Orders, the database gained 40: a mismatch.
    const whole = mergeShardReports(set, tpcc as unknown as Workload).audit.wholeRun;
    expect(whole).toMatchObject({ newOrdersCommitted: 70, ordersAddedInDatabase: 40, match: false });
  });

  it('ends as the gravest of its shards, as merged worker threads do, and names every abandoned terminal', () => {
    // Shard 1 gave up on its drain; shard 2 lost its database: the merged run lost it too.
    const [one, two] = [
      shard(1, 40, 10, { start: 100, end: 140 }),
      shard(2, 30, 20, { start: 101, end: 131 }),
    ];
    const ended = (s: ShardRun, status: string, drain: object, failure?: string): ShardRun => ({
      ...s,
      report: { ...s.report, status, drain, ...(failure === undefined ? {} : { failure }) } as RunReport,
    });
    const merged = mergeShardReports(
      checkShardSet(
        [
          ended(one, 'incomplete-drain', {
            limitMs: 30_000,
            queued: 0,
            inFlight: 1,
            abandoned: 1,
            oldestAgeMs: 31_000,
            terminals: [1],
          }),
          ended(
            two,
            'failed',
            { limitMs: 5000, queued: 2, inFlight: 1, abandoned: 3, oldestAgeMs: 6000, terminals: [2] },
            'lost the database connection: terminated',
          ),
        ],
        false,
      ),
      undefined,
    );
    expect(merged.status).toBe('failed');
    expect(merged.failure).toBe('lost the database connection: terminated');
    expect(merged.drain).toEqual({
      limitMs: 30_000,
      queued: 2,
      inFlight: 2,
      abandoned: 4,
      oldestAgeMs: 31_000,
      terminals: [1, 2],
    });
  });

  it('without the workload’s own merge, sums the headline figures and runs no checks', () => {
    const merged = mergeShardReports(set, undefined);
    expect(merged.summary.figures).toEqual([{ key: 'tps', label: 'TPS', value: 7, unit: 'transactions/s' }]);
    expect(merged.audit.checks).toEqual([]);
    expect(merged.audit.pass).toBe(true);
  });
});

describe('a shard whose histograms do not hold its transactions', () => {
  /** Shard 2 as read without its histograms.json (merge-files.ts says why). */
  const bare = (): ShardRun => {
    const s = shard(2, 30, 20, { start: 101, end: 131 });
    return { ...s, report: { ...s.report, histograms: {} }, histogramsUnread: 'no histograms.json' };
  };
  /** Shard 2 whose k0 histogram holds 10 response times for its 30 transactions. */
  const short = (): ShardRun => {
    const s = shard(2, 30, 20, { start: 101, end: 131 });
    const h = newHistogram();
    for (let i = 0; i < 10; i++) recordUs(h, 20_000);
    return { ...s, report: { ...s.report, histograms: { ...s.report.histograms, k0: encodeHistogram(h) } } };
  };
  const one = (): ShardRun => shard(1, 40, 10, { start: 100, end: 140 });

  it('is refused with one line naming the shard, unless --allow-partial', () => {
    for (const [gap, why] of [
      [
        bare(),
        /shard 2 \(s2\): no histograms\.json, so its 30 k0 transactions would drop out of the merged percentiles/,
      ],
      [short(), /shard 2 \(s2\): its k0 histogram holds 10 response times, so its 30 k0 transactions/],
    ] as const) {
      const attempt = (): unknown => checkShardSet([one(), gap], false);
      expect(attempt).toThrow(UsageError);
      expect(attempt).toThrow(why);
      expect(attempt).toThrow(/--allow-partial$/);
      expect(() => checkShardSet([one(), gap], false)).not.toThrow(/\n/);
    }
  });

  it('with --allow-partial: its counts added, the percentiles the other shards’, marked partial in run.json and the reports', () => {
    const set = checkShardSet([one(), bare()], true);
    expect(set.complete).toBe(false);
    const merged = mergeShardReports(set, tpcc as unknown as Workload);
    expect(merged.summary.transactions).toBe(70);
    expect(merged.transactions.k0!.count).toBe(70);
    // Shard 1's 40 at 10 ms only: the 30 at 20 ms are not in any histogram.
    expect(decodeHistogram(merged.histograms.k0!).totalCount).toBe(40);
    expect(merged.transactions.k0!.responseMs.p99).toBeCloseTo(10, 1);
    expect(merged.config.shards).toMatchObject({ partial: true, missing: [] });
    expect(merged.summary.partial).toEqual({
      reason:
        'shard 2 without readable histograms (no histograms.json): response times from the other shards only, counts from all',
      shards: [2],
    });
    expect(formatRunSummary(merged)).toMatch(/^ {2}PARTIAL: shard 2 without readable histograms/m);
    const record = {
      id: 'run-merged',
      label: 'db',
      status: merged.status,
      workload: 'tpcc',
      summary: merged.summary,
      config: merged.config,
    } as unknown as RunRecord;
    expect(rowsFromRun(record)[0]!.status).toBe('completed, partial');
  });

  it('a shard with every histogram whole merges complete, with no partial mark', () => {
    const merged = mergeShardReports(
      checkShardSet([one(), shard(2, 30, 20, { start: 101, end: 131 })], false),
      undefined,
    );
    expect(merged.summary.partial).toBeUndefined();
    expect(
      rowsFromRun({
        id: 'r',
        label: 'db',
        status: 'completed',
        summary: merged.summary,
      } as unknown as RunRecord)[0]!.status,
    ).toBe('completed');
  });
});

describe('merging several targets’ shards', () => {
  it('the whole run ends as the gravest target: failed beside an incomplete drain reads failed', async () => {
    const withStatus = (s: ShardRun, status: string): RunReport => ({ ...s.report, status }) as RunReport;
    // Target a gave up on a drain in shard 1; target b lost its database in shard 2.
    const a = [shard(1, 40, 10, { start: 100, end: 140 }), shard(2, 30, 20, { start: 101, end: 131 })];
    const b = [shard(1, 20, 10, { start: 200, end: 220 }), shard(2, 10, 20, { start: 201, end: 211 })];
    const files: ShardFile[] = [1, 2].map((index) => ({
      kind: 'targets',
      dir: `s${index}`,
      file: {
        kind: 'targets',
        targets: [
          { label: 'a', report: index === 1 ? withStatus(a[0]!, 'incomplete-drain') : a[1]!.report },
          { label: 'b', report: index === 2 ? withStatus(b[1]!, 'failed') : b[0]!.report },
        ],
      },
    }));
    const merged = await mergeShardFiles(files, false);
    expect(merged.kind).toBe('targets');
    if (merged.kind !== 'targets') return;
    expect(merged.reports.map((r) => r.status)).toEqual(['incomplete-drain', 'failed']);
    expect(merged.content.status).toBe('failed');
  });
});

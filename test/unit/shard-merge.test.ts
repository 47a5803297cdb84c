import { describe, expect, it } from 'vitest';
import { parseShard, parseStartAt, START_GRACE_MS } from '../../src/cli/shard-flags.js';
import { alignIntervals, checkShardSet, outOfLineShards, type ShardRun } from '../../src/run/shard-merge.js';
import { shardSlice } from '../../src/run/shard.js';
import type { IntervalRecord } from '../../src/results/interval.js';
import type { RunReport } from '../../src/results/run-file.js';
import { ordersAddedAcrossShards } from '../../src/workloads/tpcc/shards.js';

const T0 = Date.parse('2026-12-01T22:30:00Z');

function interval(count: number, seconds = 1, tpmC = count * 60): IntervalRecord {
  return {
    atS: 0,
    phase: 'measure',
    seconds,
    tps: count / seconds,
    tpmC,
    perType: { a: { count, errors: 0, avgMs: count, p50Ms: 1, p90Ms: count, p95Ms: 1, p99Ms: 1 } },
    errorsByClass: { conflict: 0 } as IntervalRecord['errorsByClass'],
  };
}

/** A shard's report with just what the merge checks read. */
function shard(
  index: number,
  count: number,
  opts: { startMs?: number; seconds?: number; seed?: number; intervals?: IntervalRecord[] } = {},
): ShardRun {
  const start = T0 + (opts.startMs ?? 0);
  const intervals = opts.intervals ?? [interval(10), interval(10), interval(10)];
  const seconds = opts.seconds ?? intervals.reduce((a, i) => a + i.seconds, 0);
  const report = {
    kind: 'run',
    config: {
      target: 'db',
      workload: 'tpcc',
      workloadOptions: {},
      scale: '1 warehouse',
      seed: opts.seed ?? 7,
      deck: [10, 10, 1, 1, 1],
      thinkScale: 0,
      warmupS: 1,
      durationS: 3,
      intervalS: 1,
      terminals: 2,
      shard: { index, count, totalTerminals: 8, startAt: '2026-12-01T22:30:00.000Z' },
    },
    summary: {
      windowStartedAt: new Date(start).toISOString(),
      windowEndedAt: new Date(start + seconds * 1000).toISOString(),
    },
    intervals,
  } as unknown as RunReport;
  return { dir: `shard${index}`, report };
}

describe('checkShardSet', () => {
  it('accepts every shard of one run, in shard order whatever order they are given in', () => {
    const set = checkShardSet([shard(3, 4), shard(1, 4), shard(4, 4), shard(2, 4)], false);
    expect(set.shards.map((s) => s.dir)).toEqual(['shard1', 'shard2', 'shard3', 'shard4']);
    expect(set.complete).toBe(true);
  });

  it('names the missing shards and refuses them unless --allow-partial', () => {
    const given = [shard(1, 4), shard(2, 4), shard(4, 4)];
    expect(() => checkShardSet(given, false)).toThrow(/^shard 3 of 4 missing; .*--allow-partial$/);
    const partial = checkShardSet(given, true);
    expect(partial).toMatchObject({ complete: false, missing: [3], outOfLine: [] });
    expect(() => checkShardSet([shard(1, 4)], false)).toThrow(/^shards 2, 3, 4 of 4 missing/);
  });

  it('names a shard whose window does not overlap the others', () => {
    const given = [shard(1, 3), shard(2, 3, { startMs: 500 }), shard(3, 3, { startMs: 60_000 })];
    expect(() => checkShardSet(given, false)).toThrow(
      /the measured window of shard 3 does not overlap the others'/,
    );
    expect(checkShardSet(given, true).outOfLine).toEqual([3]);
  });

  it('refuses shards of different runs, one given twice, and a run that is not a shard', () => {
    expect(() => checkShardSet([shard(1, 2), shard(2, 2, { seed: 8 })], true)).toThrow(
      /shard2 is not a shard of the same run as shard1: its seed differs \(8 vs 7\)/,
    );
    expect(() => checkShardSet([shard(1, 2), shard(2, 3)], true)).toThrow(/its shard count N differs/);
    expect(() => checkShardSet([shard(1, 2), shard(1, 2)], true)).toThrow(/shard 1 is given twice/);
    const plain = shard(1, 2);
    delete (plain.report.config as { shard?: unknown }).shard;
    expect(() => checkShardSet([plain], true)).toThrow(/is not one shard of a run/);
  });
});

describe('outOfLineShards', () => {
  it('takes the shard overlapping most others as the reference', () => {
    expect(
      outOfLineShards([shard(1, 3, { startMs: -60_000 }), shard(2, 3), shard(3, 3, { startMs: 100 })]),
    ).toEqual([1]);
    expect(outOfLineShards([shard(1, 2), shard(2, 2, { startMs: 2_999 })])).toEqual([]);
    expect(outOfLineShards([shard(1, 2), shard(2, 2, { startMs: 3_000 })])).toEqual([2]);
  });
});

describe('alignIntervals', () => {
  it('adds each shard interval into the reference slot that holds its midpoint', () => {
    const ref = shard(1, 2);
    // 400 ms later: its interval k's midpoint (k + 0.9 s) is still in slot k.
    const late = shard(2, 2, { startMs: 400, intervals: [interval(1), interval(2), interval(3)] });
    const slots = alignIntervals(ref, [late]);
    expect(slots.map((s) => s.perType.a!.count)).toEqual([11, 12, 13]);
    expect(slots.map((s) => s.tps)).toEqual([11, 12, 13]);
    expect(slots.map((s) => s.tpmC)).toEqual([660, 720, 780]);
    // 600 ms later: midpoints fall one slot on, the last clamped into the last slot.
    const later = shard(2, 2, { startMs: 600, intervals: [interval(1), interval(2), interval(3)] });
    expect(alignIntervals(ref, [later]).map((s) => s.perType.a!.count)).toEqual([10, 11, 15]);
  });

  it('keeps a count-weighted average and the largest percentile', () => {
    const [slot] = alignIntervals(shard(1, 2, { intervals: [interval(10)] }), [
      shard(2, 2, { intervals: [interval(30)] }),
    ]);
    // Averages 10 ms over 10 and 30 ms over 30: (100 + 900) / 40.
    expect(slot!.perType.a!.avgMs).toBe(25);
    expect(slot!.perType.a!.p90Ms).toBe(30);
  });

  it('never loses a transaction, however far the shards are apart', () => {
    const others = [shard(2, 3, { startMs: -5_000 }), shard(3, 3, { startMs: 9_000 })];
    const total = alignIntervals(shard(1, 3), others).reduce((a, s) => a + s.perType.a!.count, 0);
    expect(total).toBe(90);
  });
});

describe('--shard and --start-at', () => {
  it('parses I/N and refuses what is not a shard of N', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/4', '5/4', 'x', '1/0', '2', '-1/4'])
      expect(() => parseShard(bad)).toThrow(/--shard must be I\/N/);
  });

  it('takes ISO 8601 times with a zone, a moment just past within the grace, and refuses the rest', () => {
    const now = T0;
    expect(parseStartAt('2026-12-01T22:30:05Z', now).getTime()).toBe(T0 + 5_000);
    expect(parseStartAt('2026-12-01T23:30:05+01:00', now).getTime()).toBe(T0 + 5_000);
    expect(parseStartAt(new Date(now - START_GRACE_MS + 500).toISOString(), now).getTime()).toBeLessThan(now);
    expect(() => parseStartAt('2026-12-01T22:29:00Z', now)).toThrow(/60\.0 s in the past/);
    expect(() => parseStartAt('yesterday', now)).toThrow(/ISO 8601 time with Z or an offset/);
    expect(() => parseStartAt('2026-12-01T22:31:00', now)).toThrow(/with Z or an offset/);
  });

  it('slices terminals and connections as worker threads do, and refuses an empty shard', () => {
    expect(shardSlice({ index: 2, count: 4 }, 10, 4)).toEqual({
      firstTerminal: 2,
      terminals: 3,
      connections: 2,
    });
    expect(() => shardSlice({ index: 1, count: 4 }, 3, 3)).toThrow(/has no terminals/);
  });
});

describe('ordersAddedAcrossShards', () => {
  it('brackets every shard: the largest end reading less the smallest start reading', () => {
    const basis = (start: number, end: number) => ({ nextOrderIdsAtStart: start, nextOrderIdsAtEnd: end });
    expect(ordersAddedAcrossShards([basis(100, 180), basis(102, 190), basis(101, 185)])).toBe(90);
    expect(
      ordersAddedAcrossShards([basis(100, 180), { nextOrderIdsAtStart: null, nextOrderIdsAtEnd: 5 }]),
    ).toBeNull();
  });
});

describe('clock offsets', () => {
  it('places each shard on the database server’s clock', () => {
    // Shard 2's clock is 10 s ahead: by its own clock its window is 10 s late, by the server's on time.
    const ahead = shard(2, 2, { startMs: 10_000 });
    (ahead.report.config.shard as { clockOffsetMs: number }).clockOffsetMs = 10_000;
    expect(outOfLineShards([shard(1, 2), ahead])).toEqual([]);
    const late = shard(2, 2, { startMs: 10_000 });
    expect(outOfLineShards([shard(1, 2), late])).toEqual([2]);
  });
});

import { describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram, recordUs } from '../../src/metrics/histogram.js';
import { aggregate, kneeOf } from '../../src/run/aggregate.js';
import { SharedCpu, type CpuClock } from '../../src/run/shared-cpu.js';
import type { RunReport } from '../../src/results/run-file.js';

/** A report with just the fields aggregate reads; every transaction took `ms` milliseconds. */
function report(tps: number, tpmC: number, nopm: number | null, ms: number, count: number): RunReport {
  const h = newHistogram();
  for (let i = 0; i < count; i++) recordUs(h, ms * 1000);
  return {
    summary: {
      tps,
      tpmC,
      nopm,
      tpm: 100,
      windowSeconds: 60,
      transactions: count,
      errors: 1,
      // Per target: nothing, since the targets share one process (see SharedCpu).
      clientCpu: null,
    },
    histograms: { newOrder: encodeHistogram(h) },
  } as unknown as RunReport;
}

describe('aggregate', () => {
  it('sums TPS, tpmC, NOPM, TPM and errors, and the sum equals the targets added up', () => {
    const a = report(3153.44, 80_000, 79_000, 10, 100);
    const b = report(3154.37, 81_000, 80_100, 30, 300);
    const s = aggregate([a, b], null);
    expect(s.tps).toBeCloseTo(3153.44 + 3154.37, 6);
    expect(s.tpmC).toBe(161_000);
    expect(s.nopm).toBe(159_100);
    expect(s.tpm).toBe(200);
    expect(s.errors).toBe(2);
    expect(s.transactions).toBe(400);
  });

  it('response time is over every transaction of every target, not an average of averages', () => {
    const s = aggregate([report(1, 1, 1, 10, 100), report(1, 1, 1, 30, 300)], null);
    // (100 x 10 + 300 x 30) / 400 = 25 ms; the mean of the two means would be 20.
    expect(s.responseMs.avg).toBeCloseTo(25, 1);
    expect(s.responseMs.max).toBeCloseTo(30, 1);
  });

  it('reports the spread of TPS across targets', () => {
    const s = aggregate([report(100, 1, 1, 1, 1), report(150, 1, 1, 1, 1), report(120, 1, 1, 1, 1)], null);
    expect(s.spread).toEqual({ minTps: 100, maxTps: 150, maxOverMin: 1.5 });
  });

  it('names the summed New-Order rate as its parts are named, only when they agree', () => {
    const named = (shownAs: string): RunReport => {
      const r = report(1, 10, 1, 1, 1);
      const rate = {
        key: 'tpmC',
        label: 'tpmC',
        value: 10,
        unit: 'New-Orders/min',
        pacedSpec: true,
        shownAs,
      };
      return { ...r, summary: { ...r.summary, figures: [rate] } } as RunReport;
    };
    const quarter = 'New-Orders/min (paced ×0.25)';
    const rate = (s: ReturnType<typeof aggregate>) => s.figures.find((f) => f.key === 'tpmC');
    expect(rate(aggregate([named(quarter), named(quarter)], null))).toMatchObject({
      value: 20,
      shownAs: quarter,
    });
    expect(rate(aggregate([named(quarter), named('tpmC')], null))?.shownAs).toBeUndefined();
  });

  it('NOPM is n/a when any target could not say', () => {
    expect(aggregate([report(1, 1, null, 1, 1), report(1, 1, 5, 1, 1)], null).nopm).toBeNull();
  });
});

describe('client CPU with several targets in one process', () => {
  /** A process whose CPU and wall clock advance only when the test says so. */
  function fakeProcess(): CpuClock & { spend(userMs: number, systemMs: number, wallMs: number): void } {
    let user = 0;
    let system = 0;
    let now = 0;
    return {
      cpu: () => ({ user, system }),
      nowMs: () => now,
      spend: (userMs, systemMs, wallMs) => {
        user += userMs * 1000;
        system += systemMs * 1000;
        now += wallMs;
      },
    };
  }

  it('three targets whose windows overlap are charged the process CPU once, not three times', () => {
    const proc = fakeProcess();
    const cpu = new SharedCpu(proc);
    const targets = [cpu.forTarget(), cpu.forTarget(), cpu.forTarget()];
    for (const t of targets) t('warmup');
    proc.spend(500, 100, 1000); // warm-up: not counted
    for (const t of targets) t('measure');
    proc.spend(6000, 2000, 10_000);
    targets[0]!('drain');
    proc.spend(300, 100, 200); // the others are still measuring
    targets[1]!('drain');
    targets[2]!('drain');
    proc.spend(1000, 0, 1000); // drain: not counted
    for (const t of targets) t('done');
    const measured = cpu.result()!;
    expect(measured).toEqual({ userUs: 6_300_000, systemUs: 2_100_000, seconds: 10.2 });
    const reports = [report(100, 1, 1, 5, 1000), report(100, 1, 1, 5, 1000), report(100, 1, 1, 5, 1000)];
    const s = aggregate(reports, measured);
    // 8.4 s of CPU over 10.2 s is 0.824 cores, 2800 µs per transaction of the 3000: the process's, once.
    expect(s.clientCpu).toEqual({ userS: 6.3, systemS: 2.1, coresUsed: 0.824, usPerTransaction: 2800 });
    for (const r of reports) expect(r.summary.clientCpu).toBeNull();
  });

  it('a precondition window is not the measured one; a target stopped in warm-up adds nothing', () => {
    const proc = fakeProcess();
    const cpu = new SharedCpu(proc);
    const a = cpu.forTarget();
    const b = cpu.forTarget();
    a('precondition');
    proc.spend(9000, 0, 9000);
    a('drain');
    b('warmup');
    b('drain'); // interrupted during warm-up
    a('warmup');
    a('measure');
    proc.spend(1000, 500, 2000);
    a('drain');
    expect(cpu.result()).toEqual({ userUs: 1_000_000, systemUs: 500_000, seconds: 2 });
  });

  it('null when no window opened', () => {
    const cpu = new SharedCpu(fakeProcess());
    cpu.forTarget()('warmup');
    expect(cpu.result()).toBeNull();
    expect(aggregate([report(1, 1, 1, 1, 1)], null).clientCpu).toBeNull();
  });
});

describe('kneeOf', () => {
  it('is the last step before throughput grows less than half as fast as the users', () => {
    // 1 -> 20 users: x20 users, x18 TPS (scales); 20 -> 50: x2.5 users, x1.2 TPS (does not).
    expect(
      kneeOf([
        { users: 1, tps: 10 },
        { users: 20, tps: 180 },
        { users: 50, tps: 216 },
        { users: 100, tps: 220 },
      ]),
    ).toBe(20);
  });

  it('is undefined while every step still scales', () => {
    expect(
      kneeOf([
        { users: 1, tps: 10 },
        { users: 2, tps: 19 },
        { users: 4, tps: 36 },
      ]),
    ).toBeUndefined();
  });
});

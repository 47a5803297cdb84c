import { describe, expect, it } from 'vitest';
import { deviceFigures, diskDelta, hostFigures, ZERO_COUNTERS } from '../../src/monitor/figures.js';
import type { CpuTimes, DiskCounters, SystemSnapshot, WatchedDevice } from '../../src/monitor/types.js';

const VDA: WatchedDevice = { name: 'vda', role: 'data' };
const counters = (c: Partial<DiskCounters>): DiskCounters => ({ ...ZERO_COUNTERS, ...c });

const BEFORE = counters({
  readsCompleted: 1000,
  readBytes: 8_000_000,
  readMs: 500,
  writesCompleted: 5000,
  writtenBytes: 100_000_000,
  writeMs: 2000,
  busyMs: 10_000,
  weightedMs: 40_000,
});

describe('deviceFigures', () => {
  it('computes rates, latency per I/O, queue depth and % busy from hand-computed deltas', () => {
    // Over 2 s: 400 reads of 3.2 MB taking 200 ms, 3000 writes of 48 MB taking 4500 ms,
    // busy 1500 ms, weighted 5000 ms.
    const after = counters({
      readsCompleted: 1400,
      readBytes: 11_200_000,
      readMs: 700,
      writesCompleted: 8000,
      writtenBytes: 148_000_000,
      writeMs: 6500,
      inFlight: 3,
      busyMs: 11_500,
      weightedMs: 45_000,
    });
    expect(deviceFigures(BEFORE, after, 2, VDA)).toEqual({
      name: 'vda',
      role: 'data',
      readIops: 200,
      writeIops: 1500,
      readMBps: 1.6,
      writeMBps: 24,
      readLatencyMs: 0.5,
      writeLatencyMs: 1.5,
      queueDepth: 2.5,
      busyPct: 75,
    });
  });

  it('gives zeros and no latency when nothing happened', () => {
    expect(deviceFigures(BEFORE, BEFORE, 1, VDA)).toEqual({
      name: 'vda',
      role: 'data',
      readIops: 0,
      writeIops: 0,
      readMBps: 0,
      writeMBps: 0,
      readLatencyMs: null,
      writeLatencyMs: null,
      queueDepth: 0,
      busyPct: 0,
    });
    expect(deviceFigures(BEFORE, BEFORE, 0, VDA).writeIops).toBe(0);
  });

  it('caps % busy at 100 when the two clocks disagree by a little', () => {
    const after = { ...BEFORE, busyMs: BEFORE.busyMs + 1010 };
    expect(deviceFigures(BEFORE, after, 1, VDA).busyPct).toBe(100);
  });

  it('unwraps a time field that passed 2^32 ms while the counts went forwards', () => {
    const prev = { ...BEFORE, writeMs: 2 ** 32 - 10, weightedMs: 2 ** 32 - 100 };
    const cur = { ...prev, writesCompleted: prev.writesCompleted + 100, writeMs: 40, weightedMs: 900 };
    expect(diskDelta(prev, cur)).toMatchObject({ writesCompleted: 100, writeMs: 50, weightedMs: 1000 });
    const f = deviceFigures(prev, cur, 1, VDA);
    expect(f.writeLatencyMs).toBe(0.5);
    expect(f.queueDepth).toBe(1);
  });

  it('takes counters that went backwards as a reset: no negative or inflated figures', () => {
    // The device went away and came back: its counters restarted from zero.
    const cur = counters({ writesCompleted: 30, writtenBytes: 300_000, writeMs: 15, busyMs: 20 });
    expect(diskDelta(BEFORE, cur)).toBeUndefined();
    const f = deviceFigures(BEFORE, cur, 1, VDA);
    expect(f).toMatchObject({ writeIops: 30, writeMBps: 0.3, writeLatencyMs: 0.5, busyPct: 2, readIops: 0 });
    for (const value of Object.values(f))
      if (typeof value === 'number') expect(value).toBeGreaterThanOrEqual(0);
  });

  it('takes a time field going far backwards with forward counts as a reset, not a wrap', () => {
    const cur = { ...BEFORE, writesCompleted: BEFORE.writesCompleted + 1, writeMs: 10 };
    expect(diskDelta({ ...BEFORE, writeMs: 1_000_000 }, cur)).toBeUndefined();
  });
});

const cpu = (t: Partial<CpuTimes>): CpuTimes => ({
  user: 0,
  nice: 0,
  system: 0,
  idle: 0,
  iowait: 0,
  irq: 0,
  softirq: 0,
  steal: 0,
  ...t,
});
const snap = (times: CpuTimes | undefined, memory = { usedMB: 900, pageCacheMB: 300 }): SystemSnapshot => ({
  atMs: 0,
  disks: new Map(),
  cpu: times,
  cpus: 2,
  memory,
});

describe('hostFigures', () => {
  it('gives shares of the whole machine: user + nice, system + irq + softirq, iowait, steal', () => {
    const prev = snap(
      cpu({ user: 100, nice: 10, system: 50, idle: 1000, iowait: 5, irq: 1, softirq: 2, steal: 3 }),
    );
    // 2 CPUs over 1 s: 2 CPU-seconds = 0.6 user + 0.2 nice, 0.3 system + 0.05 irq + 0.05 softirq,
    // 0.5 idle, 0.2 iowait, 0.1 steal.
    const cur = snap(
      cpu({
        user: 100.6,
        nice: 10.2,
        system: 50.3,
        idle: 1000.5,
        iowait: 5.2,
        irq: 1.05,
        softirq: 2.05,
        steal: 3.1,
      }),
      { usedMB: 1200, pageCacheMB: 400 },
    );
    expect(hostFigures(prev, cur, 12.345)).toEqual({
      cpuUserPct: 40,
      cpuSystemPct: 20,
      cpuIowaitPct: 10,
      cpuStealPct: 5,
      memUsedMB: 1200,
      pageCacheMB: 400,
      txbenchCpuPct: 12.3,
    });
  });

  it('counts a field that went backwards (iowait on tickless kernels) as zero', () => {
    const prev = snap(cpu({ user: 10, idle: 10, iowait: 5 }));
    const cur = snap(cpu({ user: 11, idle: 11, iowait: 4 }));
    expect(hostFigures(prev, cur, null)).toMatchObject({
      cpuUserPct: 50,
      cpuIowaitPct: 0,
      txbenchCpuPct: null,
    });
  });

  it('is null without CPU times, without memory, or when no CPU time passed', () => {
    const times = cpu({ user: 1, idle: 1 });
    expect(hostFigures(snap(undefined), snap(times), null)).toBeNull();
    expect(hostFigures(snap(times), { ...snap(times), memory: undefined }, null)).toBeNull();
    expect(hostFigures(snap(times), snap(times), null)).toBeNull();
  });
});

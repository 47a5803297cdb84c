import { afterEach, describe, expect, it, vi } from 'vitest';
import { ZERO_COUNTERS } from '../../src/monitor/figures.js';
import { latencyTail } from '../../src/monitor/latency-tail.js';
import { deviceTotals } from '../../src/report/device-totals.js';
import { counterDeltas, Sampler, type SamplerOptions } from '../../src/monitor/sampler.js';
import type { CpuTimes, DiskCounters, SystemSnapshot, SystemSource } from '../../src/monitor/types.js';

/** A cumulative state of one disk: `writes` writes of 10 kB each, `writeMs` ms spent on them. */
const disk = (writes: number, writeMs: number, reads = 0, readMs = 0): DiskCounters => ({
  ...ZERO_COUNTERS,
  readsCompleted: reads,
  readBytes: reads * 4096,
  readMs,
  writesCompleted: writes,
  writtenBytes: writes * 10_000,
  writeMs,
  busyMs: writeMs / 2,
  weightedMs: writeMs,
});

const cpuAt = (s: number): CpuTimes => ({
  user: s * 0.5,
  nice: 0,
  system: s * 0.25,
  idle: s * 1.25,
  iowait: 0,
  irq: 0,
  softirq: 0,
  steal: 0,
});

const snapshot = (atMs: number, disks: Record<string, DiskCounters>): SystemSnapshot => ({
  atMs,
  disks: new Map(Object.entries(disks)),
  cpu: cpuAt(atMs / 1000),
  cpus: 2,
  memory: { usedMB: 1000, pageCacheMB: 200 },
});

/** Gives the scripted snapshots in turn (an Error entry is thrown), then repeats the last. */
class ScriptedSource implements SystemSource {
  readonly description = 'fake source';
  calls = 0;
  constructor(private readonly script: readonly (SystemSnapshot | Error)[]) {}
  async snapshot(): Promise<SystemSnapshot> {
    const next = this.script[Math.min(this.calls, this.script.length - 1)]!;
    this.calls += 1;
    if (next instanceof Error) throw next;
    return next;
  }
}

const sampler = (source: SystemSource, options: Partial<SamplerOptions> = {}): Sampler =>
  new Sampler({
    source,
    devices: [{ name: 'vda', role: 'data+log' }],
    measureOwnCpu: false,
    periodMs: 1000,
    ...options,
  });

afterEach(() => {
  vi.useRealTimers();
});

describe('Sampler, driven by explicit calls', () => {
  it('gives each interval its own figures and the window its averages and per-second percentiles', async () => {
    const source = new ScriptedSource([
      snapshot(0, { vda: disk(1000, 500) }), // start
      snapshot(1000, { vda: disk(1100, 550) }), // openWindow (before the window: left out of it)
      snapshot(2000, { vda: disk(1200, 600) }), // interval: 100 writes at 0.5 ms
      snapshot(3000, { vda: disk(1400, 1000) }), // interval: 200 writes at 2 ms
      snapshot(4000, { vda: disk(1500, 1100) }), // closeWindow: 100 writes at 1 ms
    ]);
    const s = sampler(source);
    await s.start();
    await s.openWindow();
    const first = await s.interval();
    expect(first.devices).toEqual([
      {
        name: 'vda',
        role: 'data+log',
        readIops: 0,
        writeIops: 100,
        readMBps: 0,
        writeMBps: 1,
        readLatencyMs: null,
        writeLatencyMs: 0.5,
        queueDepth: 0.05,
        busyPct: 2.5,
      },
    ]);
    expect(first.host).toEqual({
      cpuUserPct: 25,
      cpuSystemPct: 12.5,
      cpuIowaitPct: 0,
      cpuStealPct: 0,
      memUsedMB: 1000,
      pageCacheMB: 200,
      txbenchCpuPct: null,
    });
    expect(first.missing).toEqual([]);
    expect((await s.interval()).devices[0]).toMatchObject({ writeIops: 200, writeLatencyMs: 2 });
    const window = await s.closeWindow();
    expect(window.devices).toEqual([
      {
        name: 'vda',
        role: 'data+log',
        readIops: 0,
        writeIops: 133.3,
        readMBps: 0,
        writeMBps: 1.333,
        readLatencyMs: null,
        writeLatencyMs: 1.375,
        queueDepth: 0.183,
        busyPct: 9.2,
        readLatencyMsP50: null,
        readLatencyMsP99: null,
        readLatencyMsMax: null,
        readLatencySeconds: 0,
        writeLatencyMsP50: 1,
        // Three seconds cannot support a 99th percentile: the slowest second is given, as the max.
        writeLatencyMsP99: null,
        writeLatencyMsMax: 2,
        writeLatencySeconds: 3,
        latencyMsMax: 2,
      },
    ]);
    expect(window.missing).toEqual([]);
    await s.stop();
  });

  it('leaves out a second cut short by an edge from the percentiles, not from the averages', async () => {
    const source = new ScriptedSource([
      snapshot(0, { vda: disk(0, 0) }),
      snapshot(1000, { vda: disk(0, 0) }), // openWindow
      snapshot(2000, { vda: disk(100, 100) }), // a full second at 1 ms
      snapshot(2100, { vda: disk(101, 150) }), // 0.1 s, one write at 50 ms
    ]);
    const s = sampler(source);
    await s.start();
    await s.openWindow();
    await s.interval();
    const w = await s.closeWindow();
    expect(w.devices[0]).toMatchObject({ writeLatencyMsMax: 1, writeLatencySeconds: 1, latencyMsMax: 1 });
    expect(w.devices[0]?.writeLatencyMs).toBeCloseTo(150 / 101, 3);
    expect(w.devices[0]?.writeIops).toBeCloseTo(101 / 1.1, 1);
  });

  it('reports a device that vanishes mid-interval as missing for the steps it missed', async () => {
    const source = new ScriptedSource([
      snapshot(0, { vda: disk(0, 0) }),
      snapshot(1000, { vda: disk(100, 100) }), // a timer tick would take these; interval() does here
      snapshot(2000, {}), // gone
      snapshot(3000, { vda: disk(5, 5) }), // back, counters restarted: counts from here
      snapshot(4000, { vda: disk(205, 405) }),
    ]);
    const s = sampler(source);
    await s.start();
    expect((await s.interval()).devices[0]).toMatchObject({ writeIops: 100 });
    const gone = await s.interval();
    expect(gone.devices).toEqual([]);
    expect(gone.missing).toEqual(["vda: no figures (not among fake source's disks at 1 snapshot)"]);
    const back = await s.interval();
    expect(back.devices).toEqual([]);
    expect(back.missing).toEqual(["vda: no figures (first seen at this interval's end)"]);
    expect((await s.interval()).devices[0]).toMatchObject({ writeIops: 200, writeLatencyMs: 2 });
  });

  it('skips a step whose counters went backwards instead of giving a negative rate', async () => {
    const source = new ScriptedSource([
      snapshot(0, { vda: disk(1000, 1000) }),
      snapshot(1000, { vda: disk(1100, 1100) }),
      snapshot(2000, { vda: disk(50, 25) }), // reset between the two
      snapshot(3000, { vda: disk(150, 125) }),
    ]);
    const s = sampler(source);
    await s.start();
    await s.openWindow();
    await s.interval();
    const w = await s.closeWindow();
    expect(w.devices[0]).toMatchObject({ writeIops: 100, writeLatencyMs: 1 });
    expect(w.missing).toEqual([
      'vda: figures cover 1 s of the window only (counters went backwards (reset) 1 time)',
    ]);
  });

  it('gives one missing line when the source fails, and goes on', async () => {
    const source = new ScriptedSource([
      snapshot(0, { vda: disk(0, 0) }),
      new Error('connect ECONNREFUSED 127.0.0.1:9100'),
      snapshot(2000, { vda: disk(200, 200) }),
    ]);
    const s = sampler(source);
    await s.start();
    const failed = await s.interval();
    expect(failed).toEqual({
      devices: [],
      host: null,
      database: null,
      missing: ['fake source unreachable: connect ECONNREFUSED 127.0.0.1:9100'],
    });
    const after = await s.interval();
    expect(after.devices[0]).toMatchObject({ writeIops: 100, writeLatencyMs: 1 });
    expect(after.host).not.toBeNull();
    expect(after.missing).toEqual([]);
  });

  it('gives the database counters growth per interval, a reset counting from zero', async () => {
    const values = [
      { walBytes: 1000, checkpoints: 1 },
      { walBytes: 5000, checkpoints: 2 },
      { walBytes: 300, checkpoints: 2 },
    ];
    let call = 0;
    const source = new ScriptedSource([snapshot(0, {}), snapshot(1000, {}), snapshot(2000, {})]);
    const s = sampler(source, { devices: [], databaseCounters: async () => values[call++] });
    await s.start();
    expect((await s.interval()).database).toEqual({ walBytes: 4000, checkpoints: 1 });
    expect((await s.interval()).database).toEqual({ walBytes: 300, checkpoints: 0 });
  });

  it('says why database figures are missing when the dialect fails', async () => {
    const source = new ScriptedSource([snapshot(0, {}), snapshot(1000, {})]);
    const s = sampler(source, {
      devices: [],
      notes: ['/dev/shm is on tmpfs: no block device'],
      databaseCounters: async () => {
        throw new Error('permission denied for pg_stat_wal');
      },
    });
    await s.start();
    const i = await s.interval();
    expect(i.database).toBeNull();
    expect(i.missing).toEqual([
      '/dev/shm is on tmpfs: no block device',
      'database counters: permission denied for pg_stat_wal',
    ]);
  });

  it('says why when only the reading at the interval start failed', async () => {
    let call = 0;
    const source = new ScriptedSource([snapshot(0, {}), snapshot(1000, {}), snapshot(2000, {})]);
    const s = sampler(source, {
      devices: [],
      databaseCounters: async () => {
        call += 1;
        if (call === 1) throw new Error('connection reset');
        return { walBytes: call * 100 };
      },
    });
    await s.start();
    const first = await s.interval();
    expect(first.database).toBeNull();
    expect(first.missing).toEqual(['database counters: connection reset']);
    expect((await s.interval()).database).toEqual({ walBytes: 100 });
  });

  it("measures txbench's own CPU when asked", async () => {
    const source = new ScriptedSource([snapshot(0, {}), snapshot(1000, {})]);
    const s = sampler(source, { devices: [], measureOwnCpu: true });
    await s.start();
    const spin = Date.now() + 30;
    while (Date.now() < spin);
    const pct = (await s.interval()).host?.txbenchCpuPct;
    expect(pct).toBeGreaterThan(0);
  });

  it('refuses closeWindow without openWindow', async () => {
    const s = sampler(new ScriptedSource([snapshot(0, {})]));
    await s.start();
    await expect(s.closeWindow()).rejects.toThrow(/openWindow/);
  });
});

describe('Sampler on a stacked device', () => {
  it('a RAID-1 mirror: md0’s own I/O is the figure, each leg’s beneath it, never added in', async () => {
    const source = new ScriptedSource([
      snapshot(0, { md0: disk(0, 0), sda1: disk(0, 0), sdb1: disk(0, 0) }),
      snapshot(1000, { md0: disk(100, 100), sda1: disk(100, 50), sdb1: disk(100, 150) }),
    ]);
    const s = sampler(source, { devices: [{ name: 'md0', role: 'data+log', members: ['sda1', 'sdb1'] }] });
    await s.start();
    const [md0] = (await s.interval()).devices;
    expect(md0).toMatchObject({ name: 'md0', writeIops: 100, writeLatencyMs: 1 });
    expect(md0!.members!.map((m) => [m.name, m.role, m.writeIops, m.writeLatencyMs])).toEqual([
      ['sda1', 'data+log', 100, 0.5],
      ['sdb1', 'data+log', 100, 1.5],
    ]);
    expect(deviceTotals([md0!])!.writeIops).toBe(100);
    await s.stop();
  });
});

describe('Sampler watching the disks busy in the warm-up (devices: busy)', () => {
  it('watches every disk that carried I/O before the window, and only those, and says which', async () => {
    const source = new ScriptedSource([
      snapshot(0, { vda: disk(0, 0), vdb: disk(0, 0), vdc: disk(0, 0) }), // start
      snapshot(1000, { vda: disk(100, 100), vdb: disk(0, 0), vdc: disk(50, 100) }), // warm-up interval
      snapshot(2000, { vda: disk(200, 200), vdb: disk(10, 10), vdc: disk(100, 200) }), // openWindow
      snapshot(3000, { vda: disk(300, 300), vdb: disk(500, 500), vdc: disk(100, 200) }), // closeWindow
    ]);
    const chosen: string[][] = [];
    const s = sampler(source, { devices: 'busy', onDevicesChosen: (names) => chosen.push([...names]) });
    await s.start();
    const warmup = await s.interval();
    expect(warmup.devices.map((d) => d.name)).toEqual(['vda', 'vdc']);
    await s.openWindow();
    // vdb was busy in the warm-up too (its last second): chosen; vdc, idle in the window, still shown.
    expect(chosen).toEqual([['vda', 'vdb', 'vdc']]);
    const w = await s.closeWindow();
    expect(w.devices.map((d) => [d.name, d.writeIops])).toEqual([
      ['vda', 100],
      ['vdb', 490],
      ['vdc', 0],
    ]);
    expect(w.missing).toEqual([]);
    await s.stop();
  });

  it('leaves out a disk idle through the warm-up, and with none busy shows each span’s busy disks', async () => {
    const idleWarmup = new ScriptedSource([
      snapshot(0, { vda: disk(0, 0), vdb: disk(0, 0) }),
      snapshot(1000, { vda: disk(10, 10), vdb: disk(0, 0) }), // openWindow
      snapshot(2000, { vda: disk(20, 20), vdb: disk(90, 90) }), // closeWindow
    ]);
    const one = sampler(idleWarmup, { devices: 'busy' });
    await one.start();
    await one.openWindow();
    expect((await one.closeWindow()).devices.map((d) => d.name)).toEqual(['vda']);

    const noWarmup = new ScriptedSource([
      snapshot(0, { vda: disk(0, 0), vdb: disk(0, 0) }),
      snapshot(0, { vda: disk(0, 0), vdb: disk(0, 0) }), // openWindow, at once
      snapshot(1000, { vda: disk(0, 0), vdb: disk(90, 90) }), // closeWindow
    ]);
    const chosen: string[][] = [];
    const two = sampler(noWarmup, { devices: 'busy', onDevicesChosen: (n) => chosen.push([...n]) });
    await two.start();
    await two.openWindow();
    expect(chosen).toEqual([[]]);
    const w = await two.closeWindow();
    expect(w.devices.map((d) => d.name)).toEqual(['vdb']);
    expect(w.missing).toEqual([]);
  });
});

describe('Sampler, driven by its timer', () => {
  it('samples every period in the background and feeds the window each second', async () => {
    vi.useFakeTimers();
    const script = [0, 1, 2, 3, 4, 5].map((i) => snapshot(i * 1000, { vda: disk(i * 100, i * i * 100) }));
    const source = new ScriptedSource(script);
    const s = sampler(source);
    await s.start();
    await s.openWindow(); // script[1]
    await vi.advanceTimersByTimeAsync(3000); // script[2..4]
    expect(source.calls).toBe(5);
    const w = await s.closeWindow(); // script[5]
    // Per second: 100 writes each, at 3, 5, 7, 9 ms.
    expect(w.devices[0]).toMatchObject({ writeIops: 100, writeLatencyMs: 6, writeLatencyMsP50: 5 });
    expect(w.devices[0]).toMatchObject({ writeLatencyMsP99: null, writeLatencyMsMax: 9, latencyMsMax: 9 });
    await s.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(source.calls).toBe(6);
  });

  it('skips ticks while a slow snapshot runs rather than piling them up', async () => {
    vi.useFakeTimers();
    let release: () => void = () => undefined;
    let calls = 0;
    const source: SystemSource = {
      description: 'slow source',
      snapshot: async () => {
        calls += 1;
        if (calls === 2) await new Promise<void>((resolve) => (release = resolve));
        return snapshot(calls * 1000, {});
      },
    };
    const s = sampler(source, { devices: [] });
    await s.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(2);
    release();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(3);
    await s.stop();
  });

  it('never throws from its timer when the source fails, and counts the failures', async () => {
    vi.useFakeTimers();
    const down = new Error('socket hang up');
    const source = new ScriptedSource([
      snapshot(0, { vda: disk(0, 0) }),
      down,
      down,
      down,
      snapshot(4000, {}),
    ]);
    const s = sampler(source);
    await s.start();
    await vi.advanceTimersByTimeAsync(3000);
    const i = await s.interval();
    expect(i.missing).toEqual([
      'fake source: 3 of 4 snapshots failed (socket hang up)',
      "vda: no figures (not among fake source's disks at 1 snapshot)",
    ]);
    await s.stop();
  });
});

describe('the window’s per-second latency tail', () => {
  /** A window of `seconds`, each given as [writes, ms per write], one snapshot a second. */
  async function windowOf(seconds: readonly (readonly [number, number])[]) {
    let writes = 0;
    let writeMs = 0;
    const script = [snapshot(0, { vda: disk(0, 0) }), snapshot(1000, { vda: disk(0, 0) })];
    seconds.forEach(([n, ms], i) => {
      writes += n;
      writeMs += n * ms;
      script.push(snapshot((i + 2) * 1000, { vda: disk(writes, writeMs) }));
    });
    const s = sampler(new ScriptedSource(script));
    await s.start();
    await s.openWindow();
    for (let i = 0; i < seconds.length - 1; i++) await s.interval();
    const w = await s.closeWindow();
    await s.stop();
    return w.devices[0]!;
  }

  it('on a window of under 100 seconds gives no p99 but the slowest second, named max, and the count', async () => {
    const seconds = Array.from({ length: 60 }, (_, i) => [100, 1 + (i % 7)] as const);
    const d = await windowOf(seconds);
    expect(d).toMatchObject({ writeLatencyMsP99: null, writeLatencyMsMax: 7, writeLatencySeconds: 60 });
    expect(d.writeLatencyMsP50).toBe(4);
  });

  it('weighs each second by the I/Os it completed: a few near-idle slow seconds are not the p99', async () => {
    // 190 seconds of 1,000 writes at 1 ms and 10 seconds of one write at 50 ms: 10 of 190,010 writes.
    const seconds = [
      ...Array.from({ length: 190 }, () => [1000, 1] as const),
      ...Array.from({ length: 10 }, () => [1, 50] as const),
    ];
    const d = await windowOf(seconds);
    expect(d).toMatchObject({ writeLatencyMsP99: 1, writeLatencyMsMax: 50, writeLatencySeconds: 200 });
  });
});

describe('latencyTail and counterDeltas', () => {
  it('takes the I/O-weighted nearest rank, a p99 only where it is not the slowest second', () => {
    expect(latencyTail([])).toEqual({ p50: null, p99: null, max: null, seconds: 0 });
    const even = Array.from({ length: 100 }, (_, i) => ({ ms: i + 1, ios: 10 }));
    expect(latencyTail(even)).toEqual({ p50: 50, p99: 99, max: 100, seconds: 100 });
    expect(latencyTail(even.slice(1))).toMatchObject({ p99: null, max: 100, seconds: 99 });
    // The slowest second holds 1% of the I/Os: its rank is the p99, so only a max is said.
    const heavyTop = [...even.slice(0, 99), { ms: 100, ios: 10 * 99 * 0.0102 }];
    expect(latencyTail(heavyTop)).toMatchObject({ p99: null, max: 100 });
    expect(latencyTail([{ ms: 3, ios: 0 }])).toMatchObject({ p50: null, seconds: 0 });
  });

  it('gives growth of the counters both readings have', () => {
    expect(counterDeltas({ a: 1, b: 10 }, { a: 4, b: 3, c: 7 })).toEqual({ a: 3, b: 3 });
  });
});

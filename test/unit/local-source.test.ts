import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalSource, parseMeminfo, parseProcStat } from '../../src/monitor/local-source.js';

const STAT = [
  'cpu  293819 12 91847 153316 4182 7 4163 250 100 0',
  'cpu0 142057 6 44851 83468 1609 3 1695 125 50 0',
  'cpu1 151762 6 46996 69847 2573 4 2468 125 50 0',
  'intr 2816739 0 0 0',
  'ctxt 7307734',
  'btime 1764567890',
  'processes 9000',
].join('\n');

const MEMINFO = [
  'MemTotal:       24683548 kB',
  'MemFree:        21870288 kB',
  'MemAvailable:   23576808 kB',
  'Buffers:           33440 kB',
  'Cached:          2118748 kB',
  'SwapCached:            0 kB',
].join('\n');

const DISKSTATS =
  ' 254       0 vda 72207 12210 3165706 22764 597605 140492 52305368 236683 0 106576 357332\n';

describe('parseProcStat', () => {
  it('turns the first cpu line from USER_HZ (100 a second) into seconds and counts the cpuN lines', () => {
    expect(parseProcStat(STAT)).toEqual({
      times: {
        user: 2938.19,
        nice: 0.12,
        system: 918.47,
        idle: 1533.16,
        iowait: 41.82,
        irq: 0.07,
        softirq: 41.63,
        steal: 2.5,
      },
      cpus: 2,
    });
  });

  it('reads a short first line (old kernels without steal) and refuses text without one', () => {
    expect(parseProcStat('cpu  100 0 50 1000\ncpu0 100 0 50 1000\n')?.times).toMatchObject({
      user: 1,
      steal: 0,
    });
    expect(parseProcStat('intr 1 2 3\n')).toBeUndefined();
  });
});

describe('parseMeminfo', () => {
  it('gives used memory (MemTotal − MemAvailable) and page cache (Cached + Buffers) in MB of 10^6 bytes', () => {
    expect(parseMeminfo(MEMINFO)).toEqual({
      usedMB: Math.round(((24683548 - 23576808) * 1024) / 1e6),
      pageCacheMB: Math.round(((2118748 + 33440) * 1024) / 1e6),
    });
  });

  it('stands MemFree + Buffers + Cached in for MemAvailable on kernels before 3.14', () => {
    const old = MEMINFO.split('\n')
      .filter((l) => !l.startsWith('MemAvailable'))
      .join('\n');
    const available = 21870288 + 33440 + 2118748;
    expect(parseMeminfo(old)?.usedMB).toBe(Math.round(((24683548 - available) * 1024) / 1e6));
    expect(parseMeminfo('Buffers: 1 kB\n')).toBeUndefined();
  });
});

describe('LocalSource', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'txbench-proc-'));
    await writeFile(path.join(root, 'diskstats'), DISKSTATS);
    await writeFile(path.join(root, 'stat'), STAT);
    await writeFile(path.join(root, 'meminfo'), MEMINFO);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads disks, CPU and memory from the /proc it is given', async () => {
    const source = new LocalSource({ proc: root });
    expect(source.description).toBe(`local ${root}`);
    const s = await source.snapshot();
    expect([...s.disks.keys()]).toEqual(['vda']);
    expect(s.disks.get('vda')?.writesCompleted).toBe(597605);
    expect(s.cpus).toBe(2);
    expect(s.cpu?.user).toBe(2938.19);
    expect(s.memory?.pageCacheMB).toBe(2204);
    expect(s.atMs).toBeGreaterThan(0);
  });

  it('leaves out CPU and memory it cannot read, and throws when diskstats is missing', async () => {
    const bare = await mkdtemp(path.join(os.tmpdir(), 'txbench-proc-'));
    try {
      await writeFile(path.join(bare, 'diskstats'), DISKSTATS);
      const s = await new LocalSource({ proc: bare }).snapshot();
      expect(s.disks.size).toBe(1);
      expect(s.cpu).toBeUndefined();
      expect(s.memory).toBeUndefined();
      await expect(new LocalSource({ proc: path.join(bare, 'none') }).snapshot()).rejects.toThrow(
        /diskstats/,
      );
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });

  it('reads this machine', async () => {
    const s = await new LocalSource().snapshot();
    expect(s.disks.size).toBeGreaterThan(0);
    expect(s.cpus).toBeGreaterThan(0);
    expect(s.memory?.usedMB).toBeGreaterThan(0);
  });
});

/**
 * Snapshots of this machine from /proc: block devices (/proc/diskstats), CPU time (/proc/stat)
 * and memory (/proc/meminfo). Three small asynchronous reads a snapshot; no child process, no
 * synchronous I/O, so sampling never stalls the event loop that drives the transactions.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseDiskstats } from './diskstats.js';
import { BYTES_PER_MB } from '../util/units.js';
import type { SystemRoots } from './host.js';
import type { CpuTimes, SystemSnapshot, SystemSource } from './types.js';

/**
 * /proc/stat counts in USER_HZ, which the kernel fixes at 100 for user space on every
 * architecture (it is part of the ABI, whatever CONFIG_HZ the kernel ticks at).
 */
const USER_HZ = 100;

export class LocalSource implements SystemSource {
  readonly description: string;
  private readonly proc: string;

  constructor(roots: SystemRoots = {}) {
    this.proc = roots.proc ?? '/proc';
    this.description = `local ${this.proc}`;
  }

  /** Throws only when /proc/diskstats cannot be read; CPU or memory it cannot read are left out. */
  async snapshot(): Promise<SystemSnapshot> {
    const startMs = performance.now();
    let readMs = startMs;
    const [diskstats, stat, meminfo] = await Promise.all([
      readFile(path.join(this.proc, 'diskstats'), 'latin1').then((text) => {
        readMs = performance.now();
        return text;
      }),
      readFile(path.join(this.proc, 'stat'), 'latin1').catch(() => undefined),
      readFile(path.join(this.proc, 'meminfo'), 'latin1').catch(() => undefined),
    ]);
    const cpu = stat === undefined ? undefined : parseProcStat(stat);
    return {
      // The kernel wrote the counters somewhere between the read's start and its end.
      atMs: (startMs + readMs) / 2,
      disks: parseDiskstats(diskstats),
      cpu: cpu?.times,
      cpus: cpu?.cpus,
      memory: meminfo === undefined ? undefined : parseMeminfo(meminfo),
    };
  }
}

/**
 * The machine's CPU time from /proc/stat's first line (`cpu  user nice system idle iowait irq
 * softirq steal guest guest_nice`, in USER_HZ, summed over CPUs) and the number of online CPUs
 * (its `cpuN` lines). Guest time is already inside user and nice, so it is not added again.
 */
export function parseProcStat(text: string): { times: CpuTimes; cpus: number } | undefined {
  const lines = text.split('\n');
  const first = lines.find((l) => l.startsWith('cpu '));
  if (first === undefined) return undefined;
  const v = first.trim().split(/\s+/).slice(1).map(Number);
  if (v.length < 4 || !v.every(Number.isFinite)) return undefined;
  const s = (i: number): number => (v[i] ?? 0) / USER_HZ;
  return {
    times: {
      user: s(0),
      nice: s(1),
      system: s(2),
      idle: s(3),
      iowait: s(4),
      irq: s(5),
      softirq: s(6),
      steal: s(7),
    },
    cpus: lines.filter((l) => /^cpu\d+\s/.test(l)).length || 1,
  };
}

/**
 * Memory in use (MemTotal − MemAvailable) and the page cache (Cached + Buffers), in MB of 10^6
 * bytes (/proc/meminfo counts KiB). Kernels before 3.14 have no MemAvailable: MemFree + Buffers +
 * Cached stands in for it.
 */
export function parseMeminfo(text: string): { usedMB: number; pageCacheMB: number } | undefined {
  const kib = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m) kib.set(m[1]!, Number(m[2]));
  }
  const total = kib.get('MemTotal');
  if (total === undefined) return undefined;
  const buffers = kib.get('Buffers') ?? 0;
  const cached = kib.get('Cached') ?? 0;
  const available = kib.get('MemAvailable') ?? (kib.get('MemFree') ?? 0) + buffers + cached;
  const mb = (k: number): number => Math.round((k * 1024) / BYTES_PER_MB);
  return { usedMB: mb(Math.max(0, total - available)), pageCacheMB: mb(buffers + cached) };
}

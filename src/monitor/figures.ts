/**
 * Figures from two cumulative snapshots: a device's IOPS, MB/s, latency per I/O, queue depth and
 * % busy, and the machine's CPU and memory. The same arithmetic serves /proc and node_exporter.
 *
 * A megabyte here is 10^6 bytes (MB/s as storage vendors and iostat's --dec mode count it).
 */
import type {
  CpuTimes,
  DeviceFigures,
  DiskCounters,
  HostFigures,
  SystemSnapshot,
  WatchedDevice,
} from './types.js';
import { BYTES_PER_MB } from '../util/units.js';

/**
 * The kernel prints diskstats' four millisecond fields as 32-bit unsigned numbers (the counts and
 * sectors are 64-bit), so a busy disk's time fields wrap after 2^32 ms, about 50 days of summed
 * I/O time: sooner than the machine's uptime on a server with deep queues.
 */
const MS_FIELD_RANGE = 2 ** 32;

const COUNT_FIELDS = ['readsCompleted', 'readBytes', 'writesCompleted', 'writtenBytes'] as const;
const MS_FIELDS = ['readMs', 'writeMs', 'busyMs', 'weightedMs'] as const;

/**
 * What a device did between two snapshots, as counters (inFlight is the later gauge), or
 * undefined when its counters were reset in between (a count or byte counter went backwards: the
 * device was removed and added again, or the source restarted), so nothing can be said of that
 * span. A time field that goes backwards while the counts go forwards wrapped at 2^32 ms and is
 * unwrapped; one that would need an implausible jump (half the range or more) is taken as a reset.
 */
export function diskDelta(prev: DiskCounters, cur: DiskCounters): DiskCounters | undefined {
  const delta = { ...cur };
  for (const field of COUNT_FIELDS) {
    const d = cur[field] - prev[field];
    if (!(d >= 0)) return undefined;
    delta[field] = d;
  }
  for (const field of MS_FIELDS) {
    const d = cur[field] - prev[field];
    if (d >= 0) {
      delta[field] = d;
      continue;
    }
    const unwrapped = d + MS_FIELD_RANGE;
    if (!(prev[field] < MS_FIELD_RANGE && unwrapped < MS_FIELD_RANGE / 2)) return undefined;
    delta[field] = unwrapped;
  }
  return delta;
}

/** A device's counters before it did anything, to turn summed deltas into figures. */
export const ZERO_COUNTERS: DiskCounters = {
  readsCompleted: 0,
  readBytes: 0,
  readMs: 0,
  writesCompleted: 0,
  writtenBytes: 0,
  writeMs: 0,
  inFlight: 0,
  busyMs: 0,
  weightedMs: 0,
};

/**
 * One device over `seconds` between two snapshots of its counters. Latency per I/O is the time
 * the completed I/Os spent (queue and service, as iostat's r_await/w_await) over their number;
 * null when none completed. Counters reset in between (see `diskDelta`) count from zero: the
 * figures then cover only what the device did since the reset, never a negative or inflated rate.
 */
export function deviceFigures(
  prev: DiskCounters,
  cur: DiskCounters,
  seconds: number,
  device: WatchedDevice,
): DeviceFigures {
  return figuresOfDelta(diskDelta(prev, cur) ?? cur, seconds, device);
}

/** Figures from what a device did over `seconds` (counters as deltas). */
export function figuresOfDelta(delta: DiskCounters, seconds: number, device: WatchedDevice): DeviceFigures {
  const perSecond = (x: number): number => (seconds > 0 ? x / seconds : 0);
  return {
    name: device.name,
    role: device.role,
    readIops: round(perSecond(delta.readsCompleted), 1),
    writeIops: round(perSecond(delta.writesCompleted), 1),
    readMBps: round(perSecond(delta.readBytes) / BYTES_PER_MB, 3),
    writeMBps: round(perSecond(delta.writtenBytes) / BYTES_PER_MB, 3),
    readLatencyMs: latencyMs(delta.readMs, delta.readsCompleted),
    writeLatencyMs: latencyMs(delta.writeMs, delta.writesCompleted),
    queueDepth: round(perSecond(delta.weightedMs) / 1000, 3),
    // busy time cannot exceed wall time; the two snapshots' clocks differ by a little.
    busyPct: round(Math.min(100, perSecond(delta.busyMs) / 10), 1),
  };
}

/** Milliseconds per I/O, or null when no I/O completed. */
export function latencyMs(ms: number, completed: number): number | null {
  return completed > 0 ? round(ms / completed, 3) : null;
}

/**
 * The machine's CPU (as percentages of all its CPUs: user + nice as user, system + irq + softirq
 * as system, iowait, steal) between two snapshots, and its memory at the later one; null when
 * either snapshot lacks CPU times, the later lacks memory, or no CPU time passed. A field going
 * backwards (iowait does on some tickless kernels) counts as zero.
 */
export function hostFigures(
  prev: SystemSnapshot,
  cur: SystemSnapshot,
  txbenchCpuPct: number | null,
): HostFigures | null {
  if (prev.cpu === undefined || cur.cpu === undefined || cur.memory === undefined) return null;
  const a = prev.cpu;
  const b = cur.cpu;
  const d = (field: keyof CpuTimes): number => Math.max(0, b[field] - a[field]);
  const total =
    d('user') + d('nice') + d('system') + d('idle') + d('iowait') + d('irq') + d('softirq') + d('steal');
  if (!(total > 0)) return null;
  const pct = (x: number): number => round((100 * x) / total, 1);
  return {
    cpuUserPct: pct(d('user') + d('nice')),
    cpuSystemPct: pct(d('system') + d('irq') + d('softirq')),
    cpuIowaitPct: pct(d('iowait')),
    cpuStealPct: pct(d('steal')),
    memUsedMB: cur.memory.usedMB,
    pageCacheMB: cur.memory.pageCacheMB,
    txbenchCpuPct: txbenchCpuPct === null ? null : round(txbenchCpuPct, 1),
  };
}

export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

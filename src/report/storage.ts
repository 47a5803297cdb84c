/**
 * The storage and host lines of the run summary: per disk, what it did over the measured window
 * (IOPS, MB/s, latency per I/O with the I/O-weighted p99 of its per-second averages, or their maximum
 * where too few seconds support a p99, and the worst second, queue depth, busy time),
 * and the host's CPU and memory, so a reader sees whether the disk, the database or the client was
 * the limit. Every figure carries its unit; a figure that was not read says n/a, and why.
 */
import type { DeviceFigures, DeviceWindowFigures, HostFigures } from '../monitor/types.js';
import type { DeviceUnderTest } from '../results/environment.js';
import type { RunSummary } from '../results/run-file.js';
import { withNoise, type WindowNoise } from './noise.js';

/** I/Os per second: whole numbers from 10, one decimal below (a quiet disk is not 0). */
export const iops = (x: number): string => (x >= 10 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));

/** MB/s: whole numbers from 100, one decimal from 1, two below. */
export const megabytesPerSecond = (x: number): string =>
  x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 1 ? x.toFixed(1) : x.toFixed(2);

/** Device latency, ms: two decimals below 10 (sub-millisecond flash), as response times are shown. */
export const latency = (x: number | null): string =>
  x === null ? 'n/a' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);

const pct = (x: number): string => `${x.toFixed(1)}%`;
const megabytes = (x: number): string => `${Math.round(x).toLocaleString('en-US')} MB`;

/** `noise`: the run's ci95, whose per-device latencies are printed as `0.21 ± 0.02`. */
export function formatDeviceLine(d: DeviceWindowFigures, noise?: WindowNoise): string {
  const ci = noise?.devices.find((x) => x.name === d.name);
  const withCi = (x: number | null, of: 'readLatencyMs' | 'writeLatencyMs'): string =>
    x === null ? latency(x) : withNoise(x, ci?.[of], latency);
  return (
    `storage ${d.name} (${d.role}): read ${iops(d.readIops)} IOPS ${megabytesPerSecond(d.readMBps)} MB/s, ` +
    `write ${iops(d.writeIops)} IOPS ${megabytesPerSecond(d.writeMBps)} MB/s, ` +
    `latency avg r ${withCi(d.readLatencyMs, 'readLatencyMs')} / w ${withCi(d.writeLatencyMs, 'writeLatencyMs')} ms, ${latencyTail(d)}, ` +
    `max ${latency(d.latencyMsMax)} ms, queue ${d.queueDepth.toFixed(1)}, busy ${d.busyPct.toFixed(0)}%`
  );
}

/**
 * Each direction's tail over the window's seconds: its p99 and how many seconds it rests on, or,
 * where too few seconds support a p99, the slowest second, named max. Runs recorded before the
 * count was kept show their p99 as they did.
 */
function latencyTail(d: DeviceWindowFigures): string {
  if (d.readLatencySeconds === undefined || d.writeLatencySeconds === undefined) {
    return `p99 r ${latency(d.readLatencyMsP99)} / w ${latency(d.writeLatencyMsP99)} ms`;
  }
  const tail = (p99: number | null, max: number | null | undefined, seconds: number): string =>
    p99 !== null
      ? `p99 ${latency(p99)} ms of ${seconds} s`
      : max !== null && max !== undefined
        ? `max ${latency(max)} ms of ${seconds} s (too few for a p99)`
        : 'n/a';
  return (
    `per second r ${tail(d.readLatencyMsP99, d.readLatencyMsMax, d.readLatencySeconds)}` +
    ` / w ${tail(d.writeLatencyMsP99, d.writeLatencyMsMax, d.writeLatencySeconds)}`
  );
}

/** What a stacked device or partition is made of, beneath its line: detail, in no total. */
export function formatMemberLine(d: DeviceFigures): string {
  return (
    `  member ${d.name}: read ${iops(d.readIops)} IOPS ${megabytesPerSecond(d.readMBps)} MB/s, ` +
    `write ${iops(d.writeIops)} IOPS ${megabytesPerSecond(d.writeMBps)} MB/s, ` +
    `latency avg r ${latency(d.readLatencyMs)} / w ${latency(d.writeLatencyMs)} ms, busy ${d.busyPct.toFixed(0)}%`
  );
}

export function formatHostLine(h: HostFigures): string {
  return (
    `host: CPU user ${pct(h.cpuUserPct)}, system ${pct(h.cpuSystemPct)}, iowait ${pct(h.cpuIowaitPct)}, ` +
    `steal ${pct(h.cpuStealPct)}; memory used ${megabytes(h.memUsedMB)}, page cache ${megabytes(h.pageCacheMB)}; ` +
    `txbench CPU ${h.txbenchCpuPct === null ? 'n/a (another host)' : `${pct(h.txbenchCpuPct)} of a core`}`
  );
}

/**
 * One line per disk (or one n/a line saying why there are none), the host line when host figures
 * were read, and monitoring's notes (a missing exporter, a disk chosen for the user).
 */
export function formatStorage(s: Pick<RunSummary, 'devices' | 'host' | 'monitor' | 'ci95'>): string[] {
  const notes = s.monitor?.notes ?? [];
  const hasDevices = s.devices !== undefined && s.devices.length > 0;
  const lines: string[] = [];
  if (hasDevices) {
    lines.push(
      ...s.devices!.flatMap((d) => [formatDeviceLine(d, s.ci95), ...(d.members ?? []).map(formatMemberLine)]),
    );
  } else {
    const why =
      s.monitor === undefined ? 'not monitored' : notes.length > 0 ? notes.join('; ') : 'no disk found';
    lines.push(`storage: n/a (${why})`);
  }
  if (s.host) lines.push(formatHostLine(s.host));
  if (s.monitor !== undefined && (hasDevices || s.host)) {
    // Without disks the notes are already the n/a line's reason.
    const shown = hasDevices && notes.length > 0 ? `: ${notes.join('; ')}` : '';
    lines.push(`monitored through ${s.monitor.source}${shown}`);
  }
  return lines;
}

/** One line for the run summary: the disk and file system, or that it is remote and unknown. */
export function formatDevice(device: DeviceUnderTest | undefined): string {
  if (device === undefined) return 'device under test: unknown';
  if (device.kind === 'remote') return `device under test: remote, unknown (${device.reason})`;
  const disk = device.disk ?? device.device ?? device.source ?? 'unknown device';
  const model = [device.vendor, device.model].filter(Boolean).join(' ');
  const facts = [
    model || undefined,
    device.rotational === undefined ? undefined : device.rotational ? 'rotational' : 'non-rotational',
    device.sizeBytes === undefined ? undefined : `${(device.sizeBytes / 1e9).toFixed(0)} GB`,
    device.fsType === undefined ? undefined : `${device.fsType} on ${device.mountPoint ?? '?'}`,
  ].filter((f): f is string => f !== undefined);
  return `device under test: ${disk}${facts.length > 0 ? ` (${facts.join(', ')})` : ''} under ${device.path}`;
}

/**
 * A row's storage as one figure per column: with data and log on different disks (or several
 * targets' disks in a sum), throughput adds up and latency is the average per I/O over every disk,
 * weighted by how many I/Os each completed, so a busy disk counts for more than an idle one.
 */
import type { DeviceFigures } from '../monitor/types.js';
import { orNa } from './numbers.js';
import { latency, megabytesPerSecond } from './storage.js';
import type { Column } from './table.js';

/** The per-direction figures the totals are made of (run.json's `devices[]` has more). */
export type DeviceRates = Pick<
  DeviceFigures,
  'name' | 'readIops' | 'writeIops' | 'readMBps' | 'writeMBps' | 'readLatencyMs' | 'writeLatencyMs'
>;

export interface DeviceTotals {
  readIops: number;
  writeIops: number;
  readMBps: number;
  writeMBps: number;
  /** Read plus write MB/s. */
  mbps: number;
  /** Average time per read over every disk; null when no read completed. */
  readLatencyMs: number | null;
  writeLatencyMs: number | null;
  /** Average time per I/O, reads and writes together; null when no I/O completed. */
  latencyMs: number | null;
}

/** null (n/a) when the row has no device figures: monitoring off, no block device, an older run. */
export function deviceTotals(devices: readonly DeviceRates[] | undefined): DeviceTotals | null {
  if (devices === undefined || devices.length === 0) return null;
  let readIops = 0;
  let writeIops = 0;
  let readMBps = 0;
  let writeMBps = 0;
  // Latency × I/O rate is time per second: these add up across disks where averages do not.
  let readMsPerS = 0;
  let writeMsPerS = 0;
  for (const d of devices) {
    readIops += d.readIops;
    writeIops += d.writeIops;
    readMBps += d.readMBps;
    writeMBps += d.writeMBps;
    readMsPerS += d.readIops * (d.readLatencyMs ?? 0);
    writeMsPerS += d.writeIops * (d.writeLatencyMs ?? 0);
  }
  const perIo = (ms: number, iops: number): number | null => (iops > 0 ? ms / iops : null);
  return {
    readIops,
    writeIops,
    readMBps,
    writeMBps,
    mbps: readMBps + writeMBps,
    readLatencyMs: perIo(readMsPerS, readIops),
    writeLatencyMs: perIo(writeMsPerS, writeIops),
    latencyMs: perIo(readMsPerS + writeMsPerS, readIops + writeIops),
  };
}

/** What a summary says about its disks and where they were read (run.json `summary`). */
export interface MonitoredSummary<D extends DeviceRates = DeviceRates> {
  devices?: readonly D[] | undefined;
  monitor?: { source: string } | undefined;
}

/**
 * The disks under several targets, each once: two targets on one machine may share a disk, whose
 * figures each of them saw whole. A disk is the same one when it has the same name and was read
 * from the same source (this machine, or one node_exporter). undefined when any target has none:
 * a sum over some of the targets' disks would understate the storage's load.
 */
export function distinctDevices<D extends DeviceRates>(
  summaries: readonly MonitoredSummary<D>[],
): D[] | undefined {
  const byKey = new Map<string, D>();
  for (const s of summaries) {
    if (s.devices === undefined || s.devices.length === 0) return undefined;
    for (const d of s.devices) byKey.set(`${s.monitor?.source ?? ''}\u0000${d.name}`, d);
  }
  return [...byKey.values()];
}

/** The row's disks together: MB/s summed, latency per I/O over all of them. */
export const DEVICE_COLUMNS: readonly Column<{ device: DeviceTotals | null }>[] = [
  {
    header: 'device MB/s',
    align: 'right',
    text: (r) => orNa(r.device?.mbps, megabytesPerSecond),
    csv: (r) => r.device?.mbps ?? null,
  },
  {
    header: 'device latency ms',
    align: 'right',
    text: (r) => orNa(r.device?.latencyMs, latency),
    csv: (r) => r.device?.latencyMs ?? null,
  },
];

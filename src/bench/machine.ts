/** The machine a bench ran on, as bench.json and docs/PERFORMANCE.md record it. */
import { loadavg } from 'node:os';
import { hostInfo, deviceUnder } from '../monitor/host.js';

export interface Machine {
  cpuModel: string | undefined;
  cores: number;
  memoryGB: number;
  kernel: string;
  os: string;
  arch: string;
  node: string;
  /** The disk under the temporary directory, where the bench's PostgreSQL keeps its data. */
  disk: string | undefined;
  /** 1-minute load average when the bench started: other work on the machine skews every figure. */
  loadAverageAtStart: number;
}

export async function machine(tmp: string): Promise<Machine> {
  const host = await hostInfo();
  const device = await deviceUnder(tmp).catch(() => undefined);
  return {
    cpuModel: host.cpuModel,
    cores: host.cores,
    memoryGB: Math.round((host.memoryBytes / 2 ** 30) * 10) / 10,
    kernel: host.kernel,
    os: host.os,
    arch: host.arch,
    node: process.version,
    disk: device
      ? [device.disk ?? device.device, device.fsType, device.model].filter(Boolean).join(', ')
      : undefined,
    loadAverageAtStart: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function describeMachine(m: Machine): string {
  return `${m.cpuModel ?? 'unknown CPU'}, ${m.cores} cores, ${m.memoryGB} GB, ${m.os}, Linux ${m.kernel}, Node ${m.node}${m.disk ? `, disk ${m.disk}` : ''}; load average ${m.loadAverageAtStart} at start`;
}

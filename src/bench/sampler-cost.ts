/**
 * What monitoring costs txbench: CPU per sample of a Sampler on this machine's /proc, and what
 * that comes to at one sample a second. Each sample here is an `interval()` call (a snapshot, the
 * step added to the interval and the open window, and the interval's figures), so it bounds the
 * background timer's sample, which skips the figures, from above.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { deviceUnder } from '../monitor/host.js';
import { LocalSource } from '../monitor/local-source.js';
import { Sampler } from '../monitor/sampler.js';
import type { SystemSource, WatchedDevice } from '../monitor/types.js';

export interface SamplerCost {
  samples: number;
  /** The process's user + system CPU per sample, libuv's file-reading threads included. */
  cpuUsPerSample: number;
  wallMsPerSample: number;
  /** CPU at one sample a second, as a percentage of one core (the target: under 1). */
  pctOfOneCoreAt1s: number;
}

export interface SamplerCostOptions {
  samples?: number;
  source?: SystemSource;
  /** The disk under the temp directory unless given. */
  devices?: readonly WatchedDevice[];
}

export async function measureSamplerCost(options: SamplerCostOptions = {}): Promise<SamplerCost> {
  const samples = options.samples ?? 1000;
  const source = options.source ?? new LocalSource();
  const devices = options.devices ?? (await defaultDevices());
  // The timer stays out of the way: every sample is an explicit call, counted.
  const sampler = new Sampler({ source, devices, measureOwnCpu: true, periodMs: 3_600_000 });
  await sampler.start();
  await sampler.openWindow();
  // Warm up the code paths (JIT) before measuring.
  for (let i = 0; i < 50; i++) await sampler.interval();
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < samples; i++) await sampler.interval();
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - wall;
  await sampler.closeWindow();
  await sampler.stop();
  const cpuUsPerSample = (used.user + used.system) / samples;
  return {
    samples,
    cpuUsPerSample: Math.round(cpuUsPerSample),
    wallMsPerSample: Math.round((wallMs / samples) * 1000) / 1000,
    pctOfOneCoreAt1s: Math.round((cpuUsPerSample / 1e6) * 100 * 1000) / 1000,
  };
}

async function defaultDevices(): Promise<WatchedDevice[]> {
  const disk = (await deviceUnder(os.tmpdir())).disk;
  return disk === undefined ? [] : [{ name: disk, role: 'data' }];
}

/**
 * The Sampler on this machine's /proc against Debian's `iostat -dx` (sysstat) over the same
 * seconds: a few seconds of fsync'd writes in a temp directory on the root disk, watched by both.
 * Both read the same kernel counters, so over a window whose edges are quiet their write IOPS,
 * MB/s and latency per write must agree; other processes' I/O is seen by both alike.
 *
 * Like the other suites it drives the compiled code under dist/ (run `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceUnder } from '../../dist/monitor/host.js';
import { LocalSource } from '../../dist/monitor/local-source.js';
import { Sampler } from '../../dist/monitor/sampler.js';
import type { SystemSnapshot } from '../../src/monitor/types.js';

/** One second of `iostat -dx -o JSON` for one device (sysstat's kB are 1024 bytes). */
interface IostatSecond {
  'w/s': number;
  'wkB/s': number;
  w_await: number;
}

const SECONDS = 7;
const WRITE_BYTES = 64 * 1024;
const WRITES_PER_SECOND = 150;
const WRITE_SECONDS = 3;

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-iostat-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `count` writes of WRITE_BYTES, each made durable with fdatasync, paced at WRITES_PER_SECOND. */
async function writeDurably(file: string, count: number): Promise<void> {
  const fh = await open(file, 'w');
  const buffer = Buffer.alloc(WRITE_BYTES, 0x5a);
  const start = performance.now();
  try {
    for (let i = 0; i < count; i++) {
      const due = start + (i * 1000) / WRITES_PER_SECOND;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      await fh.write(buffer);
      await fh.datasync();
    }
  } finally {
    await fh.close();
  }
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

describe('Sampler on /proc against iostat -dx', () => {
  it('agrees within 10% on write IOPS, write MB/s and write latency over the same window', async () => {
    const disk = (await deviceUnder(dir)).disk;
    expect(disk, `no block device under ${dir}`).toBeDefined();
    const name = disk!;

    const local = new LocalSource();
    const edges: SystemSnapshot[] = [];
    const source = {
      description: local.description,
      snapshot: async (): Promise<SystemSnapshot> => {
        const s = await local.snapshot();
        edges.push(s);
        return s;
      },
    };
    const sampler = new Sampler({ source, devices: [{ name, role: 'data' }], measureOwnCpu: true });
    await sampler.start();

    // -y: no since-boot report; SECONDS reports of one second each, the first read at start-up.
    const iostat = spawn('iostat', ['-dx', '-y', '-o', 'JSON', name, '1', String(SECONDS)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    iostat.stdout.on('data', (d: Buffer) => (out += d.toString()));
    iostat.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve, reject) => {
      iostat.on('error', reject);
      iostat.on('exit', resolve);
    });
    await sampler.openWindow();
    const openedAt = edges.length - 1;

    // The writes sit well inside both windows, so the edges see only the machine's background.
    await sleep(1000);
    const writes = WRITES_PER_SECOND * WRITE_SECONDS;
    await writeDurably(path.join(dir, 'data'), writes);

    expect(await exited, `iostat failed: ${err}`).toBe(0);
    const window = await sampler.closeWindow();
    await sampler.stop();
    const windowSeconds = (edges.at(-1)!.atMs - edges[openedAt]!.atMs) / 1000;

    const seconds: IostatSecond[] = (
      JSON.parse(out) as { sysstat: { hosts: { statistics: { disk: IostatSecond[] }[] }[] } }
    ).sysstat.hosts[0]!.statistics.map((s) => s.disk[0]!);
    expect(seconds).toHaveLength(SECONDS);
    const iostatIops = sum(seconds.map((s) => s['w/s'])) / SECONDS;
    const iostatMBps = (sum(seconds.map((s) => s['wkB/s'])) * 1024) / 1e6 / SECONDS;
    const iostatLatencyMs = sum(seconds.map((s) => s.w_await * s['w/s'])) / sum(seconds.map((s) => s['w/s']));

    const device = window.devices.find((d) => d.name === name);
    expect(device, window.missing.join('; ')).toBeDefined();
    const { writeIops, writeMBps, writeLatencyMs } = device!;
    console.log(
      `${name} over ${windowSeconds.toFixed(2)} s (iostat ${SECONDS} s): write IOPS ${writeIops} vs ${iostatIops.toFixed(1)}, ` +
        `MB/s ${writeMBps} vs ${iostatMBps.toFixed(3)}, latency ms ${writeLatencyMs} vs ${iostatLatencyMs.toFixed(3)}; ` +
        `host ${JSON.stringify(window.host)}`,
    );

    // Our own writes dominate: at least the bytes written, over the window.
    expect(writeMBps * windowSeconds).toBeGreaterThanOrEqual((writes * WRITE_BYTES) / 1e6);
    expect(writeIops * windowSeconds).toBeGreaterThanOrEqual(writes);
    expect(writeLatencyMs).not.toBeNull();
    expect(writeLatencyMs!).toBeGreaterThan(0);

    expect(Math.abs(writeIops / iostatIops - 1)).toBeLessThan(0.1);
    expect(Math.abs(writeMBps / iostatMBps - 1)).toBeLessThan(0.1);
    expect(Math.abs(writeLatencyMs! / iostatLatencyMs - 1)).toBeLessThan(0.1);
    // Seconds, not the 100 a p99 needs: the slowest second stands as the max.
    expect(device!.writeLatencyMsP99).toBeNull();
    expect(device!.writeLatencyMsMax).not.toBeNull();
    expect(device!.latencyMsMax!).toBeGreaterThanOrEqual(device!.writeLatencyMsMax!);
  });
});

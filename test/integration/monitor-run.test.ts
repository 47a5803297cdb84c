/**
 * A real run on the embedded PostgreSQL, watched by txbench and by Debian's `iostat -dx` (sysstat)
 * at the same time: the data directory's disk shows write IOPS, MB/s and latency in the text
 * report, in intervals.ndjson and in run.json, and the window's figures agree with iostat's over
 * the same seconds within 10% (latency: for some placement of the seconds at the window's edges).
 *
 * iostat prints one line per second stamped with the second it ended in; each of its seconds is
 * weighted by how much of it lies inside the measured window, so the window's edges cost little on
 * a steady load. Like the other suites it drives the compiled code under dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceWindowFigures } from '../../src/monitor/types.js';
import { makeTempDir, removeDir, runCli, type CliResult } from './helpers.js';
import { freePort } from '../free-port.js';

interface IostatDisk {
  disk_device: string;
  'w/s': number;
  'wkB/s': number;
  w_await: number;
}
interface IostatJson {
  sysstat: { hosts: { statistics: { timestamp: string; disk: IostatDisk[] }[] }[] };
}

const WARMUP_S = 3;
const WINDOW_S = 12;

let dir: string;
let result: CliResult;
let iostat: IostatJson;
let scraped: PrometheusFamily[] | undefined;
let iostatChild: ChildProcess | undefined;

/** Scrapes --metrics-port until New-Orders and device figures show, or the run ends. */
async function scrapeWhileRunning(
  url: string,
  running: Promise<unknown>,
): Promise<PrometheusFamily[] | undefined> {
  let ended = false;
  void running.finally(() => (ended = true));
  while (!ended) {
    const text = await fetch(url).then(
      (r) => (r.ok ? r.text() : undefined),
      () => undefined,
    );
    if (text !== undefined) {
      const families = parsePrometheusTextFormat(text);
      const done = families.find((f) => f.name === 'txbench_transactions_total');
      const device = families.find((f) => f.name === 'txbench_device_write_iops');
      if (done && device && done.metrics.some((m) => Number(m.value) > 0)) return families;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return undefined;
}

/** iostat's ISO 8601 stamp (S_TIME_FORMAT=ISO), e.g. 2026-12-01T06:52:31+0000, as epoch ms. */
function iostatTime(stamp: string): number {
  const t = Date.parse(stamp.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  if (Number.isNaN(t)) throw new Error(`unexpected iostat timestamp ${stamp}`);
  return t;
}

beforeAll(async () => {
  dir = await makeTempDir();
  // Load first, so that iostat's run covers the measured window and little else.
  const load = await runCli(dir, ['load', '--warehouses', '1', '--data-dir', path.join(dir, 'pg')], 180_000);
  expect(load.code).toBe(0);
  // No count: iostat reports each second until it is interrupted, and SIGINT makes it close its
  // JSON. A fixed count ran out before the window ended when the server was slow to start.
  const child = spawn('iostat', ['-dx', '-y', '-t', '-o', 'JSON', '1'], {
    env: { ...process.env, LC_ALL: 'C', S_TIME_FORMAT: 'ISO' },
  });
  iostatChild = child;
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const finished = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const port = await freePort();
  const running = runCli(
    dir,
    [
      'run',
      '--metrics-port',
      String(port),
      '--data-dir',
      path.join(dir, 'pg'),
      '--warmup',
      `${WARMUP_S}s`,
      '--duration',
      `${WINDOW_S}s`,
      '--interval',
      '2s',
      '--terminals',
      '8',
      '--out',
      path.join(dir, 'results'),
    ],
    180_000,
  );
  scraped = await scrapeWhileRunning(`http://127.0.0.1:${port}/metrics`, running);
  result = await running;
  // Two more samples, so that one stamped after the window's last second is always there.
  await new Promise((r) => setTimeout(r, 2_500));
  child.kill('SIGINT');
  await finished;
  iostat = JSON.parse(out) as IostatJson;
}, 400_000);

afterAll(async () => {
  // Left running only when the run itself failed.
  if (iostatChild?.exitCode === null) iostatChild.kill('SIGINT');
  await removeDir(dir);
});

async function runDir(): Promise<string> {
  const m = /run directory: (.+)$/m.exec(result.stdout);
  if (!m) throw new Error(`no run directory in:\n${result.stdout}\n${result.stderr}`);
  return m[1]!.trim();
}

describe('a monitored run on the embedded server', () => {
  it('finishes and prints a storage line with write figures', () => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /storage \S+ \((data\+log|data)\): read .* write [\d.,]+ IOPS [\d.]+ MB\/s/,
    );
    expect(result.stdout).toMatch(/host: CPU user/);
  });

  it('writes the device figures into run.json and every interval of intervals.ndjson', async () => {
    const dirPath = await runDir();
    const run = JSON.parse(await readFile(path.join(dirPath, 'run.json'), 'utf8')) as {
      summary: { devices: DeviceWindowFigures[]; host: unknown };
    };
    const [device] = run.summary.devices;
    expect(device).toBeDefined();
    expect(device!.writeIops).toBeGreaterThan(0);
    expect(device!.writeMBps).toBeGreaterThan(0);
    expect(device!.writeLatencyMs).toBeGreaterThan(0);
    // A run of seconds, not 100 of them: the tail is the slowest second, named max, with its count.
    expect(device!.writeLatencyMsP99).toBeNull();
    expect(device!.writeLatencyMsMax).toBeGreaterThan(0);
    expect(device!.writeLatencySeconds).toBeGreaterThan(0);
    expect(run.summary.host).not.toBeNull();
    const lines = (await readFile(path.join(dirPath, 'intervals.ndjson'), 'utf8')).trim().split('\n');
    const measured = lines
      .map((l) => JSON.parse(l) as { phase: string; devices?: { name: string; writeIops: number }[] })
      .filter((i) => i.phase === 'measure');
    expect(measured.length).toBeGreaterThan(2);
    for (const i of measured) expect(i.devices?.map((d) => d.name)).toContain(device!.name);
    expect(measured.some((i) => i.devices!.find((d) => d.name === device!.name)!.writeIops > 0)).toBe(true);
  });

  it('serves the live run on --metrics-port as Prometheus text with the documented names', () => {
    expect(scraped, 'no scrape showed New-Orders and device figures while the run went on').toBeDefined();
    const names = new Set(scraped!.map((f) => f.name));
    for (const name of [
      'txbench_transactions_total',
      'txbench_response_time_seconds',
      'txbench_terminals',
      'txbench_device_read_iops',
      'txbench_device_write_iops',
      'txbench_device_write_mbps',
      'txbench_device_write_latency_ms',
      'txbench_device_queue_depth',
      'txbench_device_busy_pct',
      'txbench_host_cpu_pct',
      'txbench_host_mem_used_mb',
      'txbench_cpu_pct',
    ])
      expect(names, name).toContain(name);
    const terminals = scraped!.find((f) => f.name === 'txbench_terminals')!;
    expect(terminals.metrics.map((m) => Number(m.value))).toEqual([8]);
  });

  it('agrees with iostat -dx over the measured window within 10%, edge seconds placed either way', async () => {
    const dirPath = await runDir();
    const run = JSON.parse(await readFile(path.join(dirPath, 'run.json'), 'utf8')) as {
      summary: {
        windowSeconds: number;
        windowStartedAt: string;
        windowEndedAt: string;
        devices: DeviceWindowFigures[];
        monitor: { windowStartedAt: string; windowEndedAt: string };
      };
    };
    const device = run.summary.devices[0]!;
    // The edges of the device figures are the snapshots that bound them, which trail the run's
    // window edges by any snapshot then in progress (on a loaded machine, up to a second or so).
    const start = Date.parse(run.summary.monitor.windowStartedAt);
    const end = Date.parse(run.summary.monitor.windowEndedAt);
    expect(Math.abs(start - Date.parse(run.summary.windowStartedAt))).toBeLessThan(5_000);
    const monitoredSeconds = (end - start) / 1000;
    // iostat has one-second resolution and the window's edges fall inside its seconds: a burst of
    // checkpoint writes in an edge second cannot be placed. So the bytes and writes txbench counts
    // in the window must lie between those of the iostat seconds wholly inside it and those of every
    // second touching it; the rates and the latency, weighted by overlap, within 10%.
    let writes = 0;
    let kib = 0;
    let awaitWeighted = 0;
    let covered = 0;
    const inner = { writes: 0, kib: 0, writeMs: 0 };
    const outer = { writes: 0, kib: 0, writeMs: 0 };
    // iostat sleeps a second between samples, so on a busy machine its samples run longer than a
    // second: each is taken to span the mean gap between its stamps, not exactly one second.
    const samples = iostat.sysstat.hosts[0]!.statistics;
    const spanMs =
      samples.length > 1
        ? Math.max(
            1000,
            (iostatTime(samples[samples.length - 1]!.timestamp) - iostatTime(samples[0]!.timestamp)) /
              (samples.length - 1),
          )
        : 1000;
    const span = spanMs / 1000;
    for (const s of samples) {
      const secondEnd = iostatTime(s.timestamp);
      const overlap = Math.max(0, Math.min(secondEnd, end) - Math.max(secondEnd - spanMs, start)) / 1000;
      const d = s.disk.find((x) => x.disk_device === device.name);
      if (d === undefined) continue;
      // iostat's stamps are whole seconds (truncated): a sample stamped T ended in [T, T + 1 s).
      if (secondEnd + 1000 > start && secondEnd - spanMs < end) {
        outer.writes += d['w/s'] * span;
        outer.kib += d['wkB/s'] * span;
        outer.writeMs += d.w_await * d['w/s'] * span;
      }
      if (secondEnd - spanMs >= start && secondEnd + 1000 <= end) {
        inner.writes += d['w/s'] * span;
        inner.kib += d['wkB/s'] * span;
        inner.writeMs += d.w_await * d['w/s'] * span;
      }
      if (overlap <= 0) continue;
      covered += overlap;
      writes += d['w/s'] * overlap;
      kib += d['wkB/s'] * overlap;
      awaitWeighted += d.w_await * d['w/s'] * overlap;
    }
    const stamps = samples.filter((s) => s.disk.some((x) => x.disk_device === device.name));
    expect(
      covered,
      `iostat covered ${covered.toFixed(2)} of ${monitoredSeconds} s: window ${run.summary.monitor.windowStartedAt}` +
        ` to ${run.summary.monitor.windowEndedAt}, ${stamps.length} samples with ${device.name} from` +
        ` ${stamps[0]?.timestamp} to ${stamps[stamps.length - 1]?.timestamp}, span ${span.toFixed(3)} s`,
    ).toBeGreaterThan(monitoredSeconds * 0.9);
    const iostatIops = writes / covered;
    const iostatMBps = (kib * 1024) / 1e6 / covered;
    const iostatAwait = awaitWeighted / writes;
    const within10 = (ours: number, theirs: number): void =>
      expect(Math.abs(ours - theirs) / theirs, `txbench ${ours} vs iostat ${theirs}`).toBeLessThan(0.1);
    const between = (ours: number, low: number, high: number, what: string): void => {
      expect(ours, `${what}: txbench ${ours} below iostat's inner seconds ${low}`).toBeGreaterThan(
        low * 0.98,
      );
      expect(ours, `${what}: txbench ${ours} above iostat's touching seconds ${high}`).toBeLessThan(
        high * 1.05,
      );
    };
    console.log(
      `${device.name} over the window: write IOPS ${device.writeIops} vs iostat ${iostatIops.toFixed(1)}, ` +
        `MB/s ${device.writeMBps} vs ${iostatMBps.toFixed(3)}, latency ms ${device.writeLatencyMs} vs ${iostatAwait.toFixed(3)}`,
    );
    const seconds = monitoredSeconds;
    between(device.writeIops * seconds, inner.writes, outer.writes, 'writes');
    between((device.writeMBps * seconds * 1e6) / 1024, inner.kib, outer.kib, 'KiB written');
    within10(device.writeIops, iostatIops);
    // Latency is a mean over few writes at these rates (about 0.1 ms each), so one slow flush in an
    // edge second moves it by a third: txbench's figure must be within 10% of iostat's for some
    // placement of the edge seconds, from none of them (inner) to all of them (touching).
    const candidates = [iostatAwait, outer.writeMs / outer.writes];
    if (inner.writes > 0) candidates.push(inner.writeMs / inner.writes);
    const low = Math.min(...candidates);
    const high = Math.max(...candidates);
    const latency = device.writeLatencyMs!;
    const latencyAgainst = `latency: txbench ${latency} ms vs iostat ${low.toFixed(3)}-${high.toFixed(3)} ms`;
    expect(latency, latencyAgainst).toBeGreaterThanOrEqual(low * 0.9);
    expect(latency, latencyAgainst).toBeLessThanOrEqual(high * 1.1);
  });
});

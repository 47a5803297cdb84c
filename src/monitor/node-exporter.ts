/**
 * Snapshots of another machine from its Prometheus node_exporter (the agent servers already run):
 * the same disk, CPU and memory counters /proc gives locally, read from node_exporter's text
 * exposition, so one set of arithmetic turns either into figures.
 */
import { performance } from 'node:perf_hooks';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { UsageError, errorMessage } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import { BYTES_PER_MB } from '../util/units.js';
import type { CpuTimes, DiskCounters, SystemSnapshot, SystemSource } from './types.js';

/** Long enough for a loaded server across a network, short enough not to stall one-second sampling long. */
const DEFAULT_TIMEOUT_MS = 2000;

/**
 * node_exporter's diskstats metric behind each counter, and the factor to /proc/diskstats' unit:
 * it exports the kernel's milliseconds as seconds (with millisecond precision) and sectors as bytes.
 */
const DISK_METRICS: Readonly<Record<keyof DiskCounters, { metric: string; scale: number }>> = {
  readsCompleted: { metric: 'node_disk_reads_completed_total', scale: 1 },
  readBytes: { metric: 'node_disk_read_bytes_total', scale: 1 },
  readMs: { metric: 'node_disk_read_time_seconds_total', scale: 1000 },
  writesCompleted: { metric: 'node_disk_writes_completed_total', scale: 1 },
  writtenBytes: { metric: 'node_disk_written_bytes_total', scale: 1 },
  writeMs: { metric: 'node_disk_write_time_seconds_total', scale: 1000 },
  inFlight: { metric: 'node_disk_io_now', scale: 1 },
  busyMs: { metric: 'node_disk_io_time_seconds_total', scale: 1000 },
  weightedMs: { metric: 'node_disk_io_time_weighted_seconds_total', scale: 1000 },
};

/**
 * A snapshot from node_exporter's /metrics text. `disks` holds whole disks only: node_exporter
 * may list partitions beside their disks and device-mapper or md devices beside the disks beneath
 * them, and their I/O is counted on those disks too. A partition is dropped when its disk is
 * listed; dm-* and md* are dropped unless named in `keep` (`--device dm-0`), as are partitions.
 */
export function parseNodeExporter(text: string, atMs: number, keep: readonly string[] = []): SystemSnapshot {
  const families = parseFamilies(text);
  const { disks, listed } = diskCounters(families);
  for (const name of [...disks.keys()]) {
    if (keep.includes(name)) continue;
    if (isStacked(name) || listed.some((disk) => isPartitionOf(name, disk))) disks.delete(name);
  }
  return { atMs, disks, ...cpuTimes(families), memory: memory(families) };
}

/** A `--device` that the exporter does not list: one line naming the ones it does. */
export function requireDisk(snapshot: SystemSnapshot, device: string, source: string): void {
  if (snapshot.disks.has(device)) return;
  const listed = [...snapshot.disks.keys()].sort();
  throw new UsageError(
    `--device ${device}: ${source} lists no such disk; ${
      listed.length > 0
        ? `it lists ${listed.join(', ')}`
        : 'it lists no disks (is its diskstats collector on?)'
    }`,
  );
}

export class NodeExporterSource implements SystemSource {
  readonly description: string;
  /** The address without its credentials: the only form any message or report ever shows. */
  private readonly url: string;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly timeoutMs: number;
  private readonly keep: readonly string[];

  /**
   * `url` is the exporter's address (`http://db1:9100`, /metrics added when no path is given);
   * a user and password in it (`http://txbench:secret@db1:9100`) are sent as HTTP basic auth, as
   * node_exporter's --web.config.file basic_auth_users asks. `devices` are disks named by the user,
   * kept even when they are dm-* or md* devices.
   */
  constructor(url: string, options: { timeoutMs?: number; devices?: readonly string[] } = {}) {
    const { address, authorization } = metricsUrl(url);
    this.url = address;
    this.headers = authorization === undefined ? {} : { authorization };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.keep = options.devices ?? [];
    this.description = `node_exporter ${this.url}`;
  }

  /** Throws a one-line Error when the exporter cannot be reached or does not answer with metrics. */
  async snapshot(): Promise<SystemSnapshot> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        headers: this.headers,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new Error(`node_exporter at ${this.url} is unreachable: ${fetchFailure(err, this.timeoutMs)}`);
    }
    // promhttp gathers every collector before it sends the headers: the counters were read just before.
    const atMs = performance.now();
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`node_exporter at ${this.url} answered HTTP ${response.status} ${response.statusText}`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw new Error(`node_exporter at ${this.url} is unreachable: ${fetchFailure(err, this.timeoutMs)}`);
    }
    let snapshot: SystemSnapshot;
    try {
      snapshot = parseNodeExporter(text, atMs, this.keep);
    } catch (err) {
      throw new Error(`node_exporter at ${this.url} sent what is not Prometheus text: ${errorMessage(err)}`);
    }
    if (snapshot.disks.size === 0 && snapshot.cpu === undefined && snapshot.memory === undefined) {
      throw new Error(
        `${this.url} sent no node_disk_*, node_cpu_seconds_total or node_memory_* metrics: is it a node_exporter?`,
      );
    }
    return snapshot;
  }
}

/**
 * http(s)://host:port, with /metrics when no path is given, and its credentials apart as a basic
 * auth header (fetch refuses a URL that carries them, and they must never reach a message);
 * anything else is a usage error.
 */
function metricsUrl(text: string): { address: string; authorization: string | undefined } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--node-exporter ${redactUrl(text)} is not a URL; give one like http://db1:9100`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `--node-exporter ${redactUrl(text)} is not an http:// or https:// URL; give one like http://db1:9100`,
    );
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/metrics';
  const credentials =
    url.username === '' && url.password === ''
      ? undefined
      : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  url.username = '';
  url.password = '';
  return {
    address: url.toString(),
    authorization:
      credentials === undefined ? undefined : `Basic ${Buffer.from(credentials).toString('base64')}`,
  };
}

/** Why a fetch failed, in a few words: the system error's code and message, or the timeout. */
function fetchFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error ? err.cause : undefined;
  return errorMessage(cause ?? err).split('\n')[0]!;
}

function parseFamilies(text: string): ReadonlyMap<string, PrometheusFamily> {
  // The parser drops the last sample when the text does not end with a newline.
  const families = parsePrometheusTextFormat(text.endsWith('\n') ? text : text + '\n');
  return new Map(families.map((f) => [f.name, f]));
}

/** Each sample's value by one of its labels, skipping samples without it or with a non-finite value. */
function valuesByLabel(family: PrometheusFamily | undefined, label: string): [string, number][] {
  const values: [string, number][] = [];
  for (const sample of family?.metrics ?? []) {
    const key = sample.labels?.[label];
    const value = Number(sample.value);
    if (key !== undefined && sample.value !== undefined && Number.isFinite(value)) values.push([key, value]);
  }
  return values;
}

/**
 * Devices with every counter present (a device missing one cannot give figures and is left out),
 * and every device any counter names, to tell a partition by its disk even when the disk is left out.
 */
function diskCounters(families: ReadonlyMap<string, PrometheusFamily>): {
  disks: Map<string, DiskCounters>;
  listed: string[];
} {
  const byField = Object.entries(DISK_METRICS).map(([field, { metric, scale }]) => ({
    field: field as keyof DiskCounters,
    scale,
    values: new Map(valuesByLabel(families.get(metric), 'device')),
  }));
  const listed = [...new Set(byField.flatMap(({ values }) => [...values.keys()]))];
  const disks = new Map<string, DiskCounters>();
  for (const device of listed) {
    const counters: Partial<DiskCounters> = {};
    for (const { field, scale, values } of byField) {
      const value = values.get(device);
      // Seconds with millisecond precision: rounding recovers the kernel's whole milliseconds.
      if (value !== undefined) counters[field] = scale === 1 ? value : Math.round(value * scale);
    }
    if (Object.keys(counters).length === byField.length) disks.set(device, counters as DiskCounters);
  }
  return { disks, listed };
}

/** CPU seconds by mode summed over CPUs, and the number of CPUs (distinct `cpu` labels). */
function cpuTimes(families: ReadonlyMap<string, PrometheusFamily>): Pick<SystemSnapshot, 'cpu' | 'cpus'> {
  const family = families.get('node_cpu_seconds_total');
  const totals = new Map<string, number>();
  const cpus = new Set<string>();
  for (const sample of family?.metrics ?? []) {
    const cpu = sample.labels?.cpu;
    const mode = sample.labels?.mode;
    const value = Number(sample.value);
    if (cpu === undefined || mode === undefined || !Number.isFinite(value)) continue;
    cpus.add(cpu);
    totals.set(mode, (totals.get(mode) ?? 0) + value);
  }
  if (cpus.size === 0) return { cpu: undefined, cpus: undefined };
  const t = (mode: keyof CpuTimes): number => totals.get(mode) ?? 0;
  const cpu: CpuTimes = {
    user: t('user'),
    nice: t('nice'),
    system: t('system'),
    idle: t('idle'),
    iowait: t('iowait'),
    irq: t('irq'),
    softirq: t('softirq'),
    steal: t('steal'),
  };
  return { cpu, cpus: cpus.size };
}

/** Used memory (MemTotal − MemAvailable) and page cache (Cached + Buffers), in MB. */
function memory(families: ReadonlyMap<string, PrometheusFamily>): SystemSnapshot['memory'] {
  const bytes = (name: string): number | undefined => {
    const value = Number(families.get(`node_memory_${name}_bytes`)?.metrics[0]?.value);
    return Number.isFinite(value) ? value : undefined;
  };
  const total = bytes('MemTotal');
  if (total === undefined) return undefined;
  const pageCache = (bytes('Cached') ?? 0) + (bytes('Buffers') ?? 0);
  // Kernels before 3.14 have no MemAvailable: free memory plus the page cache stands in, as locally.
  const available = bytes('MemAvailable') ?? (bytes('MemFree') ?? 0) + pageCache;
  const mb = (b: number): number => Math.round(b / BYTES_PER_MB);
  return { usedMB: mb(Math.max(0, total - available)), pageCacheMB: mb(pageCache) };
}

/** Device-mapper (LVM, crypt) and md RAID devices sit on other disks, whose counters hold their I/O. */
function isStacked(name: string): boolean {
  return /^(dm-|md)\d/.test(name);
}

/** sda1 of sda, vda15 of vda, nvme0n1p2 of nvme0n1, mmcblk0p1 of mmcblk0 (but nvme0n10 is a namespace). */
export function isPartitionOf(name: string, disk: string): boolean {
  if (name.length <= disk.length || !name.startsWith(disk)) return false;
  const rest = name.slice(disk.length);
  return /\d$/.test(disk) ? /^p\d+$/.test(rest) : /^\d+$/.test(rest);
}

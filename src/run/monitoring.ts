/**
 * Sets up what watches one target while it runs: which source (this machine's /proc, or the
 * database host's node_exporter), which disks (those under the data and log directories, or the one
 * the user named, or every disk the exporter shows busy during the warm-up), and the database's own
 * I/O counters. Knows no
 * workload: any run path hands it a dialect, a connection and the environment it described.
 */
import type { Db, Dialect } from '../dialects/dialect.js';
import { watchedDevicesFor, type StoragePath } from '../monitor/block-devices.js';
import { LocalSource } from '../monitor/local-source.js';
import { NodeExporterSource, requireDisk } from '../monitor/node-exporter.js';
import { Sampler } from '../monitor/sampler.js';
import type { RunMonitor, SystemSnapshot, SystemSource, WatchedDevice } from '../monitor/types.js';
import { embeddedStoragePaths } from '../targets/embedded.js';
import type { RunEnvironment } from '../results/environment.js';

export interface MonitoringOptions {
  /** The database host's node_exporter; without it, this machine's /proc. */
  nodeExporter?: string | undefined;
  /** A disk named by the user (kernel name) instead of the ones found under the data and log. */
  device?: string | undefined;
  /** The embedded server's data directory. */
  localDataDir?: string | undefined;
}

/** What the reports say about how the target was watched. */
export interface MonitorDescription {
  source: string;
  notes: string[];
}

export interface TargetMonitor {
  monitor: RunMonitor;
  description: MonitorDescription;
}

export async function startTargetMonitor(
  dialect: Dialect,
  db: Db,
  environment: RunEnvironment,
  options: MonitoringOptions,
): Promise<TargetMonitor> {
  const notes: string[] = [];
  let source: SystemSource;
  let devices: WatchedDevice[] | 'busy';
  let onDevicesChosen: ((names: readonly string[]) => void) | undefined;
  if (options.nodeExporter !== undefined) {
    const exporter = new NodeExporterSource(options.nodeExporter, {
      devices: options.device === undefined ? [] : [options.device],
    });
    source = exporter;
    devices = await exporterDevices(exporter, options.device, notes);
    if (devices === 'busy') onDevicesChosen = (names) => notes.push(busyDisksNote(names, exporter));
  } else {
    source = new LocalSource();
    devices = await localDevices(dialect, db, environment, options, notes);
  }
  const monitor = new Sampler({
    source,
    devices,
    onDevicesChosen,
    databaseCounters: dialect.ioCounterReader?.(db),
    // txbench's own CPU is this machine's: a remote host's figures are the database's alone.
    measureOwnCpu: options.nodeExporter === undefined,
    notes,
  });
  await monitor.start();
  return { monitor, description: { source: source.description, notes } };
}

/** The disks under the data and log directories, when they are on this machine. */
async function localDevices(
  dialect: Dialect,
  db: Db,
  environment: RunEnvironment,
  options: MonitoringOptions,
  notes: string[],
): Promise<WatchedDevice[]> {
  if (options.device !== undefined) return [{ name: options.device, role: 'data+log' }];
  if (environment.device.kind === 'remote') {
    notes.push(
      `the database is not on this machine (${environment.device.reason}): no disk figures; give --node-exporter URL for its host's`,
    );
    return [];
  }
  const paths: StoragePath[] =
    options.localDataDir !== undefined
      ? embeddedStoragePaths(options.localDataDir)
      : [{ role: 'data', path: environment.device.path }];
  if (options.localDataDir === undefined && dialect.logDirectory) {
    const log = await dialect.logDirectory(db).catch(() => undefined);
    if (log !== undefined) paths.push({ role: 'log', path: log });
  }
  const resolved = await watchedDevicesFor(paths);
  notes.push(...resolved.notes);
  return resolved.devices;
}

/**
 * The named disk (refused when the exporter does not list it), else `busy`: every disk that
 * carries I/O during the warm-up, chosen when the window opens (see Sampler).
 */
async function exporterDevices(
  exporter: NodeExporterSource,
  device: string | undefined,
  notes: string[],
): Promise<WatchedDevice[] | 'busy'> {
  let first: SystemSnapshot;
  try {
    first = await exporter.snapshot();
  } catch (err) {
    // Unreachable now: one warning, the run goes on, and every interval says what is missing.
    notes.push(`${err instanceof Error ? err.message : String(err)}; its figures are missing`);
    return device === undefined ? 'busy' : [{ name: device, role: 'data+log' }];
  }
  if (device !== undefined) {
    requireDisk(first, device, exporter.description);
    return [{ name: device, role: 'data+log' }];
  }
  if (first.disks.size === 0) {
    notes.push(`${exporter.description} lists no disks: no disk figures (is its diskstats collector on?)`);
    return [];
  }
  return 'busy';
}

function busyDisksNote(names: readonly string[], exporter: NodeExporterSource): string {
  return names.length > 0
    ? `watching ${names.join(', ')}: the disks ${exporter.description} showed I/O on during the warm-up (name one with --device)`
    : `no disk ${exporter.description} lists carried I/O during the warm-up: each interval and the window show the disks that did in them (name one with --device)`;
}

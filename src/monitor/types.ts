/**
 * The monitoring contract: what a source of system counters yields (cumulative snapshots), and the
 * per-interval and per-window figures computed from two snapshots. Local /proc and a remote
 * Prometheus node_exporter yield the same snapshot shape, so one set of arithmetic serves both and
 * their figures agree by construction. Nothing here knows a workload, a database or a thread.
 */

/** Whether a device holds the database's data files, its log (WAL, redo), or both. */
export type DeviceRole = 'data' | 'log' | 'data+log';

/** A block device to watch and why: the one a file system sits on, or a disk named by the user. */
export interface WatchedDevice {
  /** Kernel name, e.g. `vda`, `nvme0n1p2`, `dm-0`, `md0`. */
  name: string;
  role: DeviceRole;
  /**
   * What it is made of (an md array's legs, a volume's disks, a partition's disk): watched as its
   * detail, never added to it, since they carry its I/O again (a mirror's twice) or other I/O too.
   */
  members?: readonly string[] | undefined;
}

/** One disk's cumulative counters, as /proc/diskstats (or node_exporter) gives them. */
export interface DiskCounters {
  readsCompleted: number;
  readBytes: number;
  /** Milliseconds spent on reads (summed over all reads, so it can exceed wall time). */
  readMs: number;
  writesCompleted: number;
  writtenBytes: number;
  writeMs: number;
  /** I/Os currently in flight (a gauge, not cumulative). */
  inFlight: number;
  /** Milliseconds the device had at least one I/O in flight. */
  busyMs: number;
  /** Milliseconds × I/Os in flight: its rate is the average queue depth. */
  weightedMs: number;
}

/** Cumulative CPU time of the whole machine, in seconds, summed over its CPUs. */
export interface CpuTimes {
  user: number;
  nice: number;
  system: number;
  idle: number;
  iowait: number;
  irq: number;
  softirq: number;
  steal: number;
}

/** What one source read at one moment. Any part it could not read is undefined. */
export interface SystemSnapshot {
  /** performance.now() (ms) when the snapshot was taken. */
  atMs: number;
  /** Whole disks by kernel name. */
  disks: ReadonlyMap<string, DiskCounters>;
  cpu?: CpuTimes | undefined;
  /** Logical CPUs, to turn CPU seconds into percentages of the machine. */
  cpus?: number | undefined;
  memory?: { usedMB: number; pageCacheMB: number } | undefined;
}

/** Anything that yields snapshots: /proc on this machine, or a node_exporter elsewhere. */
export interface SystemSource {
  /** A short description for reports, e.g. `local /proc` or `node_exporter http://db1:9100`. */
  readonly description: string;
  snapshot(): Promise<SystemSnapshot>;
}

/** One device over one interval (the contract of intervals.ndjson `devices[]`). */
export interface DeviceFigures {
  name: string;
  role: DeviceRole;
  readIops: number;
  writeIops: number;
  readMBps: number;
  writeMBps: number;
  /** Average time per read completed in the interval; null when none completed. */
  readLatencyMs: number | null;
  writeLatencyMs: number | null;
  queueDepth: number;
  busyPct: number;
  /** The figures of what the device is made of (see WatchedDevice.members); detail, not in any total. */
  members?: DeviceFigures[] | undefined;
}

/**
 * One device over the measured window (run.json `summary.devices[]`). The percentiles are of the
 * per-second latencies, each second weighted by the I/Os it completed (see latency-tail.ts).
 */
export interface DeviceWindowFigures extends DeviceFigures {
  /** null when no second had a read. */
  readLatencyMsP50: number | null;
  /** null when no second had a read, or too few did to support a p99: then see readLatencyMsMax. */
  readLatencyMsP99: number | null;
  /** The slowest second's read latency. Absent in runs before it was recorded. */
  readLatencyMsMax?: number | null | undefined;
  /** Seconds with reads that the read percentiles rest on. Absent in runs before it was recorded. */
  readLatencySeconds?: number | undefined;
  writeLatencyMsP50: number | null;
  writeLatencyMsP99: number | null;
  writeLatencyMsMax?: number | null | undefined;
  writeLatencySeconds?: number | undefined;
  /** The worst per-second latency (read or write) in the window. */
  latencyMsMax: number | null;
}

/** The machine over one interval (the contract of intervals.ndjson `host`). */
export interface HostFigures {
  cpuUserPct: number;
  cpuSystemPct: number;
  cpuIowaitPct: number;
  cpuStealPct: number;
  memUsedMB: number;
  pageCacheMB: number;
  /** txbench's own CPU as a percentage of one core; null for a remote host. */
  txbenchCpuPct: number | null;
}

/** A database's own I/O counters over one interval, by name (per dialect, documented there). */
export type DatabaseFigures = Record<string, number>;

/** Everything monitoring adds to one interval. Missing parts are null with the reason in `missing`. */
export interface MonitorInterval {
  devices: DeviceFigures[];
  host: HostFigures | null;
  database: DatabaseFigures | null;
  /** One line per part that could not be read this interval (unreachable exporter, vanished device). */
  missing: string[];
}

/** Everything monitoring adds to a measured window. */
export interface MonitorWindow {
  devices: DeviceWindowFigures[];
  host: HostFigures | null;
  database: DatabaseFigures | null;
  missing: string[];
  /**
   * Wall-clock times (ISO 8601) of the snapshots that bound the window's figures: they trail the
   * run's window edges by however long a snapshot already in progress took.
   */
  startedAt?: string | undefined;
  endedAt?: string | undefined;
}

/**
 * What a run asks of monitoring, whatever the workload and however many threads drive it: sampling
 * every second in the background (never on a transaction's path), the figures of each interval and
 * of the measured window on demand. One per target; host figures are the machine's.
 */
export interface RunMonitor {
  /** Takes the first snapshot and starts sampling every second. */
  start(): Promise<void>;
  /** The figures since the previous call (or since start): called at each interval's end. */
  interval(): Promise<MonitorInterval>;
  /** The measured window starts now (per-second latencies are collected from here). */
  openWindow(): Promise<void>;
  /** The measured window ends now: its averages and per-second latency percentiles. */
  closeWindow(): Promise<MonitorWindow>;
  stop(): Promise<void>;
}

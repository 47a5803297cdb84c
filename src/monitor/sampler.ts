/**
 * The run's monitor: a snapshot of the system every second in the background, figures per
 * interval and over the measured window on demand.
 *
 * Every snapshot (the timer's, and the fresh ones `interval`, `openWindow` and `closeWindow` take)
 * advances one chain: what each watched device did since the previous snapshot is added to the
 * open spans (the current interval, and the window while it is open). A span keeps sums and the
 * seconds they cover, the window also each second's latencies: numbers, never snapshots, so memory
 * stays small. Summing steps rather than subtracting a span's edges lets a device that vanishes,
 * comes back or has its counters reset lose only the steps it missed, never give negative rates.
 */
import { performance } from 'node:perf_hooks';
import { diskDelta, figuresOfDelta, hostFigures, latencyMs, round, ZERO_COUNTERS } from './figures.js';
import { latencyTail, type LatencySecond } from './latency-tail.js';
import type {
  DatabaseFigures,
  DeviceFigures,
  DeviceWindowFigures,
  DiskCounters,
  HostFigures,
  MonitorInterval,
  MonitorWindow,
  RunMonitor,
  SystemSnapshot,
  SystemSource,
  WatchedDevice,
} from './types.js';

export interface SamplerOptions {
  source: SystemSource;
  /**
   * The disks to watch, or `busy` to watch every disk the source lists until the window opens and
   * from then on those that carried I/O before it (the warm-up's); when none did, each span shows
   * the disks that carried I/O in it.
   */
  devices: readonly WatchedDevice[] | 'busy';
  /** Told which disks were chosen when `devices` is `busy` (none: every busy one, span by span). */
  onDevicesChosen?: (names: readonly string[]) => void;
  /** The database's cumulative I/O counters (the dialect's), or undefined when it has none. */
  databaseCounters?: () => Promise<Record<string, number> | undefined>;
  /** Whether the source is this machine, so txbench's own CPU belongs beside its figures. */
  measureOwnCpu: boolean;
  /** Milliseconds between snapshots; 1000 unless a test says otherwise. */
  periodMs?: number;
  /** Lines about what cannot be watched (a data directory on tmpfs, say), repeated in every `missing`. */
  notes?: readonly string[];
}

/** What one device did over a span: summed deltas, the seconds they cover, and what was left out. */
interface DeviceSpan {
  delta: DiskCounters;
  seconds: number;
  /** Snapshots in which the device was not among the source's disks. */
  absent: number;
  /** Steps skipped because its counters went backwards. */
  resets: number;
  /** Per-step latencies and I/O counts of steps long enough to stand for a second; window spans only. */
  readLatencies: LatencySecond[];
  writeLatencies: LatencySecond[];
}

/** An interval or the window, from its opening snapshot on. */
interface Span {
  devices: Map<string, DeviceSpan>;
  /** The latest snapshot that succeeded when the span opened: the host figures' start. */
  from: SystemSnapshot | undefined;
  samples: number;
  failures: number;
  firstError: string | undefined;
  cpu: NodeJS.CpuUsage;
  wallMs: number;
  database: Record<string, number> | undefined;
  databaseError: string | undefined;
}

interface DatabaseRead {
  values: Record<string, number> | undefined;
  error: string | undefined;
}

export class Sampler implements RunMonitor {
  private readonly source: SystemSource;
  private devices: readonly WatchedDevice[];
  /** Until the window opens with `devices: 'busy'`: the disks that carried I/O so far. */
  private busySoFar: Set<string> | undefined;
  /** With `devices: 'busy'` and no disk busy before the window: each span shows its busy disks. */
  private busyOnly = false;
  private readonly onDevicesChosen: SamplerOptions['onDevicesChosen'];
  private readonly databaseCounters: SamplerOptions['databaseCounters'];
  private readonly measureOwnCpu: boolean;
  private readonly periodMs: number;
  private readonly notes: readonly string[];

  /** Each watched device's counters at the latest snapshot that had it. */
  private readonly lastSeen = new Map<string, { counters: DiskCounters; atMs: number }>();
  private lastGood: SystemSnapshot | undefined;
  private intervalSpan: Span;
  private windowSpan: Span | undefined;
  /** When the snapshot that opened the window was read. */
  private windowOpenedAt: Date | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Snapshots run one at a time, in order; the timer skips a tick while one is queued. */
  private queue: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private started = false;

  constructor(options: SamplerOptions) {
    this.source = options.source;
    this.devices = options.devices === 'busy' ? [] : options.devices;
    this.busySoFar = options.devices === 'busy' ? new Set() : undefined;
    this.onDevicesChosen = options.onDevicesChosen;
    this.databaseCounters = options.databaseCounters;
    this.measureOwnCpu = options.measureOwnCpu;
    this.periodMs = options.periodMs ?? 1000;
    // A copy: lines the caller adds later (which disks were chosen) are its own, not every span's.
    this.notes = [...(options.notes ?? [])];
    this.intervalSpan = this.newSpan();
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const span = await this.sample((first) => {
      // The first interval opens at the first snapshot, or (it failed) keeps the failure to report.
      if (first !== undefined) this.intervalSpan = this.newSpan();
      return this.intervalSpan;
    });
    await this.readDatabaseInto(span);
    this.timer = setInterval(() => this.tick(), this.periodMs);
    // Sampling must never keep the process alive after the run.
    this.timer.unref();
  }

  async interval(): Promise<MonitorInterval> {
    const { span, end, next } = await this.sample((end) => {
      const span = this.intervalSpan;
      this.intervalSpan = this.newSpan();
      return { span, end, next: this.intervalSpan };
    });
    const database = await this.readDatabaseInto(next);
    return this.spanFigures(span, end, database, 'interval');
  }

  async openWindow(): Promise<void> {
    const span = await this.sample(() => {
      this.windowOpenedAt = new Date();
      this.chooseBusyDisks();
      return (this.windowSpan = this.newSpan());
    });
    await this.readDatabaseInto(span);
  }

  async closeWindow(): Promise<MonitorWindow> {
    const { span, end, endedAt } = await this.sample((end) => {
      const span = this.windowSpan;
      this.windowSpan = undefined;
      return { span, end, endedAt: new Date() };
    });
    if (span === undefined) throw new Error('closeWindow() without openWindow()');
    const database = await this.readDatabase();
    const figures = this.spanFigures(span, end, database, 'window');
    const devices: DeviceWindowFigures[] = figures.devices.map((f) => {
      const d = span.devices.get(f.name)!;
      const read = latencyTail(d.readLatencies);
      const write = latencyTail(d.writeLatencies);
      const worst = Math.max(read.max ?? -Infinity, write.max ?? -Infinity);
      return {
        ...f,
        readLatencyMsP50: read.p50,
        readLatencyMsP99: read.p99,
        readLatencyMsMax: read.max,
        readLatencySeconds: read.seconds,
        writeLatencyMsP50: write.p50,
        writeLatencyMsP99: write.p99,
        writeLatencyMsMax: write.max,
        writeLatencySeconds: write.seconds,
        latencyMsMax: worst === -Infinity ? null : worst,
      };
    });
    return {
      ...figures,
      devices,
      startedAt: this.windowOpenedAt?.toISOString(),
      endedAt: endedAt.toISOString(),
    };
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.queue;
  }

  private tick(): void {
    // A snapshot still running (a slow exporter, a stalled /proc read) makes this tick a skip.
    if (this.queued > 0) return;
    this.sample(() => undefined).catch(() => undefined);
  }

  /**
   * Takes a snapshot, advances the chain, then runs `then` before any other snapshot can start.
   * Never rejects because of the source: a failed snapshot is counted in the open spans.
   */
  private sample<T>(then: (snapshot: SystemSnapshot | undefined) => T): Promise<T> {
    this.queued += 1;
    const run = this.queue.then(async () => {
      try {
        const snapshot = await this.take();
        return then(snapshot);
      } finally {
        this.queued -= 1;
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async take(): Promise<SystemSnapshot | undefined> {
    let snapshot: SystemSnapshot;
    try {
      snapshot = await this.source.snapshot();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      for (const span of this.openSpans()) {
        span.failures += 1;
        span.firstError ??= message;
      }
      return undefined;
    }
    for (const span of this.openSpans()) span.samples += 1;
    this.advance(snapshot);
    this.lastGood = snapshot;
    return snapshot;
  }

  /**
   * With `devices: 'busy'`, the window watches the disks that carried I/O before it opened; when
   * none did (no warm-up, an idle one, an exporter unreachable until now), every disk stays
   * watched and each span shows those that carried I/O in it.
   */
  private chooseBusyDisks(): void {
    const busy = this.busySoFar;
    if (busy === undefined) return;
    this.busySoFar = undefined;
    if (busy.size > 0) this.devices = this.devices.filter((d) => busy.has(d.name));
    else this.busyOnly = true;
    this.onDevicesChosen?.(this.devices.filter((d) => busy.has(d.name)).map((d) => d.name));
  }

  /** The watched devices and their members, each once: every device whose counters are followed. */
  private tracked(): WatchedDevice[] {
    const byName = new Map<string, WatchedDevice>();
    for (const device of this.devices) {
      byName.set(device.name, device);
      for (const member of device.members ?? []) {
        if (!byName.has(member)) byName.set(member, { name: member, role: device.role });
      }
    }
    return [...byName.values()];
  }

  /** Adds what each watched device did since the previous snapshot to the open spans. */
  private advance(snapshot: SystemSnapshot): void {
    const spans = this.openSpans();
    if (this.busySoFar !== undefined || this.busyOnly) {
      const known = new Set(this.devices.map((d) => d.name));
      const added = [...snapshot.disks.keys()].filter((name) => !known.has(name)).sort();
      if (added.length > 0) {
        this.devices = [...this.devices, ...added.map((name) => ({ name, role: 'data+log' as const }))];
      }
    }
    for (const device of this.tracked()) {
      const cur = snapshot.disks.get(device.name);
      const last = this.lastSeen.get(device.name);
      if (cur === undefined) {
        this.lastSeen.delete(device.name);
        for (const span of spans) deviceSpan(span, device.name).absent += 1;
        continue;
      }
      this.lastSeen.set(device.name, { counters: cur, atMs: snapshot.atMs });
      // A device seen for the first time (or again after vanishing) counts from here.
      if (last === undefined) continue;
      const delta = diskDelta(last.counters, cur);
      const seconds = (snapshot.atMs - last.atMs) / 1000;
      if (delta === undefined || !(seconds > 0)) {
        for (const span of spans) deviceSpan(span, device.name).resets += 1;
        continue;
      }
      if (delta.readsCompleted + delta.writesCompleted > 0) this.busySoFar?.add(device.name);
      // A step cut short by an interval's or the window's edge is too few I/Os to stand for a second.
      const fullStep = seconds * 1000 >= this.periodMs / 2;
      for (const span of spans) {
        const d = deviceSpan(span, device.name);
        addCounters(d.delta, delta);
        d.seconds += seconds;
        if (span !== this.windowSpan || !fullStep) continue;
        const read = latencyMs(delta.readMs, delta.readsCompleted);
        const write = latencyMs(delta.writeMs, delta.writesCompleted);
        if (read !== null) d.readLatencies.push({ ms: read, ios: delta.readsCompleted });
        if (write !== null) d.writeLatencies.push({ ms: write, ios: delta.writesCompleted });
      }
    }
  }

  private openSpans(): Span[] {
    return this.windowSpan === undefined ? [this.intervalSpan] : [this.intervalSpan, this.windowSpan];
  }

  private newSpan(): Span {
    return {
      devices: new Map(),
      from: this.lastGood,
      samples: 0,
      failures: 0,
      firstError: undefined,
      cpu: process.cpuUsage(),
      wallMs: performance.now(),
      database: undefined,
      databaseError: undefined,
    };
  }

  /** Reads the database's counters as the start of `span`, and returns them as the end of the last. */
  private async readDatabaseInto(span: Span): Promise<DatabaseRead> {
    const read = await this.readDatabase();
    span.database = read.values;
    span.databaseError = read.error;
    return read;
  }

  private async readDatabase(): Promise<DatabaseRead> {
    if (this.databaseCounters === undefined) return { values: undefined, error: undefined };
    try {
      return { values: await this.databaseCounters(), error: undefined };
    } catch (err) {
      return { values: undefined, error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** One device's figures over a span, or undefined with a line in `missing` saying why. */
  private deviceFigures(
    span: Span,
    device: WatchedDevice,
    label: 'interval' | 'window',
    missing: string[],
  ): DeviceFigures | undefined {
    const d = span.devices.get(device.name);
    const line = deviceGapLine(device.name, d, this.source.description, label);
    if (line !== undefined) missing.push(line);
    // A failed source has said why already; otherwise the device only just appeared.
    else if ((d === undefined || d.seconds === 0) && span.failures === 0) {
      missing.push(`${device.name}: no figures (first seen at this ${label}'s end)`);
    }
    return d !== undefined && d.seconds > 0 ? figuresOfDelta(d.delta, d.seconds, device) : undefined;
  }

  private spanFigures(
    span: Span,
    end: SystemSnapshot | undefined,
    database: DatabaseRead,
    label: 'interval' | 'window',
  ): MonitorInterval {
    const missing = [...this.notes];
    if (span.failures > 0) {
      const total = span.samples + span.failures;
      missing.push(
        span.samples === 0
          ? `${this.source.description} unreachable: ${span.firstError}`
          : `${this.source.description}: ${span.failures} of ${total} snapshots failed (${span.firstError})`,
      );
    }
    const devices: DeviceFigures[] = [];
    for (const device of this.devices) {
      const d = span.devices.get(device.name);
      // Disks not chosen yet (or never, when none was busy) are shown for the spans they were busy in.
      if ((this.busySoFar !== undefined || this.busyOnly) && !carriedIo(d)) continue;
      const figures = this.deviceFigures(span, device, label, missing);
      if (figures === undefined) continue;
      const members = (device.members ?? []).flatMap(
        (name) => this.deviceFigures(span, { name, role: device.role }, label, missing) ?? [],
      );
      devices.push(members.length > 0 ? { ...figures, members } : figures);
    }
    let host: HostFigures | null = null;
    if (end !== undefined) {
      const cpuPct = this.measureOwnCpu ? ownCpuPct(span) : null;
      host = span.from === undefined ? null : hostFigures(span.from, end, cpuPct);
      if (host === null) missing.push(`host figures: ${this.source.description} gave no CPU or memory times`);
    }
    let databaseFigures: DatabaseFigures | null = null;
    if (database.error !== undefined) missing.push(`database counters: ${database.error}`);
    else if (span.databaseError !== undefined) missing.push(`database counters: ${span.databaseError}`);
    else if (span.database !== undefined && database.values !== undefined) {
      databaseFigures = counterDeltas(span.database, database.values);
    }
    return { devices, host, database: databaseFigures, missing };
  }
}

function carriedIo(d: DeviceSpan | undefined): boolean {
  return d !== undefined && d.delta.readsCompleted + d.delta.writesCompleted > 0;
}

function deviceSpan(span: Span, name: string): DeviceSpan {
  let d = span.devices.get(name);
  if (d === undefined) {
    d = {
      delta: { ...ZERO_COUNTERS },
      seconds: 0,
      absent: 0,
      resets: 0,
      readLatencies: [],
      writeLatencies: [],
    };
    span.devices.set(name, d);
  }
  return d;
}

function addCounters(sum: DiskCounters, delta: DiskCounters): void {
  sum.readsCompleted += delta.readsCompleted;
  sum.readBytes += delta.readBytes;
  sum.readMs += delta.readMs;
  sum.writesCompleted += delta.writesCompleted;
  sum.writtenBytes += delta.writtenBytes;
  sum.writeMs += delta.writeMs;
  sum.busyMs += delta.busyMs;
  sum.weightedMs += delta.weightedMs;
  sum.inFlight = delta.inFlight;
}

/** Why a device's figures are missing or cover only part of a span, if they are or do. */
function deviceGapLine(
  name: string,
  d: DeviceSpan | undefined,
  source: string,
  label: 'interval' | 'window',
): string | undefined {
  if (d === undefined || (d.absent === 0 && d.resets === 0)) return undefined;
  const why = [
    d.absent > 0 ? `not among ${source}'s disks at ${d.absent} snapshot${d.absent === 1 ? '' : 's'}` : '',
    d.resets > 0 ? `counters went backwards (reset) ${d.resets} time${d.resets === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  return d.seconds > 0
    ? `${name}: figures cover ${round(d.seconds, 1)} s of the ${label} only (${why})`
    : `${name}: no figures (${why})`;
}

/** txbench's CPU since the span opened, as a percentage of one core. */
function ownCpuPct(span: Span): number | null {
  const used = process.cpuUsage(span.cpu);
  const wallMs = performance.now() - span.wallMs;
  return wallMs > 0 ? ((used.user + used.system) / 1000 / wallMs) * 100 : null;
}

/**
 * Each counter's growth; a counter that went backwards (statistics reset, server restart) counts
 * from zero, as Prometheus's rate() does, so no figure is negative.
 */
export function counterDeltas(
  prev: Readonly<Record<string, number>>,
  cur: Readonly<Record<string, number>>,
): DatabaseFigures {
  const out: DatabaseFigures = {};
  for (const [name, value] of Object.entries(cur)) {
    const before = prev[name];
    if (before === undefined || !Number.isFinite(value)) continue;
    out[name] = value >= before ? value - before : value;
  }
  return out;
}

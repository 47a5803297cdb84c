/**
 * run.json contents (schemaVersion 3, every field schema/run.schema.json requires) and run
 * directories for the results-store, compare, report and CLI tests.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type {
  DeviceFigures,
  DeviceWindowFigures,
  HostFigures,
  MonitorInterval,
} from '../../src/monitor/types.js';

/** A disk over one interval, as intervals.ndjson `devices[]` holds it. */
export function intervalDevice(
  name: string,
  role: DeviceFigures['role'],
  more: Partial<DeviceFigures> = {},
): DeviceFigures {
  return {
    name,
    role,
    readIops: 12,
    writeIops: 850,
    readMBps: 0.4,
    writeMBps: 14.2,
    readLatencyMs: 0.41,
    writeLatencyMs: 1.2,
    queueDepth: 1.3,
    busyPct: 62,
    ...more,
  };
}

/** A disk over a measured window, as run.json `summary.devices[]` holds it. */
export function device(
  name: string,
  role: DeviceFigures['role'],
  more: Partial<DeviceWindowFigures> = {},
): DeviceWindowFigures {
  return {
    ...intervalDevice(name, role),
    readLatencyMsP50: 0.38,
    readLatencyMsP99: 0.9,
    writeLatencyMsP50: 1.1,
    writeLatencyMsP99: 3.1,
    latencyMsMax: 4,
    ...more,
  };
}

/** The database host over a window (run.json `summary.host`, intervals' `host`). */
export const HOST: HostFigures = {
  cpuUserPct: 35.2,
  cpuSystemPct: 8.1,
  cpuIowaitPct: 4,
  cpuStealPct: 0,
  memUsedMB: 2345,
  pageCacheMB: 5678,
  txbenchCpuPct: 12.5,
};

/** What monitoring adds to one interval (intervals.ndjson and run.json `intervals[]`). */
export function monitoredInterval(more: Partial<MonitorInterval> = {}): Record<string, unknown> {
  return {
    atS: 10,
    phase: 'measure',
    seconds: 10,
    tps: 100,
    tpmC: 2000,
    perType: {},
    devices: [intervalDevice('vda', 'data+log')],
    host: HOST,
    database: { walBytes: 1048576, blocksRead: 10, blocksHit: 990 },
    missing: [],
    ...more,
  };
}

export interface FixtureRun {
  target?: string;
  status?: string;
  startedAt?: string;
  tps?: number;
  tpmC?: number | null;
  avg?: number;
  p90?: number;
  p99?: number;
  /** Default 0, txbench's default. */
  thinkScale?: number;
  /** Left out of the config unless given (a missing field means false). */
  nonstandardMix?: boolean;
  warehouses?: number;
  terminals?: number;
  mode?: 'client-sql' | 'procedures';
  durationS?: number;
  /** summary.devices; left out unless given (monitoring off, or a file from before version 3). */
  devices?: DeviceWindowFigures[];
  host?: HostFigures | null;
  monitor?: { source: string; notes: string[] };
}

const DISCLAIMER =
  'Workload derived from TPC-C; not a TPC-C implementation and not comparable with published TPC-C results.';

/** A summary with the figures the readers use (and a few they ignore). */
export function summary(f: FixtureRun = {}): Record<string, unknown> {
  return {
    windowSeconds: 60,
    transactions: Math.round((f.tps ?? 100) * 60),
    tps: f.tps ?? 100,
    tpmC: f.tpmC === undefined ? 2000 : f.tpmC,
    nopm: null,
    tpm: null,
    responseMs: { avg: f.avg ?? 5, p50: 4, p90: f.p90 ?? 9, p95: 11, p99: f.p99 ?? 20, max: 50 },
    ceilingTpmC: null,
    efficiencyPct: null,
    errors: 0,
    retries: 0,
    clientCpu: { userS: 1, systemS: 0.5, coresUsed: 0.025, usPerTransaction: 250 },
    schedulerLatenessMs: null,
    ...(f.devices === undefined ? {} : { devices: f.devices }),
    ...(f.host === undefined ? {} : { host: f.host }),
    ...(f.monitor === undefined ? {} : { monitor: f.monitor }),
  };
}

export function runConfig(f: FixtureRun = {}): Record<string, unknown> {
  return {
    target: f.target ?? 'embedded',
    warehouses: f.warehouses ?? 1,
    loadedWarehouses: f.warehouses ?? 1,
    terminals: f.terminals ?? 10,
    connections: f.terminals ?? 10,
    thinkScale: f.thinkScale ?? 0,
    warmupS: 0,
    durationS: f.durationS ?? 60,
    rampS: 0,
    intervalS: 10,
    deck: f.nonstandardMix ? [16, 6, 1, 1, 1] : [10, 10, 1, 1, 1],
    nonstandardMix: f.nonstandardMix ?? false,
    seed: 1,
    mode: f.mode ?? 'client-sql',
    database: { product: 'PostgreSQL', version: '17.0' },
  };
}

const latency = { avg: 5, p50: 4, p90: 9, p95: 11, p99: 20, max: 50 };

/** A single run's run.json (kind "run"), as `txbench run --out` writes it. */
export function runJson(f: FixtureRun = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: 3,
    kind: 'run',
    tool: { name: 'txbench', version: '0.1.0' },
    workload: 'tpcc',
    disclaimer: DISCLAIMER,
    status: f.status ?? 'completed',
    startedAt: f.startedAt ?? '2024-05-01T12:00:00.000Z',
    endedAt: '2024-05-01T12:01:00.000Z',
    config: runConfig(f),
    environment: { device: { kind: 'local', path: '/var/lib/postgresql/data' } },
    summary: summary(f),
    transactions: {
      newOrder: {
        name: 'New-Order',
        count: 100,
        errors: 0,
        retries: 0,
        mixPct: 45,
        responseMs: latency,
        p90LimitMs: 5000,
        p90Pass: true,
        rollbacks: 1,
      },
    },
    audit: {
      counters: {},
      checks: [{ name: 'New-Order rollbacks %', value: 1, allowed: '0.9 - 1.1', pass: true }],
      pass: true,
      wholeRun: { newOrdersCommitted: 99, ordersAddedInDatabase: 99, match: true },
    },
    errors: {},
    drain: { limitMs: 30000, queued: 0, inFlight: 0, abandoned: 0, oldestAgeMs: null },
    intervals: [],
    ...extra,
  };
}

/** Several targets driven at once and added up (kind "targets"). */
export function targetsJson(parts: readonly FixtureRun[], f: FixtureRun = {}): Record<string, unknown> {
  const reports = parts.map((p) => runJson(p));
  return {
    schemaVersion: 3,
    kind: 'targets',
    status: f.status ?? 'completed',
    startedAt: f.startedAt ?? '2024-05-01T12:00:00.000Z',
    endedAt: '2024-05-01T12:01:00.000Z',
    disclaimer: DISCLAIMER,
    config: {
      target: parts.map((p) => p.target ?? 'embedded').join(' + '),
      targets: reports.map((r) => r.config),
    },
    summary: { ...summary(f), targets: parts.length, spread: { minTps: 1, maxTps: 1, maxOverMin: 1 } },
    targets: reports.map((r, i) => ({
      label: parts[i]!.target ?? 'embedded',
      summary: r.summary,
      report: r,
    })),
  };
}

/** User-count steps (kind "steps"). */
export function stepsJson(target: string, steps: readonly FixtureRun[]): Record<string, unknown> {
  const reports = steps.map((s) => runJson({ target, ...s }));
  return {
    schemaVersion: 3,
    kind: 'steps',
    status: 'completed',
    startedAt: '2024-05-01T12:00:00.000Z',
    endedAt: '2024-05-01T12:05:00.000Z',
    disclaimer: DISCLAIMER,
    config: { target, users: steps.map((s) => s.terminals ?? 10), run: reports[0]?.config },
    knee: null,
    steps: reports.map((r, i) => ({ users: steps[i]!.terminals ?? 10, summary: r.summary, report: r })),
  };
}

/** A sweep of a server setting (kind "sweep"). */
export function sweepJson(
  target: string,
  setting: string,
  values: readonly [string, FixtureRun][],
): Record<string, unknown> {
  return {
    schemaVersion: 3,
    kind: 'sweep',
    status: 'completed',
    startedAt: '2024-05-01T12:00:00.000Z',
    endedAt: '2024-05-01T12:05:00.000Z',
    disclaimer: DISCLAIMER,
    config: { target, setting, values: values.map(([v]) => v) },
    sweep: values.map(([value, f]) => {
      const report = runJson({ target, ...f });
      return { setting, value, summary: report.summary, report };
    }),
  };
}

/** Writes `parent/id/run.json` (text as given, or the object as JSON); returns the run directory. */
export async function writeRun(parent: string, id: string, run: object | string): Promise<string> {
  const dir = path.join(parent, id);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'run.json'), typeof run === 'string' ? run : JSON.stringify(run, null, 2));
  return dir;
}

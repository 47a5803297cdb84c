/**
 * txbench's live figures for Prometheus (`--metrics-port`): a small HTTP server answering
 * GET /metrics in the Prometheus text format, written by prom-client from a registry of its own
 * (never prom-client's global one, which other code in the process could fill). It only serves
 * what it is handed at each interval's end, so scraping never touches a transaction's path.
 *
 * Metrics (labels in braces; `target` is the target's label, `type` a transaction type):
 * - txbench_transactions_total{target,type,outcome}: transactions finished, outcome "ok" or
 *   "error" (counter).
 * - txbench_response_time_seconds{target,type}: response times of the transactions that finished
 *   ok, from each interval's HDR histogram (histogram, buckets 1 ms … 60 s; see
 *   hdr-prometheus-histogram.ts for how HDR bins map to buckets).
 * - txbench_terminals{target}: terminals driving the target (gauge).
 * - txbench_device_read_iops, txbench_device_write_iops: I/Os completed per second;
 *   txbench_device_read_mbps, txbench_device_write_mbps: MB (10^6 bytes) per second;
 *   txbench_device_read_latency_ms, txbench_device_write_latency_ms: average time per I/O, absent
 *   in an interval that completed none; txbench_device_queue_depth: average I/Os in flight;
 *   txbench_device_busy_pct: % of the interval with I/O in flight. All {target,device,role},
 *   over the last interval (gauges).
 * - txbench_host_cpu_pct{target,mode}: CPU of the database's machine by mode (user, system,
 *   iowait, steal), % of all its CPUs; txbench_host_mem_used_mb{target},
 *   txbench_host_page_cache_mb{target}: its memory used and page cache, MB. The target label is
 *   there because a remote target's host is its own machine (node_exporter) (gauges).
 * - txbench_cpu_pct: txbench's own CPU, % of one core (gauge).
 */
import { createServer, type Server } from 'node:http';
import { Counter, Gauge, Registry } from 'prom-client';
import { UsageError } from '../errors.js';
import type { DeviceFigures, HostFigures, MonitorInterval } from '../monitor/types.js';
import type { Output, RunEvent, TypeInterval } from '../results/run-events.js';
import { HdrPrometheusHistogram } from './hdr-prometheus-histogram.js';

export type { TypeInterval };

export interface MetricsServer {
  /** Where the metrics are served, e.g. `http://127.0.0.1:9464/metrics`. */
  readonly url: string;
  /**
   * Adds one interval of one target: its transactions by type, and what monitoring saw. The
   * histograms are read at once, so the caller may reset them when this returns.
   */
  recordInterval(
    target: string,
    perType: Readonly<Record<string, TypeInterval>>,
    monitor?: MonitorInterval,
  ): void;
  /**
   * What monitoring saw over an interval, when it arrives after the interval's transactions (the
   * run samples the disks asynchronously, after the histograms were handed over and reset).
   */
  recordMonitor(target: string, monitor: MonitorInterval): void;
  setTerminals(target: string, terminals: number): void;
  close(): Promise<void>;
}

/** Response-time bucket bounds, seconds: 1 ms to 60 s. */
export const RESPONSE_TIME_BUCKETS_SECONDS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/** Device gauge name → the figure it shows, and its help. */
const DEVICE_GAUGES: Readonly<
  Record<string, { figure: Exclude<keyof DeviceFigures, 'members'>; help: string }>
> = {
  txbench_device_read_iops: { figure: 'readIops', help: 'Reads completed per second' },
  txbench_device_write_iops: { figure: 'writeIops', help: 'Writes completed per second' },
  txbench_device_read_mbps: { figure: 'readMBps', help: 'MB (10^6 bytes) read per second' },
  txbench_device_write_mbps: { figure: 'writeMBps', help: 'MB (10^6 bytes) written per second' },
  txbench_device_read_latency_ms: { figure: 'readLatencyMs', help: 'Average time per read completed, ms' },
  txbench_device_write_latency_ms: { figure: 'writeLatencyMs', help: 'Average time per write completed, ms' },
  txbench_device_queue_depth: { figure: 'queueDepth', help: 'Average I/Os in flight' },
  txbench_device_busy_pct: { figure: 'busyPct', help: 'Time with I/O in flight, %' },
};

const CPU_MODES: Readonly<Record<string, keyof HostFigures>> = {
  user: 'cpuUserPct',
  system: 'cpuSystemPct',
  iowait: 'cpuIowaitPct',
  steal: 'cpuStealPct',
};

type DeviceLabel = 'target' | 'device' | 'role';

/** The registry's metrics and how an interval updates them. */
class LiveMetrics {
  readonly registry = new Registry();
  private readonly transactions = new Counter({
    name: 'txbench_transactions_total',
    help: 'Transactions finished, by outcome (ok or error).',
    labelNames: ['target', 'type', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly responseTime = new HdrPrometheusHistogram({
    name: 'txbench_response_time_seconds',
    help: 'Response time of the transactions that finished ok, seconds.',
    labelNames: ['target', 'type'] as const,
    bucketsSeconds: RESPONSE_TIME_BUCKETS_SECONDS,
    registry: this.registry,
  });
  private readonly terminals = this.gauge('txbench_terminals', 'Terminals driving the target.', ['target']);
  private readonly devices = Object.entries(DEVICE_GAUGES).map(([name, { figure, help }]) => ({
    gauge: this.gauge<DeviceLabel>(name, `${help} on the device over the last interval.`, [
      'target',
      'device',
      'role',
    ]),
    figure,
  }));
  private readonly hostCpu = this.gauge(
    'txbench_host_cpu_pct',
    "CPU of the database's machine by mode over the last interval, % of all its CPUs.",
    ['target', 'mode'],
  );
  private readonly hostMemUsed = this.gauge(
    'txbench_host_mem_used_mb',
    "Memory used on the database's machine, MB.",
    ['target'],
  );
  private readonly hostPageCache = this.gauge(
    'txbench_host_page_cache_mb',
    "Page cache on the database's machine, MB.",
    ['target'],
  );
  private readonly txbenchCpu = this.gauge(
    'txbench_cpu_pct',
    "txbench's own CPU over the last interval, % of one core.",
    [],
  );
  /** The devices each target showed last, to drop the series of one that is no longer watched. */
  private readonly shownDevices = new Map<string, Record<DeviceLabel, string>[]>();

  private gauge<L extends string>(name: string, help: string, labelNames: readonly L[]): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.registry] });
  }

  recordInterval(
    target: string,
    perType: Readonly<Record<string, TypeInterval>>,
    monitor?: MonitorInterval,
  ): void {
    for (const [type, t] of Object.entries(perType)) {
      this.transactions.inc({ target, type, outcome: 'ok' }, t.count);
      this.transactions.inc({ target, type, outcome: 'error' }, t.errors);
      this.responseTime.add({ target, type }, t.histogram);
    }
    if (monitor !== undefined) this.recordMonitor(target, monitor);
  }

  recordMonitor(target: string, monitor: MonitorInterval): void {
    this.recordDevices(target, monitor.devices);
    this.recordHost(target, monitor.host);
  }

  setTerminals(target: string, terminals: number): void {
    this.terminals.set({ target }, terminals);
  }

  private recordDevices(target: string, devices: readonly DeviceFigures[]): void {
    const shown = devices.map((d) => ({ target, device: d.name, role: d.role }));
    for (const gone of this.shownDevices.get(target) ?? []) {
      if (shown.some((s) => s.device === gone.device && s.role === gone.role)) continue;
      for (const { gauge } of this.devices) gauge.remove(gone);
    }
    this.shownDevices.set(target, shown);
    devices.forEach((d, i) => {
      for (const { gauge, figure } of this.devices) setOrRemove(gauge, shown[i]!, d[figure]);
    });
  }

  private recordHost(target: string, host: HostFigures | null): void {
    for (const [mode, figure] of Object.entries(CPU_MODES))
      setOrRemove(this.hostCpu, { target, mode }, host?.[figure] ?? null);
    setOrRemove(this.hostMemUsed, { target }, host?.memUsedMB ?? null);
    setOrRemove(this.hostPageCache, { target }, host?.pageCacheMB ?? null);
    // The process's CPU is one figure whichever target's interval brings it; remote hosts have none.
    if (host?.txbenchCpuPct !== null && host?.txbenchCpuPct !== undefined)
      this.txbenchCpu.set(host.txbenchCpuPct);
  }
}

/** A figure that could not be computed this interval leaves no stale value behind. */
function setOrRemove<L extends string>(
  gauge: Gauge<L>,
  labels: Record<L, string>,
  value: number | string | null,
): void {
  if (typeof value === 'number' && Number.isFinite(value))
    gauge.set(labels as Partial<Record<L, string>>, value);
  else gauge.remove(labels as Partial<Record<L, string>>);
}

/** Starts serving on host:port; a port in use (or not allowed) is a one-line UsageError. */
export async function startMetricsServer(options: { host: string; port: number }): Promise<MetricsServer> {
  const metrics = new LiveMetrics();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('txbench serves /metrics only\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: unknown) =>
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  const port = await listen(server, options.host, options.port);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    recordInterval: (target, perType, monitor) => metrics.recordInterval(target, perType, monitor),
    recordMonitor: (target, monitor) => metrics.recordMonitor(target, monitor),
    setTerminals: (target, terminals) => metrics.setTerminals(target, terminals),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // A scraper's keep-alive connection would hold close() open until it times out.
        server.closeAllConnections();
      }),
  };
}

/** One line per reason the system refuses to listen, saying what to change. */
const LISTEN_PROBLEMS: Readonly<Record<string, (host: string, port: number) => string>> = {
  EADDRINUSE: (host, port) => `port ${port} on ${host} is already in use; choose another --metrics-port`,
  EACCES: (_host, port) => `port ${port} needs privileges to listen on; choose a --metrics-port above 1023`,
  EADDRNOTAVAIL: (host) =>
    `${host} is not an address of this machine; give --metrics-host one it has, e.g. 127.0.0.1`,
  ENOTFOUND: (host) => `--metrics-host ${host} names no known host; give an address, e.g. 127.0.0.1`,
};

/** Listens, resolving to the port (the one the system chose for port 0). */
function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const problem = err.code === undefined ? undefined : LISTEN_PROBLEMS[err.code];
      reject(problem === undefined ? err : new UsageError(`cannot serve metrics: ${problem(host, port)}`));
    });
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/**
 * The endpoint as a run's output: the terminals at the start, each interval's transactions and
 * what monitoring saw. Several targets' runs share one endpoint; closing it is its owner's job.
 */
export function metricsOutput(server: MetricsServer): Output {
  return {
    name: 'metrics endpoint',
    wantsHistograms: true,
    event: (event: RunEvent) => {
      if (event.kind === 'start') server.setTerminals(event.target, event.config.terminals);
      else if (event.kind === 'interval') {
        const { interval } = event;
        server.recordInterval(event.target, event.perType ?? {});
        // Monitored runs carry their figures (an interval whose sampling failed, empty ones).
        if (interval.devices !== undefined) {
          server.recordMonitor(event.target, {
            devices: interval.devices,
            host: interval.host ?? null,
            database: interval.database ?? null,
            missing: interval.missing ?? [],
          });
        }
      }
    },
  };
}

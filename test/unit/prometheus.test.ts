/**
 * `--metrics-port`: the server started on a free port of 127.0.0.1, two intervals recorded with
 * real HDR histograms and monitoring figures, scraped over HTTP and parsed as Prometheus text by
 * an independent parser: the documented names and labels, counter values, histogram buckets
 * (cumulative, monotonic, ending in _count), and the one-line error for a port in use.
 */
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { newHistogram, recordUs, type Histogram } from '../../src/metrics/histogram.js';
import type { DeviceFigures, MonitorInterval } from '../../src/monitor/types.js';
import { bucketCounts } from '../../src/report/hdr-prometheus-histogram.js';
import {
  RESPONSE_TIME_BUCKETS_SECONDS,
  startMetricsServer,
  type MetricsServer,
} from '../../src/report/prometheus.js';
import { freePort } from '../free-port.js';

/** A histogram holding `count` copies of each value (µs). */
function histogramOf(values: readonly [us: number, count: number][]): Histogram {
  const h = newHistogram();
  for (const [us, count] of values) for (let i = 0; i < count; i++) recordUs(h, us);
  return h;
}

function device(name: string, role: DeviceFigures['role'], readLatencyMs: number | null): DeviceFigures {
  return {
    name,
    role,
    readIops: 10,
    writeIops: 250.5,
    readMBps: 0.1,
    writeMBps: 12.25,
    readLatencyMs,
    writeLatencyMs: 0.8,
    queueDepth: 1.5,
    busyPct: 42,
  };
}

const MONITOR_1: MonitorInterval = {
  devices: [device('vda', 'data', 0.3), device('vdb', 'log', 0.2)],
  host: {
    cpuUserPct: 30,
    cpuSystemPct: 10,
    cpuIowaitPct: 5,
    cpuStealPct: 0.5,
    memUsedMB: 2048,
    pageCacheMB: 1024,
    txbenchCpuPct: 12.5,
  },
  database: { walBytes: 1000 },
  missing: [],
};

/** vdb is no longer watched; vda completed no reads. */
const MONITOR_2: MonitorInterval = {
  ...MONITOR_1,
  devices: [device('vda', 'data', null)],
  host: { ...MONITOR_1.host!, cpuUserPct: 35, txbenchCpuPct: null },
};

function family(families: readonly PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no metric family ${name}`);
  return found;
}

function sample(
  f: PrometheusFamily,
  labels: Record<string, string>,
): PrometheusFamily['metrics'][number] | undefined {
  return f.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/**
 * One series of a labelled histogram as text the parser reads whole: parse-prometheus-text-format
 * 1.1.1 merges the buckets of every series of a labelled histogram into one and drops their _sum
 * and _count, so each series is handed to it alone, its labels other than `le` removed.
 */
function histogramSeries(text: string, name: string, labels: Record<string, string>): PrometheusFamily {
  const own = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const lines = text.split('\n').filter((line) => {
    if (line === `# HELP ${name}` || line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `))
      return true;
    return line.startsWith(`${name}_`) && own.every((l) => line.includes(l));
  });
  const stripped = lines.map((line) => {
    let out = line;
    for (const l of own) out = out.replace(new RegExp(`${l},?`), '');
    return out.replace(/,}/, '}').replace(/\{\}/, '');
  });
  return family(parsePrometheusTextFormat(`${stripped.join('\n')}\n`), name);
}

function valueOf(f: PrometheusFamily, labels: Record<string, string>): number | undefined {
  const s = sample(f, labels);
  return s?.value === undefined ? undefined : Number(s.value);
}

describe('bucketCounts', () => {
  it('counts a value at a bound in that bucket and one beyond every bound in the last', () => {
    const h = histogramOf([
      [999, 1],
      [1000, 2],
      [1001, 3],
      [2500, 1],
      [70_000_000, 1],
    ]);
    expect(bucketCounts(h, [1000, 2500, 60_000_000])).toEqual([3, 4, 0, 1]);
  });

  it('counts nothing for an empty histogram', () => {
    expect(bucketCounts(newHistogram(), [1000])).toEqual([0, 0]);
  });
});

describe('metrics server', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves the documented metrics as Prometheus text, with counters and histograms added up over intervals', async () => {
    const port = await freePort();
    server = await startMetricsServer({ host: '127.0.0.1', port });
    expect(server.url).toBe(`http://127.0.0.1:${port}/metrics`);
    server.setTerminals('pg', 10);

    const interval1 = {
      newOrder: {
        count: 10,
        errors: 1,
        histogram: histogramOf([
          [500, 3],
          [1000, 2],
          [30_000, 4],
          [70_000_000, 1],
        ]),
      },
      payment: { count: 2, errors: 0, histogram: histogramOf([[2_000, 2]]) },
    };
    server.recordInterval('pg', interval1, MONITOR_1);
    // The caller may reset its histograms once recordInterval returns.
    interval1.newOrder.histogram.reset();
    server.recordInterval(
      'pg',
      {
        newOrder: { count: 5, errors: 2, histogram: histogramOf([[2_000, 5]]) },
        payment: { count: 0, errors: 0, histogram: newHistogram() },
      },
      MONITOR_2,
    );

    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const families = parsePrometheusTextFormat(text);

    const transactions = family(families, 'txbench_transactions_total');
    expect(transactions.type).toBe('COUNTER');
    expect(valueOf(transactions, { target: 'pg', type: 'newOrder', outcome: 'ok' })).toBe(15);
    expect(valueOf(transactions, { target: 'pg', type: 'newOrder', outcome: 'error' })).toBe(3);
    expect(valueOf(transactions, { target: 'pg', type: 'payment', outcome: 'ok' })).toBe(2);
    expect(valueOf(transactions, { target: 'pg', type: 'payment', outcome: 'error' })).toBe(0);

    const responseTime = family(families, 'txbench_response_time_seconds');
    expect(responseTime.type).toBe('HISTOGRAM');
    const newOrder = histogramSeries(text, 'txbench_response_time_seconds', {
      target: 'pg',
      type: 'newOrder',
    }).metrics[0]!;
    const buckets = newOrder.buckets!;
    // Integer-like keys come first in a JS object, so the buckets are read in bound order.
    const les = [...RESPONSE_TIME_BUCKETS_SECONDS.map(String), '+Inf'];
    expect(Object.keys(buckets).sort()).toEqual([...les].sort());
    const cumulative = les.map((le) => Number(buckets[le]));
    for (let i = 1; i < cumulative.length; i++)
      expect(cumulative[i]).toBeGreaterThanOrEqual(cumulative[i - 1]!);
    expect(Number(buckets['0.001'])).toBe(5);
    expect(Number(buckets['0.0025'])).toBe(10);
    expect(Number(buckets['0.025'])).toBe(10);
    expect(Number(buckets['0.05'])).toBe(14);
    expect(Number(buckets['60'])).toBe(14);
    expect(Number(buckets['+Inf'])).toBe(15);
    expect(Number(newOrder.count)).toBe(15);
    const sumSeconds = 3 * 0.0005 + 2 * 0.001 + 4 * 0.03 + 70 + 5 * 0.002;
    expect(Number(newOrder.sum)).toBeCloseTo(sumSeconds, 1);
    expect(Math.abs(Number(newOrder.sum) / sumSeconds - 1)).toBeLessThan(0.001);
    const payment = histogramSeries(text, 'txbench_response_time_seconds', { target: 'pg', type: 'payment' });
    expect(Number(payment.metrics[0]?.count)).toBe(2);
    expect(Number(payment.metrics[0]?.buckets?.['0.0025'])).toBe(2);

    const terminals = family(families, 'txbench_terminals');
    expect(terminals.type).toBe('GAUGE');
    expect(valueOf(terminals, { target: 'pg' })).toBe(10);

    const vda = { target: 'pg', device: 'vda', role: 'data' };
    const expected: Record<string, number> = {
      txbench_device_read_iops: 10,
      txbench_device_write_iops: 250.5,
      txbench_device_read_mbps: 0.1,
      txbench_device_write_mbps: 12.25,
      txbench_device_write_latency_ms: 0.8,
      txbench_device_queue_depth: 1.5,
      txbench_device_busy_pct: 42,
    };
    for (const [name, value] of Object.entries(expected)) {
      const f = family(families, name);
      expect(f.type, name).toBe('GAUGE');
      expect(valueOf(f, vda), name).toBe(value);
      // The log device was watched in the first interval only: its series is gone.
      expect(sample(f, { device: 'vdb' }), name).toBeUndefined();
    }
    // No read completed in the last interval: no stale read latency either.
    expect(family(families, 'txbench_device_read_latency_ms').metrics).toEqual([]);

    const cpu = family(families, 'txbench_host_cpu_pct');
    expect(valueOf(cpu, { target: 'pg', mode: 'user' })).toBe(35);
    expect(valueOf(cpu, { target: 'pg', mode: 'system' })).toBe(10);
    expect(valueOf(cpu, { target: 'pg', mode: 'iowait' })).toBe(5);
    expect(valueOf(cpu, { target: 'pg', mode: 'steal' })).toBe(0.5);
    expect(valueOf(family(families, 'txbench_host_mem_used_mb'), { target: 'pg' })).toBe(2048);
    expect(valueOf(family(families, 'txbench_host_page_cache_mb'), { target: 'pg' })).toBe(1024);
    // Measured in the first interval; the second brought none (a remote host's would not).
    expect(valueOf(family(families, 'txbench_cpu_pct'), {})).toBe(12.5);
  });

  it('answers 404 anywhere but /metrics', async () => {
    server = await startMetricsServer({ host: '127.0.0.1', port: await freePort() });
    const response = await fetch(server.url.replace('/metrics', '/'));
    expect(response.status).toBe(404);
    await response.text();
  });

  it('refuses a port in use with a one-line usage error', async () => {
    const port = await freePort();
    server = await startMetricsServer({ host: '127.0.0.1', port });
    const second = startMetricsServer({ host: '127.0.0.1', port });
    await expect(second).rejects.toBeInstanceOf(UsageError);
    await expect(second).rejects.toThrow(
      `cannot serve metrics: port ${port} on 127.0.0.1 is already in use; choose another --metrics-port`,
    );
  });
});

/**
 * Section 9 (opt-in: it writes about 10 GB at 100 warehouses): one txbench load of N warehouses
 * into the bench's PostgreSQL 15, its time, rows/s and MB/s next to the sequential write rate of
 * the device under the data directory, measured in the same run on the same filesystem, and
 * txbench's peak resident memory during the load: the load runs in a child process of its own
 * (load-child.ts; its generator threads are in that process), so earlier sections' heap is not in it.
 */
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { PgCluster } from './pg-cluster.js';
import { checkpoint } from './settle.js';
import { lastLine, startNode } from './children.js';
import type { LoadChildResult } from './load-child.js';
import type { LoadResult } from '../workloads/tpcc/loader.js';
import { BYTES_PER_MIB, bytesToMB } from '../util/units.js';

const CHILD = new URL('./load-child.js', import.meta.url);

export interface LargeLoadData {
  warehouses: number;
  seconds: number;
  phaseSeconds: LoadResult['phaseSeconds'];
  rows: number;
  /** COPY data txbench generated, in `copyFormat`. */
  copyBytes: number;
  copyFormat: string;
  /** pg_database_size after the load minus before: what the load left on disk (tables and indexes). */
  databaseGrowthBytes: number;
  /** WAL the load generated (pg_current_wal_lsn before and after), also written to the device. */
  walBytes: number;
  rowsPerS: number;
  /** Database size growth ÷ load time (the WAL is not in it; see walBytes). */
  mbPerS: number;
  device: { bytes: number; seconds: number; mbPerS: number; method: string };
  /** mbPerS ÷ device.mbPerS. */
  fractionOfDevice: number;
  /** The loading process's VmHWM (its own high-water mark), else the largest RSS sampled every 100 ms. */
  peakRssMB: number;
  /** The largest process.memoryUsage().rss the loading process saw, sampled every 100 ms. */
  sampledRssMB: number;
}

export async function largeLoadSection(
  cleanup: Cleanup,
  cluster: PgCluster,
  cfg: BenchConfig['largeLoad'],
  progress: (line: string) => void,
): Promise<LargeLoadData> {
  const w = cfg.warehouses;
  progress(`sequential write rate of the data directory's filesystem (${cfg.deviceMB} MB, O_DIRECT, fsync)`);
  const device = await deviceWriteRate(cluster.baseDir, cfg.deviceMB);
  const url = await cluster.createDatabase(`large${w}`);
  await checkpoint(url);
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const before = await sizes(sql);
    progress(`txbench load, ${w} warehouses (a child process of its own)`);
    const { finished } = startNode(cleanup, CHILD, [String(w)], 24 * 3600_000, {
      execArgv: [],
      env: { ...process.env, BENCH_LOAD_URL: url },
    });
    const child = await finished;
    const line = child.stdout.trim().split('\n').at(-1);
    if (child.code !== 0 || line === undefined || line === '')
      throw new Error(`the load failed (exit ${child.code ?? child.signal}): ${lastLine(child.stderr)}`);
    const { result: load, peakRssBytes, vmHwmBytes } = JSON.parse(line) as LoadChildResult;
    const after = await sizes(sql);
    const growth = after.size - before.size;
    const [wal] = await sql<{ bytes: string }[]>`
      select pg_wal_lsn_diff(${after.lsn}::pg_lsn, ${before.lsn}::pg_lsn)::bigint::text as bytes`;
    const mbPerS = bytesToMB(growth) / load.seconds;
    return {
      warehouses: w,
      seconds: load.seconds,
      phaseSeconds: load.phaseSeconds,
      rows: load.rows,
      copyBytes: load.bytes,
      copyFormat: load.copyFormat,
      databaseGrowthBytes: growth,
      walBytes: Number(wal?.bytes ?? 0),
      rowsPerS: load.rows / load.seconds,
      mbPerS,
      device,
      fractionOfDevice: mbPerS / device.mbPerS,
      peakRssMB: bytesToMB(vmHwmBytes ?? peakRssBytes),
      sampledRssMB: bytesToMB(peakRssBytes),
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function sizes(sql: postgres.Sql): Promise<{ size: number; lsn: string }> {
  const [row] = await sql<{ size: string; lsn: string }[]>`
    select pg_database_size(current_database())::text as size, pg_current_wal_lsn()::text as lsn`;
  return { size: Number(row?.size ?? 0), lsn: row?.lsn ?? '0/0' };
}

/**
 * Writes `mb` MB of zeros with dd (O_DIRECT, then fsync) to a file beside the data directory and
 * times it; a filesystem without O_DIRECT (tmpfs) gets buffered writes and the fsync.
 */
async function deviceWriteRate(dir: string, mb: number): Promise<LargeLoadData['device']> {
  const file = path.join(dir, 'device-write-test');
  try {
    for (const [method, flags] of [
      ['dd, O_DIRECT + fsync', ['oflag=direct', 'conv=fsync']],
      ['dd, buffered + fsync', ['conv=fsync']],
    ] as const) {
      const t0 = performance.now();
      const ok = await dd([`of=${file}`, 'if=/dev/zero', 'bs=1M', `count=${mb}`, ...flags]);
      const seconds = (performance.now() - t0) / 1000;
      if (ok)
        return {
          bytes: mb * BYTES_PER_MIB,
          seconds,
          mbPerS: bytesToMB(mb * BYTES_PER_MIB) / seconds,
          method,
        };
    }
    throw new Error('dd could not write the test file');
  } finally {
    await rm(file, { force: true });
  }
}

function dd(args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('dd', args, { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('exit', (code) => resolve(code === 0));
  });
}

export const LARGE_LOAD_TARGETS: readonly TargetDef<LargeLoadData>[] = [
  { figure: 'large load: txbench peak RSS', unit: 'MB', op: '<', limit: 500, value: (d) => d.peakRssMB },
];

export function largeLoadTable(d: LargeLoadData): string {
  type Row = { figure: string; value: string; note: string };
  const rows: Row[] = [
    {
      figure: 'load time',
      value: `${num(d.seconds)} s`,
      note: `data ${num(d.phaseSeconds.data)} s, keys and indexes ${num(d.phaseSeconds.indexes)} s, ANALYZE ${num(d.phaseSeconds.analyze)} s`,
    },
    { figure: 'rows/s', value: num(d.rowsPerS), note: `${num(d.rows)} rows` },
    {
      figure: 'MB/s (database size growth)',
      value: num(d.mbPerS),
      note: `${num(bytesToMB(d.databaseGrowthBytes))} MB on disk; WAL ${num(bytesToMB(d.walBytes))} MB more; ${d.copyFormat} COPY ${num(bytesToMB(d.copyBytes))} MB`,
    },
    {
      figure: 'device sequential write MB/s',
      value: num(d.device.mbPerS),
      note: `${d.device.method}, ${num(bytesToMB(d.device.bytes))} MB in ${num(d.device.seconds)} s, same filesystem as the data directory`,
    },
    { figure: 'load MB/s ÷ device MB/s', value: d.fractionOfDevice.toFixed(2), note: '' },
    {
      figure: 'txbench peak RSS',
      value: `${num(d.peakRssMB)} MB`,
      note: `the loading process's VmHWM, generator threads included; RSS sampled every 100 ms peaked at ${num(d.sampledRssMB)} MB`,
    },
  ];
  const columns: Column<Row>[] = [
    { header: 'figure', align: 'left', text: (r) => r.figure },
    { header: 'value', align: 'right', text: (r) => r.value },
    { header: '', align: 'left', text: (r) => r.note },
  ];
  return formatTable(columns, rows, 'markdown');
}

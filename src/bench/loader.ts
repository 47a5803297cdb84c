/**
 * Section 4, the loader: txbench's whole load of N warehouses (generation, COPY, keys, ANALYZE)
 * next to the raw COPY of the same rows from files the server reads itself, in as many sessions as
 * txbench uses streams, big tables split by warehouse halves; then the same keys, indexes and
 * ANALYZE on the raw-loaded tables. Then the same comparison for MariaDB and SQLite against their
 * own raw bulk paths (loader-peers.ts); a database that is not installed is skipped with its reason.
 */
import type { Cleanup } from './cleanup.js';
import { inLanes } from './lanes.js';
import { chown, mkdir, rm, stat } from 'node:fs/promises';
import { availableParallelism, userInfo } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { PgCluster } from './pg-cluster.js';
import { clusterCpuS } from './proc-stat.js';
import { checkpoint } from './settle.js';
import { loadTpcc, type LoadResult } from '../workloads/tpcc/loader.js';
import { postgresTpcc } from '../workloads/tpcc/postgres/index.js';
import {
  afterDataStatements,
  COLUMNS,
  createTableStatement,
  TABLES,
  type TableName,
} from '../workloads/tpcc/schema.js';
import { execFileSync } from 'node:child_process';
import { mariadbLoad, sqliteLoad, type PeerLoad } from './loader-peers.js';
import { oneLine } from './sections.js';
import { bytesToMB } from '../util/units.js';

export interface LoaderData {
  warehouses: number;
  streams: number;
  txbench: {
    seconds: number;
    phaseSeconds: LoadResult['phaseSeconds'];
    rows: number;
    bytes: number;
    copyFormat: LoadResult['copyFormat'];
    /** CPU seconds of txbench (generator threads included) and of the server over the whole load. */
    clientCpuS: number;
    serverCpuS: number;
  };
  raw: {
    copyS: number;
    keysS: number;
    analyzeS: number;
    files: number;
    bytes: number;
    /** Server CPU seconds of the raw COPY, and of keys + ANALYZE. */
    copyServerCpuS: number;
    keysAnalyzeServerCpuS: number;
    /**
     * The same rows COPYed from files in the binary format (data only): the format txbench's own
     * load uses on PostgreSQL, printed beside the text reference the targets keep.
     */
    binaryCopyS?: number;
    binaryBytes?: number;
    binaryCopyServerCpuS?: number;
  };
  /** txbench's whole load ÷ the raw COPY alone, and ÷ raw COPY + keys + ANALYZE. */
  ratioToCopy: number;
  ratioToCopyKeysAnalyze: number;
  /** The same style of ratio for MariaDB and SQLite, or why it was not measured. */
  mariadb: PeerLoad | { skipped: string };
  sqlite: PeerLoad | { skipped: string };
}

/** Column holding the warehouse number, for tables split in halves. */
const SPLIT_BY: Partial<Record<TableName, string>> = {
  customer: 'c_w_id',
  history: 'h_w_id',
  orders: 'o_w_id',
  new_order: 'no_w_id',
  order_line: 'ol_w_id',
  stock: 's_w_id',
};

interface Part {
  table: TableName;
  file: string;
  where: string;
  bytes: number;
}

export async function loaderSection(
  cleanup: Cleanup,
  cluster: PgCluster,
  cfg: BenchConfig['loader'],
  progress: (line: string) => void,
): Promise<LoaderData> {
  const postgresPart = await postgresLoad(cluster, cfg, progress);
  const mariadb = await peerOrReason(
    () => mariadbLoad(cleanup, cfg.warehouses, postgresPart.streams, progress),
    progress,
  );
  const sqlite = await peerOrReason(() => sqliteLoad(cleanup, cfg.warehouses, progress), progress);
  return { ...postgresPart, mariadb, sqlite };
}

async function postgresLoad(
  cluster: PgCluster,
  cfg: BenchConfig['loader'],
  progress: (line: string) => void,
): Promise<Omit<LoaderData, 'mariadb' | 'sqlite'>> {
  const w = cfg.warehouses;
  const streams = availableParallelism() + 1;
  const url = await cluster.createDatabase(`tpcc${w}`);
  await checkpoint(url);
  progress(`txbench load, ${w} warehouses`);
  const client0 = process.cpuUsage();
  const server0 = clusterCpuS(cluster.pid);
  const load = await loadTpcc(url, { warehouses: w, jobs: streams });
  const serverCpuS = clusterCpuS(cluster.pid) - server0;
  const clientCpu = process.cpuUsage(client0);
  await checkpoint(url);

  progress('exporting the rows to files (untimed)');
  const dir = path.join(cluster.baseDir, 'export');
  await mkdir(dir, { mode: 0o700 });
  if (userInfo().uid === 0) {
    const id = (flag: string): number =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    await chown(dir, id('-u'), id('-g'));
  }
  const half = Math.ceil(w / 2);
  const parts: Part[] = [];
  for (const table of TABLES) {
    const col = SPLIT_BY[table];
    if (col === undefined || w < 2)
      parts.push({ table, file: path.join(dir, table), where: 'true', bytes: 0 });
    else {
      parts.push({ table, file: path.join(dir, `${table}.1`), where: `${col} <= ${half}`, bytes: 0 });
      parts.push({ table, file: path.join(dir, `${table}.2`), where: `${col} > ${half}`, bytes: 0 });
    }
  }
  try {
    await onPool(url, streams, parts, (sql, p) =>
      sql.unsafe(
        `copy (select ${COLUMNS[p.table].join(', ')} from ${p.table} where ${p.where}) to '${p.file}'`,
      ),
    );
    await onPool(url, streams, parts, (sql, p) =>
      sql.unsafe(
        `copy (select ${COLUMNS[p.table].join(', ')} from ${p.table} where ${p.where}) to '${p.file}.bin' (format binary)`,
      ),
    );
    let binaryBytes = 0;
    for (const p of parts) {
      p.bytes = (await stat(p.file)).size;
      binaryBytes += (await stat(`${p.file}.bin`)).size;
    }
    // Biggest first, so the last session is not left alone with a big file.
    parts.sort((a, b) => b.bytes - a.bytes);

    const rawUrl = await cluster.createDatabase('rawcopy');
    const admin = postgres(rawUrl, { max: 1, onnotice: () => undefined });
    try {
      for (const table of TABLES) await admin.unsafe(createTableStatement(postgresTpcc.ddl, table));
    } finally {
      await admin.end({ timeout: 5 });
    }
    await checkpoint(rawUrl);
    progress(`raw COPY from files in ${streams} sessions`);
    const s0 = clusterCpuS(cluster.pid);
    const t0 = performance.now();
    await onPool(rawUrl, streams, parts, (sql, p) =>
      sql.unsafe(`copy ${p.table} (${COLUMNS[p.table].join(', ')}) from '${p.file}'`),
    );
    const t1 = performance.now();
    const s1 = clusterCpuS(cluster.pid);
    progress('keys and indexes, then ANALYZE, on the raw-loaded tables');
    const keyGroups = afterDataStatements(postgresTpcc.ddl).map((g) => g.statements);
    await onPool(rawUrl, streams, keyGroups, async (sql, group) => {
      for (const statement of group) await sql.unsafe(statement);
    });
    const t2 = performance.now();
    await onPool(rawUrl, streams, [...TABLES], (sql, table) =>
      sql.unsafe(postgresTpcc.analyze(table).join('; ')),
    );
    const t3 = performance.now();
    const s3 = clusterCpuS(cluster.pid);
    const binary = await rawBinaryCopy(cluster, streams, parts, progress);
    const raw = {
      copyS: (t1 - t0) / 1000,
      keysS: (t2 - t1) / 1000,
      analyzeS: (t3 - t2) / 1000,
      files: parts.length,
      bytes: parts.reduce((a, p) => a + p.bytes, 0),
      copyServerCpuS: s1 - s0,
      keysAnalyzeServerCpuS: s3 - s1,
      binaryCopyS: binary.seconds,
      binaryBytes,
      binaryCopyServerCpuS: binary.serverCpuS,
    };
    return {
      warehouses: w,
      streams,
      txbench: {
        seconds: load.seconds,
        phaseSeconds: load.phaseSeconds,
        rows: load.rows,
        bytes: load.bytes,
        copyFormat: load.copyFormat,
        clientCpuS: (clientCpu.user + clientCpu.system) / 1e6,
        serverCpuS,
      },
      raw,
      ratioToCopy: load.seconds / raw.copyS,
      ratioToCopyKeysAnalyze: load.seconds / (raw.copyS + raw.keysS + raw.analyzeS),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** COPY of the exported binary files into a database of their own, in `streams` sessions. */
async function rawBinaryCopy(
  cluster: PgCluster,
  streams: number,
  parts: readonly Part[],
  progress: (line: string) => void,
): Promise<{ seconds: number; serverCpuS: number }> {
  const url = await cluster.createDatabase('rawbinary');
  const admin = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    for (const table of TABLES) await admin.unsafe(createTableStatement(postgresTpcc.ddl, table));
  } finally {
    await admin.end({ timeout: 5 });
  }
  await checkpoint(url);
  progress(`raw binary COPY from files in ${streams} sessions`);
  const s0 = clusterCpuS(cluster.pid);
  const t0 = performance.now();
  await onPool(url, streams, parts, (sql, p) =>
    sql.unsafe(`copy ${p.table} (${COLUMNS[p.table].join(', ')}) from '${p.file}.bin' (format binary)`),
  );
  return { seconds: (performance.now() - t0) / 1000, serverCpuS: clusterCpuS(cluster.pid) - s0 };
}

async function peerOrReason(
  measure: () => Promise<PeerLoad>,
  progress: (line: string) => void,
): Promise<PeerLoad | { skipped: string }> {
  try {
    return await measure();
  } catch (err) {
    const skipped = oneLine(err);
    progress(`skipped: ${skipped}`);
    return { skipped };
  }
}

/** Runs `fn` over `items` on `jobs` sessions at once, in order of the list. */
async function onPool<T>(
  url: string,
  jobs: number,
  items: readonly T[],
  fn: (sql: postgres.Sql, item: T) => Promise<unknown>,
): Promise<void> {
  const sql = postgres(url, { max: jobs, onnotice: () => undefined, idle_timeout: 0 });
  try {
    await inLanes(jobs, items, (item) => fn(sql, item));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export const LOADER_TARGETS: readonly TargetDef<LoaderData>[] = [
  { figure: 'loader: txbench load ÷ raw COPY', unit: '', op: '<=', limit: 1.3, value: (d) => d.ratioToCopy },
  {
    figure: 'loader: txbench load ÷ (raw COPY + keys + ANALYZE)',
    unit: '',
    op: '<=',
    limit: 1.0,
    value: (d) => d.ratioToCopyKeysAnalyze,
  },
];

export function loaderTable(d: LoaderData): string {
  type Row = { step: string; s: number; cpu?: string; note: string };
  const t = d.txbench;
  const rows: Row[] = [
    {
      step: 'txbench load (whole)',
      s: t.seconds,
      cpu: `${num(t.clientCpuS)} + ${num(t.serverCpuS)}`,
      note: `${num(t.rows)} rows, ${num(bytesToMB(t.bytes))} MB of ${t.copyFormat} COPY, ${d.streams} streams`,
    },
    {
      step: '  generation + COPY',
      s: t.phaseSeconds.data,
      note: 'the keys of tables already in are built meanwhile',
    },
    { step: '  keys and indexes, after the data', s: t.phaseSeconds.indexes, note: '' },
    { step: '  ANALYZE, after the last key', s: t.phaseSeconds.analyze, note: '' },
    {
      step: 'raw COPY from files',
      s: d.raw.copyS,
      cpu: `0 + ${num(d.raw.copyServerCpuS)}`,
      note: `${d.raw.files} files, ${num(bytesToMB(d.raw.bytes))} MB, ${d.streams} sessions`,
    },
    {
      step: 'raw: keys and indexes',
      s: d.raw.keysS,
      cpu: `0 + ${num(d.raw.keysAnalyzeServerCpuS)} (with ANALYZE)`,
      note: '',
    },
    { step: 'raw: ANALYZE', s: d.raw.analyzeS, note: '' },
    { step: 'raw: COPY + keys + ANALYZE', s: d.raw.copyS + d.raw.keysS + d.raw.analyzeS, note: '' },
  ];
  if (d.raw.binaryCopyS !== undefined)
    rows.push({
      step: 'raw binary COPY from files',
      s: d.raw.binaryCopyS,
      cpu: `0 + ${num(d.raw.binaryCopyServerCpuS ?? 0)}`,
      note: `the same files in the binary format, ${num(bytesToMB(d.raw.binaryBytes ?? 0))} MB (data only)`,
    });
  const columns: Column<Row>[] = [
    { header: 'step', align: 'left', text: (r) => r.step },
    { header: 'seconds', align: 'right', text: (r) => num(r.s) },
    { header: 'CPU s, txbench + server', align: 'right', text: (r) => r.cpu ?? '' },
    { header: '', align: 'left', text: (r) => r.note },
  ];
  const peers = [peerLines('MariaDB', d.mariadb), peerLines('SQLite', d.sqlite)];
  return [
    formatTable(columns, rows, 'markdown'),
    '',
    `txbench ÷ raw COPY = ${d.ratioToCopy.toFixed(2)}×; txbench ÷ (raw COPY + keys + ANALYZE) = ${d.ratioToCopyKeysAnalyze.toFixed(2)}×` +
      (d.raw.binaryCopyS === undefined
        ? '.'
        : `; the raw COPY is from text files, the form the targets were set against; from binary files it takes ${(d.raw.binaryCopyS / d.raw.copyS).toFixed(2)}× as long.`),
    '',
    formatTable(
      PEER_COLUMNS,
      peers.flatMap((p) => p.rows),
      'markdown',
    ),
    '',
    ...peers.map((p) => p.line),
  ].join('\n');
}

type PeerRow = { step: string; s: number | undefined; note: string };
const PEER_COLUMNS: readonly Column<PeerRow>[] = [
  { header: 'step', align: 'left', text: (r) => r.step },
  { header: 'seconds', align: 'right', text: (r) => (r.s === undefined ? '' : num(r.s)) },
  { header: '', align: 'left', text: (r) => r.note },
];

/** A peer database's rows, and its ratios as figures (targets are named for PostgreSQL only). */
function peerLines(name: string, p: PeerLoad | { skipped: string }): { rows: PeerRow[]; line: string } {
  if ('skipped' in p) return { rows: [], line: `${name}: not measured (${p.skipped}).` };
  const t = p.txbench;
  return {
    rows: [
      { step: `${p.database}: txbench load (whole)`, s: t.seconds, note: `${num(t.rows)} rows` },
      {
        step: '  generation + load, keys and indexes, ANALYZE',
        s: undefined,
        note: `${num(t.phaseSeconds.data)} + ${num(t.phaseSeconds.indexes)} + ${num(t.phaseSeconds.analyze)} s`,
      },
      {
        step: `${name}: raw ${p.rawPath}`,
        s: p.raw.loadS,
        note: p.raw.bytes === undefined ? '' : `${num(bytesToMB(p.raw.bytes))} MB`,
      },
      { step: `${name}: raw keys and indexes`, s: p.raw.keysS, note: '' },
      { step: `${name}: raw ANALYZE`, s: p.raw.analyzeS, note: '' },
    ],
    line: `${name} (info): txbench ÷ raw bulk = ${p.ratioToRaw.toFixed(2)}×; txbench ÷ (raw bulk + keys + ANALYZE) = ${p.ratioToRawKeysAnalyze.toFixed(2)}×.`,
  };
}

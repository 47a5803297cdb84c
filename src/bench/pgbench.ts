/**
 * Section 2, the client-side limit: pgbench (C, libpq) calling the same PL/pgSQL functions as
 * txbench's procedure mode, same database, connections and duration. pgbench's CPU comes from the
 * shell's `times` after it exits (user + system of the finished child, exact); the server's from /proc.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { startProgram, lastLine } from './children.js';
import { isRun, type ClientCostData } from './client-cost.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import { hostBusyS } from './host-cpu.js';
import type { PgCluster } from './pg-cluster.js';
import { pgbenchScripts, SCRIPT_NAMES } from './pgbench-scripts.js';
import { clusterCpuS } from './proc-stat.js';
import { round, type RunFigures } from './txbench-run.js';
import { PROCEDURE_DEFINITIONS, PROCEDURES_VERSION } from '../workloads/tpcc/postgres/procedures.js';
import { Rng } from '../random/rng.js';
import { runConstants, type NurandConstants } from '../workloads/tpcc/random.js';

export interface PgbenchFigures {
  command: string;
  seconds: number;
  transactions: number;
  tps: number;
  failed: number;
  latencyAvgMs: number | null;
  client: { userS: number; systemS: number; usPerTransaction: number; coresUsed: number };
  server: { cpuS: number; usPerTransaction: number; coresUsed: number };
  /** Busy CPU of everything else on the machine meanwhile, in cores. */
  otherCores: number;
}

export interface PgbenchData {
  pgbench: PgbenchFigures;
  /** Section 1's procedure-mode run, the txbench side of the comparison (null when it failed). */
  txbench: RunFigures | null;
  /** Section 1's procedure-mode run on postgres.js, for comparison. */
  txbenchPostgresJs?: RunFigures | null;
}

export async function pgbenchSection(
  cluster: PgCluster,
  s1: ClientCostData,
  cfg: BenchConfig,
): Promise<PgbenchData> {
  const cc = cfg.clientCost;
  const constants = await prepareDatabase(s1.url);
  const dir = path.join(cluster.baseDir, 'pgbench');
  await mkdir(dir, { recursive: true });
  const scripts = pgbenchScripts(constants, s1.warehouses);
  for (const name of SCRIPT_NAMES) await writeFile(path.join(dir, `${name}.sql`), scripts[name]);
  const seconds = Math.max(1, Math.round(cc.durationMs / 1000));
  const args = [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(cc.connections),
    '-j',
    '1',
    '-T',
    String(seconds),
    '-h',
    '127.0.0.1',
    '-p',
    String(cluster.port),
    '-U',
    'postgres',
    '-D',
    `W=${s1.warehouses}`,
    ...SCRIPT_NAMES.flatMap((name, i) => ['-f', `${name}.sql@${cfg.pgbenchWeights[i] ?? 0}`]),
    new URL(s1.url).pathname.slice(1),
  ];
  const server0 = clusterCpuS(cluster.pid);
  const host0 = hostBusyS();
  const t0 = performance.now();
  // `times` prints the shell's and then its finished children's user and system time.
  const { finished } = startProgram(
    'bash',
    ['-c', 'pgbench "$@"; rc=$?; times; exit $rc', 'bash', ...args],
    seconds * 1000 + 120_000,
    { cwd: dir },
  );
  const result = await finished;
  const elapsedS = (performance.now() - t0) / 1000;
  const serverS = clusterCpuS(cluster.pid) - server0;
  const hostS = hostBusyS() - host0;
  if (result.code !== 0)
    throw new Error(`pgbench failed (exit ${result.code ?? result.signal}): ${lastLine(result.stderr)}`);
  const out = result.stdout;
  const transactions = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1]);
  const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
  if (!Number.isFinite(transactions) || !Number.isFinite(tps) || transactions === 0)
    throw new Error(`could not read pgbench's result: ${lastLine(out)}`);
  const timeLines = out.trim().split('\n').slice(-2);
  const [userS, systemS] = parseTimes(timeLines[1] ?? '');
  const clientS = userS + systemS;
  return {
    pgbench: {
      command: `pgbench ${args.join(' ')}`,
      seconds,
      transactions,
      tps: round(tps),
      failed: Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0),
      latencyAvgMs: Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? NaN) || null,
      client: {
        userS,
        systemS,
        usPerTransaction: round((clientS * 1e6) / transactions, 1),
        coresUsed: round(clientS / elapsedS, 3),
      },
      server: {
        cpuS: round(serverS, 3),
        usPerTransaction: round((serverS * 1e6) / transactions, 1),
        coresUsed: round(serverS / elapsedS, 3),
      },
      otherCores: round(Math.max(0, hostS - serverS - clientS) / elapsedS, 3),
    },
    txbench: isRun(s1.runs.procedures) ? s1.runs.procedures : null,
    txbenchPostgresJs: isRun(s1.runs.proceduresPostgresJs) ? s1.runs.proceduresPostgresJs : null,
  };
}

/** "0m1.234s 0m0.567s" → [1.234, 0.567]. */
function parseTimes(line: string): [number, number] {
  const parts = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (parts.length !== 2) throw new Error(`could not read pgbench's CPU time from "${line}"`);
  return [parts[0]!, parts[1]!];
}

/** The functions (installed as txbench installs them) and run-time NURand constants for the scripts. */
async function prepareDatabase(url: string): Promise<NurandConstants> {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    for (const p of PROCEDURE_DEFINITIONS) {
      // An older version's result type cannot be replaced, only dropped.
      await sql.unsafe(`drop function if exists ${p.name}(${p.signature})`);
      await sql.unsafe(p.sql);
      await sql.unsafe(`comment on function ${p.name}(${p.signature}) is '${PROCEDURES_VERSION}'`);
    }
    const [row] = await sql.unsafe<{ meta_value: string }[]>(
      `select meta_value from txbench_meta where meta_key = 'load'`,
    );
    const load = (JSON.parse(row?.meta_value ?? '{}') as { loadConstants?: NurandConstants }).loadConstants;
    if (load === undefined) throw new Error('the txbench load metadata is missing its NURand constants');
    return runConstants(new Rng(0x5eed), load);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export const PGBENCH_TARGETS: readonly TargetDef<PgbenchData>[] = [
  {
    figure: 'procedure-mode TPS, txbench ÷ pgbench',
    unit: '',
    op: '>=',
    limit: 0.95,
    value: (d) => (d.txbench ? d.txbench.tps / d.pgbench.tps : 'section 1 has no procedure-mode run'),
  },
  {
    figure: 'client CPU per transaction, txbench ÷ pgbench',
    unit: '',
    op: '<=',
    limit: 1.5,
    value: (d) =>
      d.txbench
        ? d.txbench.client.usPerTransaction / d.pgbench.client.usPerTransaction
        : 'section 1 has no procedure-mode run',
  },
];

interface Row {
  driver: string;
  tps: number;
  clientUs: number;
  clientCores: number;
  serverUs: number | undefined;
  serverCores: number | undefined;
  otherCores: number | undefined;
}

export function pgbenchTable(d: PgbenchData): string {
  const rows: Row[] = [
    {
      driver: 'pgbench (C, libpq), prepared',
      tps: d.pgbench.tps,
      clientUs: d.pgbench.client.usPerTransaction,
      clientCores: d.pgbench.client.coresUsed,
      serverUs: d.pgbench.server.usPerTransaction,
      serverCores: d.pgbench.server.coresUsed,
      otherCores: d.pgbench.otherCores,
    },
  ];
  const txbenchRow = (driver: string, run: RunFigures): Row => ({
    driver,
    tps: run.tps,
    clientUs: run.client.usPerTransaction,
    clientCores: run.client.coresUsed,
    serverUs: run.server?.usPerTransaction,
    serverCores: run.server?.coresUsed,
    otherCores: run.otherCores ?? undefined,
  });
  if (d.txbench) rows.push(txbenchRow('txbench --procedures (section 1)', d.txbench));
  if (d.txbenchPostgresJs)
    rows.push(txbenchRow('txbench --procedures on postgres.js (section 1)', d.txbenchPostgresJs));
  const columns: Column<Row>[] = [
    { header: 'driver', align: 'left', text: (r) => r.driver },
    { header: 'TPS', align: 'right', text: (r) => num(r.tps) },
    { header: 'client µs/txn', align: 'right', text: (r) => num(r.clientUs) },
    { header: 'client cores', align: 'right', text: (r) => num(r.clientCores) },
    { header: 'server µs/txn', align: 'right', text: (r) => num(r.serverUs) },
    { header: 'server cores', align: 'right', text: (r) => num(r.serverCores) },
    { header: 'other load, cores', align: 'right', text: (r) => num(r.otherCores) },
  ];
  return [`Command: \`${d.pgbench.command}\``, '', formatTable(columns, rows, 'markdown')].join('\n');
}

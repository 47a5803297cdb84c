/**
 * Section 2, the client-side limit: pgbench (C, libpq) calling the same PL/pgSQL functions as
 * txbench's procedure mode, same database, connections and duration. The two take turns in this
 * section (pgbench, txbench, txbench, pgbench): every run adds orders to the database, so a tool
 * that always ran later would always meet a bigger one; in this order the growth weighs on both
 * alike, and the targets compare each tool's runs together. pgbench's CPU comes from the shell's
 * `times` after it exits (user + system of the finished child, exact); the server's from /proc.
 * Each turn starts from a CHECKPOINT (untimed), so no turn inherits the dirty buffers of the one
 * before it (or of section 1's runs) and meets a checkpoint mid-window that another turn did not.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { startProgram, lastLine } from './children.js';
import type { Cleanup } from './cleanup.js';
import { isRun, type ClientCostData } from './client-cost.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import { hostBusyS } from './host-cpu.js';
import type { PgCluster } from './pg-cluster.js';
import { pgbenchScripts, SCRIPT_NAMES } from './pgbench-scripts.js';
import { clusterCpuS } from './proc-stat.js';
import { round, runTxbench, type RunFigures } from './txbench-run.js';
import { checkpoint } from './settle.js';
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

/** Which tool ran, in the order the section ran them. */
export type Turn = 'pgbench' | 'txbench';

/** pgbench and txbench --procedures taking turns on the same database (ABBA). */
export const TURNS: readonly Turn[] = ['pgbench', 'txbench', 'txbench', 'pgbench'];

export interface PgbenchData {
  /** pgbench over all of its runs in this section: transactions and CPU summed, TPS their mean. */
  pgbench: PgbenchFigures;
  /** Section 1's procedure-mode run (information: it ran minutes earlier, on a smaller database). */
  txbench: RunFigures | null;
  /** Section 1's procedure-mode run on postgres.js, for comparison. */
  txbenchPostgresJs?: RunFigures | null;
  /** This section's runs, in the order they ran. */
  turns: TurnRun[];
  /** txbench's runs of this section as one (pgbench's are `pgbench`). */
  txbenchCombined: CombinedRuns;
  /** What the targets compare: each tool's runs of this section together. */
  paired: {
    pgbenchTps: number;
    txbenchTps: number;
    /** txbench ÷ pgbench. */
    tpsRatio: number;
    pgbenchClientUs: number;
    txbenchClientUs: number;
    /** txbench ÷ pgbench, client CPU per transaction. */
    clientUsRatio: number;
    /**
     * The same two ratios for each pair of neighbouring turns (1 with 2, 3 with 4): their spread
     * says whether a PASS is steady or one lucky turn.
     */
    pairs: { tpsRatio: number; clientUsRatio: number }[];
  };
}

export type TurnRun = { tool: 'pgbench'; pgbench: PgbenchFigures } | { tool: 'txbench'; txbench: RunFigures };

/** Several txbench runs as one: CPU per transaction over all of them, TPS and cores their mean. */
export interface CombinedRuns {
  tps: number;
  clientUs: number;
  clientCores: number;
  /** Null when a run has no server figures. */
  serverUs: number | null;
  serverCores: number | null;
}

export async function pgbenchSection(
  cleanup: Cleanup,
  cluster: PgCluster,
  s1: ClientCostData,
  cfg: BenchConfig,
  progress: (line: string) => void,
): Promise<PgbenchData> {
  const cc = cfg.clientCost;
  const constants = await prepareDatabase(s1.url);
  const dir = path.join(cluster.baseDir, 'pgbench');
  await mkdir(dir, { recursive: true });
  const scripts = pgbenchScripts(constants, s1.warehouses);
  for (const name of SCRIPT_NAMES) await writeFile(path.join(dir, `${name}.sql`), scripts[name]);
  const turns: TurnRun[] = [];
  for (const [i, tool] of TURNS.entries()) {
    progress(
      `${i + 1}/${TURNS.length}: ${tool === 'pgbench' ? 'pgbench' : 'txbench --procedures'}, ${cc.connections} clients`,
    );
    await checkpoint(s1.url);
    if (tool === 'pgbench') turns.push({ tool, pgbench: await runPgbench(cleanup, cluster, s1, cfg, dir) });
    else {
      const spec = {
        procedures: true,
        terminals: cc.terminals,
        connections: cc.connections,
        warmupMs: cc.warmupMs,
        durationMs: cc.durationMs,
      };
      turns.push({ tool, txbench: await runTxbench(cleanup, s1.url, spec, cluster.pid) });
    }
  }
  return {
    ...pairedTurns(turns),
    txbench: isRun(s1.runs.procedures) ? s1.runs.procedures : null,
    txbenchPostgresJs: isRun(s1.runs.proceduresPostgresJs) ? s1.runs.proceduresPostgresJs : null,
  };
}

/** Each tool's turns together, the ratios the targets compare, and those ratios per pair of turns. */
export function pairedTurns(
  turns: readonly TurnRun[],
): Pick<PgbenchData, 'pgbench' | 'turns' | 'txbenchCombined' | 'paired'> {
  const pgbenchOf = (ts: readonly TurnRun[]): PgbenchFigures =>
    combinePgbench(ts.flatMap((t) => (t.tool === 'pgbench' ? [t.pgbench] : [])));
  const txbenchOf = (ts: readonly TurnRun[]): CombinedRuns =>
    combineTxbench(ts.flatMap((t) => (t.tool === 'txbench' ? [t.txbench] : [])));
  const ratios = (pg: PgbenchFigures, tx: CombinedRuns): { tpsRatio: number; clientUsRatio: number } => ({
    tpsRatio: round(tx.tps / pg.tps, 3),
    clientUsRatio: round(tx.clientUs / pg.client.usPerTransaction, 3),
  });
  const pgbench = pgbenchOf(turns);
  const txbench = txbenchOf(turns);
  const pairs: PgbenchData['paired']['pairs'] = [];
  for (let i = 0; i + 1 < turns.length; i += 2) {
    const pair = turns.slice(i, i + 2);
    if (pair.some((t) => t.tool === 'pgbench') && pair.some((t) => t.tool === 'txbench'))
      pairs.push(ratios(pgbenchOf(pair), txbenchOf(pair)));
  }
  return {
    pgbench,
    turns: [...turns],
    txbenchCombined: txbench,
    paired: {
      pgbenchTps: pgbench.tps,
      txbenchTps: txbench.tps,
      pgbenchClientUs: pgbench.client.usPerTransaction,
      txbenchClientUs: txbench.clientUs,
      ...ratios(pgbench, txbench),
      pairs,
    },
  };
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** CPU per transaction over several runs together, µs. */
const usPerTransaction = (runs: readonly { cpuS: number; transactions: number }[]): number =>
  (runs.reduce((a, r) => a + r.cpuS, 0) * 1e6) / runs.reduce((a, r) => a + r.transactions, 0);

export function combineTxbench(runs: readonly RunFigures[]): CombinedRuns {
  if (runs.length === 0) throw new Error('no txbench run to combine');
  const servers = runs.flatMap((r) => (r.server ? [{ ...r.server, transactions: r.transactions }] : []));
  const whole = servers.length === runs.length;
  return {
    tps: round(mean(runs.map((r) => r.tps))),
    clientUs: round(
      usPerTransaction(
        runs.map((r) => ({ cpuS: r.client.userS + r.client.systemS, transactions: r.transactions })),
      ),
      1,
    ),
    clientCores: round(mean(runs.map((r) => r.client.coresUsed)), 3),
    serverUs: whole ? round(usPerTransaction(servers), 1) : null,
    serverCores: whole ? round(mean(servers.map((s) => s.coresUsed)), 3) : null,
  };
}

/** pgbench's runs as one: transactions and CPU summed, rates over the summed time, TPS their mean. */
export function combinePgbench(runs: readonly PgbenchFigures[]): PgbenchFigures {
  const first = runs[0];
  if (first === undefined) throw new Error('no pgbench run to combine');
  const sum = (f: (r: PgbenchFigures) => number): number => runs.reduce((a, r) => a + f(r), 0);
  const seconds = sum((r) => r.seconds);
  const transactions = sum((r) => r.transactions);
  const userS = sum((r) => r.client.userS);
  const systemS = sum((r) => r.client.systemS);
  const serverS = sum((r) => r.server.cpuS);
  const latencies = runs.map((r) => r.latencyAvgMs);
  return {
    command: first.command,
    seconds,
    transactions,
    tps: round(mean(runs.map((r) => r.tps))),
    failed: sum((r) => r.failed),
    latencyAvgMs: latencies.every((l) => l !== null) ? round(mean(latencies as number[]), 3) : null,
    client: {
      userS: round(userS, 3),
      systemS: round(systemS, 3),
      usPerTransaction: round(((userS + systemS) * 1e6) / transactions, 1),
      coresUsed: round(mean(runs.map((r) => r.client.coresUsed)), 3),
    },
    server: {
      cpuS: round(serverS, 3),
      usPerTransaction: round((serverS * 1e6) / transactions, 1),
      coresUsed: round(mean(runs.map((r) => r.server.coresUsed)), 3),
    },
    otherCores: round(mean(runs.map((r) => r.otherCores)), 3),
  };
}

/** One pgbench run of the section's window on section 1's database. */
async function runPgbench(
  cleanup: Cleanup,
  cluster: PgCluster,
  s1: ClientCostData,
  cfg: BenchConfig,
  dir: string,
): Promise<PgbenchFigures> {
  const cc = cfg.clientCost;
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
    cleanup,
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
    value: (d) => d.paired.tpsRatio,
  },
  {
    figure: 'client CPU per transaction, txbench ÷ pgbench',
    unit: '',
    op: '<=',
    limit: 1.5,
    value: (d) => d.paired.clientUsRatio,
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
  const pgbenchRow = (driver: string, f: PgbenchFigures): Row => ({
    driver,
    tps: f.tps,
    clientUs: f.client.usPerTransaction,
    clientCores: f.client.coresUsed,
    serverUs: f.server.usPerTransaction,
    serverCores: f.server.coresUsed,
    otherCores: f.otherCores,
  });
  const txbenchRow = (driver: string, run: RunFigures): Row => ({
    driver,
    tps: run.tps,
    clientUs: run.client.usPerTransaction,
    clientCores: run.client.coresUsed,
    serverUs: run.server?.usPerTransaction,
    serverCores: run.server?.coresUsed,
    otherCores: run.otherCores ?? undefined,
  });
  const rows: Row[] = d.turns.map((t, i) =>
    t.tool === 'pgbench'
      ? pgbenchRow(`${i + 1}. pgbench (C, libpq), prepared`, t.pgbench)
      : txbenchRow(`${i + 1}. txbench --procedures`, t.txbench),
  );
  const runsOf = (tool: Turn): string =>
    d.turns.flatMap((t, i) => (t.tool === tool ? [String(i + 1)] : [])).join(' and ');
  const c = d.txbenchCombined;
  rows.push(pgbenchRow(`pgbench, runs ${runsOf('pgbench')}`, d.pgbench), {
    driver: `txbench --procedures, runs ${runsOf('txbench')}`,
    tps: c.tps,
    clientUs: c.clientUs,
    clientCores: c.clientCores,
    serverUs: c.serverUs ?? undefined,
    serverCores: c.serverCores ?? undefined,
    otherCores: undefined,
  });
  if (d.txbench) rows.push(txbenchRow('txbench --procedures (section 1, information)', d.txbench));
  if (d.txbenchPostgresJs)
    rows.push(
      txbenchRow('txbench --procedures on postgres.js (section 1, information)', d.txbenchPostgresJs),
    );
  const columns: Column<Row>[] = [
    { header: 'driver', align: 'left', text: (r) => r.driver },
    { header: 'TPS', align: 'right', text: (r) => num(r.tps) },
    { header: 'client µs/txn', align: 'right', text: (r) => num(r.clientUs) },
    { header: 'client cores', align: 'right', text: (r) => num(r.clientCores) },
    { header: 'server µs/txn', align: 'right', text: (r) => num(r.serverUs) },
    { header: 'server cores', align: 'right', text: (r) => num(r.serverCores) },
    { header: 'other load, cores', align: 'right', text: (r) => num(r.otherCores) },
  ];
  return [
    `Command: \`${d.pgbench.command}\``,
    '',
    `The two took turns on section 1's database (${d.turns.map((t) => t.tool).join(', ')}), each run the same window, so that the orders every run adds weigh on both alike; the targets compare each tool's runs together: TPS txbench ÷ pgbench ${num(d.paired.tpsRatio)}, client CPU per transaction ${num(d.paired.clientUsRatio)}×.${pairSpread(d.paired.pairs)}`,
    '',
    formatTable(columns, rows, 'markdown'),
  ].join('\n');
}

/** " Over the pairs of neighbouring turns: TPS ratio 0.98–1.1, CPU ratio 1.2–1.33×." (none from older bench files). */
function pairSpread(pairs: PgbenchData['paired']['pairs'] | undefined): string {
  if (pairs === undefined || pairs.length < 2) return '';
  const range = (xs: number[]): string => `${num(Math.min(...xs))}–${num(Math.max(...xs))}`;
  return ` Over the ${pairs.length} pairs of neighbouring turns: TPS ratio ${range(pairs.map((p) => p.tpsRatio))}, client CPU ratio ${range(pairs.map((p) => p.clientUsRatio))}× (a PASS is steady when the whole range passes).`;
}

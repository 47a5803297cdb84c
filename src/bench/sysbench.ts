/**
 * Section 7, txbench's sysbench OLTP against real sysbench 1.0.20 (C + LuaJIT) on the same
 * PostgreSQL 15 tables (txbench loads them): oltp_point_select, oltp_read_only and
 * oltp_read_write at 1 and 4 threads/terminals, no think time. For each pairing the two tools
 * take turns (sysbench, txbench, txbench, sysbench), as section 2 does with pgbench, so that the
 * machine's other load and the growth of the tables weigh on both alike; the targets compare each
 * tool's runs together, and the table shows each ratio's spread over the two pairs of turns.
 * sysbench's CPU comes from the shell's `times` after it exits, txbench's from its own report over
 * the measured window; both per statement (BEGIN and COMMIT counted, as sysbench counts queries).
 */
import { loadavg as osLoadavg } from 'node:os';
import { startProgram, lastLine } from './children.js';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { PgCluster } from './pg-cluster.js';
import { round, runTxbench, type RunFigures } from './txbench-run.js';
import { loadWorkload } from '../workloads/loader.js';
import { findWorkload } from '../workloads/registry.js';

export const SYSBENCH_SCRIPTS = ['oltp_point_select', 'oltp_read_only', 'oltp_read_write'] as const;
type Script = (typeof SYSBENCH_SCRIPTS)[number];

export interface ToolFigures {
  tps: number;
  qps: number | null;
  client: { usPerTransaction: number; coresUsed: number; usPerStatement?: number | undefined };
}

/** One run of one tool, in the order the pairing ran them. */
export interface SysbenchTurn {
  tool: Tool;
  figures: ToolFigures;
  transactions: number;
  statements: number;
  clientCpuS: number;
}

export type Tool = 'sysbench' | 'txbench';
export const SYSBENCH_TURNS: readonly Tool[] = ['sysbench', 'txbench', 'txbench', 'sysbench'];

/** One script at one thread count: the turns, each tool's runs together, and the ratios. */
export interface SysbenchPairing {
  script: Script;
  threads: number;
  turns: SysbenchTurn[];
  sysbench: ToolFigures;
  txbench: ToolFigures;
  /** txbench ÷ sysbench over all of each tool's runs. */
  tpsRatio: number;
  clientUsPerStatementRatio: number;
  /** The same ratios for each pair of neighbouring turns (1 with 2, 3 with 4): their spread. */
  pairs: { tpsRatio: number; clientUsPerStatementRatio: number }[];
}

export interface SysbenchData {
  tables: number;
  tableSize: number;
  /** The largest thread count (the pairings at it are also given as `scripts`). */
  threads: number;
  threadCounts: number[];
  /** Kept for readers of earlier bench.json files: txbench no longer runs with --workers here. */
  workers: number;
  seconds: number;
  loadSeconds: number;
  command: string;
  /** The pairings at `threads`, each tool's runs together (the figure names of earlier files). */
  scripts: { script: Script; sysbench: ToolFigures; txbench: ToolFigures; txbenchWorkers?: ToolFigures }[];
  pairings: SysbenchPairing[];
  /** `uptime`'s load averages when the section started and ended. */
  loadAverage: { start: number[]; end: number[] };
}

export async function sysbenchSection(
  cleanup: Cleanup,
  cluster: PgCluster,
  cfg: BenchConfig['sysbench'],
  progress: (line: string) => void,
): Promise<SysbenchData> {
  const startLoad = loadavg();
  const url = await cluster.createDatabase('sysbench');
  progress(`loading ${cfg.tables} tables x ${cfg.tableSize} rows`);
  const load = await loadWorkload(await findWorkload('sysbench'), 'sysbench', url, {
    options: { tables: cfg.tables, tableSize: cfg.tableSize },
  });
  const seconds = Math.max(1, Math.round(cfg.durationMs / 1000));
  const base = [
    '--db-driver=pgsql',
    '--pgsql-host=127.0.0.1',
    `--pgsql-port=${cluster.port}`,
    '--pgsql-user=postgres',
    '--pgsql-db=sysbench',
    `--tables=${cfg.tables}`,
    `--table-size=${cfg.tableSize}`,
    // sysbench 1.0.20 has no warm-up option: its figures cover the whole run.
    `--time=${seconds}`,
  ];
  const pairings: SysbenchPairing[] = [];
  for (const threads of cfg.threadCounts) {
    for (const script of SYSBENCH_SCRIPTS) {
      const turns: SysbenchTurn[] = [];
      for (const [i, tool] of SYSBENCH_TURNS.entries()) {
        progress(
          `${script}, ${threads} thread${threads === 1 ? '' : 's'}: ${i + 1}/${SYSBENCH_TURNS.length} ${tool} (${loadavg()[0]} load)`,
        );
        turns.push(
          tool === 'sysbench'
            ? await runSysbench(cleanup, script, [...base, `--threads=${threads}`], seconds)
            : await runTxbench(
                cleanup,
                url,
                {
                  workload: 'sysbench',
                  workloadOptions: { script },
                  procedures: false,
                  terminals: threads,
                  connections: threads,
                  warmupMs: cfg.warmupMs,
                  durationMs: cfg.durationMs,
                  monitor: false,
                },
                cluster.pid,
              ).then(txbenchTurn),
        );
      }
      pairings.push(pairingOf(script, threads, turns));
    }
  }
  const threads = Math.max(...cfg.threadCounts);
  return {
    tables: cfg.tables,
    tableSize: cfg.tableSize,
    threads,
    threadCounts: [...cfg.threadCounts],
    workers: 1,
    seconds,
    loadSeconds: round(load.seconds, 1),
    command: `sysbench SCRIPT ${base.join(' ')} --threads=N run`,
    scripts: pairings
      .filter((p) => p.threads === threads)
      .map((p) => ({ script: p.script, sysbench: p.sysbench, txbench: p.txbench })),
    pairings,
    loadAverage: { start: startLoad, end: loadavg() },
  };
}

const loadavg = (): number[] => osLoadavg().map((x) => round(x, 2));

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** Several runs of one tool as one: TPS and cores their mean, CPU per transaction and statement over all. */
export function combineTurns(turns: readonly SysbenchTurn[]): ToolFigures {
  if (turns.length === 0) throw new Error('no run to combine');
  const mean = (f: (t: SysbenchTurn) => number): number => sum(turns.map(f)) / turns.length;
  const cpuS = sum(turns.map((t) => t.clientCpuS));
  const qps = turns.map((t) => t.figures.qps);
  return {
    tps: round(mean((t) => t.figures.tps)),
    qps: qps.every((q) => q !== null) ? round(sum(qps as number[]) / qps.length) : null,
    client: {
      usPerTransaction: round((cpuS * 1e6) / sum(turns.map((t) => t.transactions)), 1),
      coresUsed: round(
        mean((t) => t.figures.client.coresUsed),
        3,
      ),
      usPerStatement: round((cpuS * 1e6) / sum(turns.map((t) => t.statements)), 2),
    },
  };
}

const ratioOf = (
  tx: ToolFigures,
  sb: ToolFigures,
): { tpsRatio: number; clientUsPerStatementRatio: number } => ({
  tpsRatio: round(tx.tps / sb.tps, 3),
  clientUsPerStatementRatio: round((tx.client.usPerStatement ?? NaN) / (sb.client.usPerStatement ?? NaN), 3),
});

export function pairingOf(script: Script, threads: number, turns: SysbenchTurn[]): SysbenchPairing {
  const of = (tool: Tool): SysbenchTurn[] => turns.filter((t) => t.tool === tool);
  const sysbench = combineTurns(of('sysbench'));
  const txbench = combineTurns(of('txbench'));
  const pairs: SysbenchPairing['pairs'] = [];
  for (let i = 0; i + 1 < turns.length; i += 2) {
    const a = turns[i]!;
    const b = turns[i + 1]!;
    if (a.tool === b.tool) continue;
    const [sb, tx] = a.tool === 'sysbench' ? [a, b] : [b, a];
    pairs.push(ratioOf(combineTurns([tx]), combineTurns([sb])));
  }
  return { script, threads, turns, sysbench, txbench, ...ratioOf(txbench, sysbench), pairs };
}

/** Statements per transaction as the run reported them (QPS ÷ TPS: BEGIN and COMMIT included). */
const txbenchTurn = (tx: RunFigures): SysbenchTurn => {
  const figures = toolFigures(tx);
  const perTransaction = figures.qps !== null && figures.tps > 0 ? Math.round(figures.qps / figures.tps) : 1;
  const clientCpuS = tx.client.userS + tx.client.systemS;
  const statements = tx.transactions * perTransaction;
  return {
    tool: 'txbench',
    figures: {
      ...figures,
      client: {
        ...figures.client,
        usPerStatement: statements > 0 ? round((clientCpuS * 1e6) / statements, 2) : 0,
      },
    },
    transactions: tx.transactions,
    statements,
    clientCpuS,
  };
};

const toolFigures = (tx: RunFigures): ToolFigures => ({
  tps: tx.tps,
  qps: tx.figures?.find((f) => f.key === 'qps')?.value ?? null,
  client: { usPerTransaction: tx.client.usPerTransaction, coresUsed: tx.client.coresUsed },
});

async function runSysbench(
  cleanup: Cleanup,
  script: Script,
  args: string[],
  wallS: number,
): Promise<SysbenchTurn> {
  const t0 = performance.now();
  // `times` prints the shell's and then its finished children's user and system time.
  const { finished } = startProgram(
    cleanup,
    'bash',
    ['-c', 'sysbench "$@"; rc=$?; times; exit $rc', 'bash', script, ...args, 'run'],
    wallS * 1000 + 120_000,
  );
  const result = await finished;
  const elapsedS = (performance.now() - t0) / 1000;
  if (result.code !== 0)
    throw new Error(`sysbench failed (exit ${result.code ?? result.signal}): ${lastLine(result.stderr)}`);
  const out = result.stdout;
  const transactions = Number(/transactions:\s+(\d+)/.exec(out)?.[1]);
  const tps = Number(/transactions:\s+\d+\s+\(([\d.]+) per sec/.exec(out)?.[1]);
  const queries = Number(/queries:\s+(\d+)/.exec(out)?.[1]);
  const qps = Number(/queries:\s+\d+\s+\(([\d.]+) per sec/.exec(out)?.[1]);
  if (!Number.isFinite(tps) || !(transactions > 0) || !(queries > 0))
    throw new Error(`could not read sysbench's result: ${lastLine(out)}`);
  const times = [...(out.trim().split('\n').at(-1) ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map(
    (m) => Number(m[1]) * 60 + Number(m[2]),
  );
  if (times.length !== 2) throw new Error("could not read sysbench's CPU time");
  const clientS = times[0]! + times[1]!;
  return {
    tool: 'sysbench',
    // The whole process's CPU (connecting and preparing included) over every transaction it ran.
    figures: {
      tps: round(tps),
      qps: Number.isFinite(qps) ? round(qps) : null,
      client: {
        usPerTransaction: round((clientS * 1e6) / transactions, 1),
        coresUsed: round(clientS / elapsedS, 3),
        usPerStatement: round((clientS * 1e6) / queries, 2),
      },
    },
    transactions,
    statements: queries,
    clientCpuS: clientS,
  };
}

const pairing = (d: SysbenchData, script: Script, threads: number): SysbenchPairing | string =>
  d.pairings.find((p) => p.script === script && p.threads === threads) ??
  `${script} at ${threads} threads did not run`;

/** The figure names of earlier bench files: the TPS ratios at the largest thread count. */
const legacyRatio = (script: Script) => (d: SysbenchData) => {
  const p = pairing(d, script, d.threads);
  return typeof p === 'string' ? p : p.tpsRatio;
};

const TPS_RATIO = 0.95;
const CPU_RATIO = 1.5;

/** The targets for each script at each thread count (config's default: 1 and 4). */
export function sysbenchTargets(threadCounts: readonly number[]): TargetDef<SysbenchData>[] {
  const targets: TargetDef<SysbenchData>[] = [
    {
      figure: 'oltp_read_write TPS, txbench ÷ sysbench',
      unit: '',
      op: '>=',
      limit: 0.9,
      value: legacyRatio('oltp_read_write'),
    },
    {
      figure: 'oltp_point_select TPS, txbench ÷ sysbench',
      unit: '',
      op: '>=',
      limit: 0.9,
      value: legacyRatio('oltp_point_select'),
    },
  ];
  for (const threads of threadCounts) {
    for (const script of SYSBENCH_SCRIPTS) {
      const at = `${script}, ${threads} thread${threads === 1 ? '' : 's'}`;
      targets.push(
        {
          figure: `${at}: TPS, txbench ÷ sysbench`,
          unit: '',
          op: '>=',
          limit: TPS_RATIO,
          value: (d) => {
            const p = pairing(d, script, threads);
            return typeof p === 'string' ? p : p.tpsRatio;
          },
        },
        {
          figure: `${at}: client CPU per statement, txbench ÷ sysbench`,
          unit: '',
          op: '<=',
          limit: CPU_RATIO,
          value: (d) => {
            const p = pairing(d, script, threads);
            return typeof p === 'string' ? p : p.clientUsPerStatementRatio;
          },
        },
      );
    }
  }
  return targets;
}

interface Row {
  pairing: string;
  tool: string;
  f: ToolFigures;
}

const spread = (xs: readonly number[]): string =>
  xs.length === 0 ? 'n/a' : `${num(Math.min(...xs))}–${num(Math.max(...xs))}`;

export function sysbenchTable(d: SysbenchData): string {
  const rows: Row[] = d.pairings.flatMap((p) => {
    const name = `${p.script}, ${p.threads} thr.`;
    return [
      ...p.turns.map((t, i) => ({ pairing: name, tool: `${i + 1}. ${t.tool}`, f: t.figures })),
      { pairing: name, tool: 'sysbench 1.0.20, runs together', f: p.sysbench },
      { pairing: name, tool: 'txbench, runs together', f: p.txbench },
    ];
  });
  const columns: Column<Row>[] = [
    { header: 'script, threads', align: 'left', text: (r) => r.pairing },
    { header: 'run', align: 'left', text: (r) => r.tool },
    { header: 'TPS', align: 'right', text: (r) => num(r.f.tps) },
    { header: 'QPS', align: 'right', text: (r) => num(r.f.qps) },
    { header: 'client µs/txn', align: 'right', text: (r) => num(r.f.client.usPerTransaction) },
    { header: 'client µs/stmt', align: 'right', text: (r) => num(r.f.client.usPerStatement) },
    { header: 'client cores', align: 'right', text: (r) => num(r.f.client.coresUsed) },
  ];
  type RatioRow = SysbenchPairing;
  const ratioColumns: Column<RatioRow>[] = [
    { header: 'script, threads', align: 'left', text: (p) => `${p.script}, ${p.threads}` },
    { header: 'TPS ratio', align: 'right', text: (p) => num(p.tpsRatio) },
    { header: 'spread over pairs', align: 'right', text: (p) => spread(p.pairs.map((x) => x.tpsRatio)) },
    { header: 'CPU/stmt ratio', align: 'right', text: (p) => num(p.clientUsPerStatementRatio) },
    {
      header: 'spread over pairs',
      align: 'right',
      text: (p) => spread(p.pairs.map((x) => x.clientUsPerStatementRatio)),
    },
  ];
  return [
    `${d.tables} tables x ${d.tableSize} rows (txbench loaded them in ${d.loadSeconds} s), ${d.seconds} s each run, turns ${SYSBENCH_TURNS.join(', ')} per script and thread count; load average ${d.loadAverage.start.join(' ')} at the start, ${d.loadAverage.end.join(' ')} at the end. Command: \`${d.command}\``,
    '',
    formatTable(columns, rows, 'markdown'),
    '',
    `txbench ÷ sysbench, each tool's runs together (targets: TPS ≥ ${TPS_RATIO}, client CPU per statement ≤ ${CPU_RATIO}), and the same ratio for each neighbouring pair of turns (1 with 2, 3 with 4):`,
    '',
    formatTable(ratioColumns, d.pairings, 'markdown'),
  ].join('\n');
}

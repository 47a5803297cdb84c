/**
 * Section 7, txbench's sysbench OLTP against real sysbench 1.0.20 (C + LuaJIT) on the same
 * PostgreSQL 15 tables (txbench loads them): oltp_read_write and oltp_point_select, the same
 * threads/terminals and no think time, TPS, QPS and each tool's client CPU per transaction side by
 * side. sysbench's CPU comes from the shell's `times` after it exits, as for pgbench (section 2).
 *
 * sysbench drives its threads from as many OS threads; txbench's default drives a few terminals
 * from one event loop, which the targets measure. Beside it, txbench runs again with as many
 * worker threads as sysbench has threads, up to the cores (information, no target), so the
 * table shows how much of the gap is the one thread and how much the cost per query.
 */
import { availableParallelism } from 'node:os';
import { startProgram, lastLine } from './children.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { PgCluster } from './pg-cluster.js';
import { round, runTxbench, type RunFigures } from './txbench-run.js';
import { loadWorkload } from '../workloads/loader.js';
import { findWorkload } from '../workloads/registry.js';

export const SYSBENCH_SCRIPTS = ['oltp_read_write', 'oltp_point_select'] as const;
type Script = (typeof SYSBENCH_SCRIPTS)[number];

export interface ToolFigures {
  tps: number;
  qps: number | null;
  client: { usPerTransaction: number; coresUsed: number };
}

export interface SysbenchData {
  tables: number;
  tableSize: number;
  threads: number;
  /** txbench's worker threads in its second run of each script. */
  workers: number;
  seconds: number;
  loadSeconds: number;
  command: string;
  scripts: { script: Script; sysbench: ToolFigures; txbench: ToolFigures; txbenchWorkers?: ToolFigures }[];
}

export async function sysbenchSection(
  cluster: PgCluster,
  cfg: BenchConfig['sysbench'],
  progress: (line: string) => void,
): Promise<SysbenchData> {
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
    `--threads=${cfg.threads}`,
    // sysbench 1.0.20 has no warm-up option: its figures cover the whole run.
    `--time=${seconds}`,
  ];
  const workers = Math.min(cfg.threads, availableParallelism());
  const scripts: SysbenchData['scripts'] = [];
  for (const script of SYSBENCH_SCRIPTS) {
    progress(`${script}: sysbench`);
    const sb = await runSysbench(script, base, seconds);
    progress(`${script}: txbench`);
    const run = (workers?: number) =>
      runTxbench(
        url,
        {
          workload: 'sysbench',
          workloadOptions: { script },
          procedures: false,
          terminals: cfg.threads,
          connections: cfg.threads,
          warmupMs: cfg.warmupMs,
          durationMs: cfg.durationMs,
          monitor: false,
          ...(workers === undefined ? {} : { workers }),
        },
        cluster.pid,
      ).then(toolFigures);
    const txbench = await run();
    let txbenchWorkers: ToolFigures | undefined;
    if (workers > 1) {
      progress(`${script}: txbench --workers ${workers}`);
      txbenchWorkers = await run(workers);
    }
    scripts.push({ script, sysbench: sb, txbench, ...(txbenchWorkers ? { txbenchWorkers } : {}) });
  }
  return {
    tables: cfg.tables,
    tableSize: cfg.tableSize,
    threads: cfg.threads,
    workers,
    seconds,
    loadSeconds: round(load.seconds, 1),
    command: `sysbench SCRIPT ${base.join(' ')} run`,
    scripts,
  };
}

const toolFigures = (tx: RunFigures): ToolFigures => ({
  tps: tx.tps,
  qps: tx.figures?.find((f) => f.key === 'qps')?.value ?? null,
  client: { usPerTransaction: tx.client.usPerTransaction, coresUsed: tx.client.coresUsed },
});

async function runSysbench(script: Script, base: string[], wallS: number): Promise<ToolFigures> {
  const t0 = performance.now();
  // `times` prints the shell's and then its finished children's user and system time.
  const { finished } = startProgram(
    'bash',
    ['-c', 'sysbench "$@"; rc=$?; times; exit $rc', 'bash', script, ...base, 'run'],
    wallS * 1000 + 120_000,
  );
  const result = await finished;
  const elapsedS = (performance.now() - t0) / 1000;
  if (result.code !== 0)
    throw new Error(`sysbench failed (exit ${result.code ?? result.signal}): ${lastLine(result.stderr)}`);
  const out = result.stdout;
  const transactions = Number(/transactions:\s+(\d+)/.exec(out)?.[1]);
  const tps = Number(/transactions:\s+\d+\s+\(([\d.]+) per sec/.exec(out)?.[1]);
  const qps = Number(/queries:\s+\d+\s+\(([\d.]+) per sec/.exec(out)?.[1]);
  if (!Number.isFinite(tps) || !(transactions > 0))
    throw new Error(`could not read sysbench's result: ${lastLine(out)}`);
  const times = [...(out.trim().split('\n').at(-1) ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map(
    (m) => Number(m[1]) * 60 + Number(m[2]),
  );
  if (times.length !== 2) throw new Error("could not read sysbench's CPU time");
  const clientS = times[0]! + times[1]!;
  return {
    tps: round(tps),
    qps: Number.isFinite(qps) ? round(qps) : null,
    // The whole process's CPU (connecting and preparing included) over every transaction it ran.
    client: {
      usPerTransaction: round((clientS * 1e6) / transactions, 1),
      coresUsed: round(clientS / elapsedS, 3),
    },
  };
}

const ratio = (script: Script) => (d: SysbenchData) => {
  const s = d.scripts.find((x) => x.script === script);
  return s === undefined ? `${script} did not run` : s.txbench.tps / s.sysbench.tps;
};

export const SYSBENCH_TARGETS: readonly TargetDef<SysbenchData>[] = [
  {
    figure: 'oltp_read_write TPS, txbench ÷ sysbench',
    unit: '',
    op: '>=',
    limit: 0.9,
    value: ratio('oltp_read_write'),
  },
  {
    figure: 'oltp_point_select TPS, txbench ÷ sysbench',
    unit: '',
    op: '>=',
    limit: 0.9,
    value: ratio('oltp_point_select'),
  },
];

interface Row {
  script: string;
  tool: string;
  f: ToolFigures;
}

export function sysbenchTable(d: SysbenchData): string {
  const rows: Row[] = d.scripts.flatMap((s) => [
    { script: s.script, tool: `sysbench 1.0.20, ${d.threads} threads`, f: s.sysbench },
    { script: s.script, tool: 'txbench --workload sysbench, 1 thread', f: s.txbench },
    ...(s.txbenchWorkers
      ? [{ script: s.script, tool: `txbench … --workers ${d.workers}`, f: s.txbenchWorkers }]
      : []),
  ]);
  const columns: Column<Row>[] = [
    { header: 'script', align: 'left', text: (r) => r.script },
    { header: 'tool', align: 'left', text: (r) => r.tool },
    { header: 'TPS', align: 'right', text: (r) => num(r.f.tps) },
    { header: 'QPS', align: 'right', text: (r) => num(r.f.qps) },
    { header: 'client µs/txn', align: 'right', text: (r) => num(r.f.client.usPerTransaction) },
    { header: 'client cores', align: 'right', text: (r) => num(r.f.client.coresUsed) },
  ];
  return [
    `${d.tables} tables x ${d.tableSize} rows (txbench loaded them in ${d.loadSeconds} s), ${d.threads} threads, ${d.seconds} s each. Command: \`${d.command}\``,
    '',
    formatTable(columns, rows, 'markdown'),
    ...workerLines(d),
  ].join('\n');
}

/** The TPS ratios of the worker-thread runs, for reading beside the targets (no target). */
function workerLines(d: SysbenchData): string[] {
  const lines = d.scripts.flatMap((s) =>
    s.txbenchWorkers
      ? [
          `${s.script}: txbench --workers ${d.workers} ÷ sysbench ${num(round(s.txbenchWorkers.tps / s.sysbench.tps, 3))}`,
        ]
      : [],
  );
  return lines.length === 0
    ? []
    : ['', `Information (the targets above are the 1-thread runs): ${lines.join('; ')}.`];
}

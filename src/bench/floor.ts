/**
 * Section 10, the floor: sysbench's oltp_point_select on PostgreSQL 15 by sysbench 1.0.20, by a bare
 * Node.js socket loop (floor-child.ts: the least any JavaScript client can do per statement) and by
 * txbench, in turns (sysbench, floor, txbench, txbench, floor, sysbench) at each of section 7's
 * thread counts. Where the floor itself is further from sysbench than a target allows, no Node.js
 * client can meet that target on this machine: this section is the measurement that says so.
 * Information only (no targets of its own).
 */
import { loadavg } from 'node:os';
import { runJsonChild } from './children.js';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column } from './figures.js';
import type { FloorRequest, FloorResult } from './floor-child.js';
import type { PgCluster } from './pg-cluster.js';
import { combineTurns, type SysbenchTurn, type ToolFigures } from './sysbench-figures.js';
import { loadTables, runSysbench, txbenchTurn } from './sysbench.js';
import { round, runTxbench } from './txbench-run.js';

export type FloorTool = 'sysbench' | 'floor' | 'txbench';
export const FLOOR_TURNS: readonly FloorTool[] = [
  'sysbench',
  'floor',
  'txbench',
  'txbench',
  'floor',
  'sysbench',
];

export type FloorTurn = Omit<SysbenchTurn, 'tool'> & { tool: FloorTool };

export interface FloorThreads {
  threads: number;
  turns: FloorTurn[];
  /** Each tool's runs together. */
  tools: Record<FloorTool, ToolFigures>;
}

export interface FloorData {
  tables: number;
  tableSize: number;
  seconds: number;
  loadSeconds: number;
  command: string;
  rows: FloorThreads[];
  loadAverage: { start: number[]; end: number[] };
}

const FLOOR_CHILD = new URL('./floor-child.js', import.meta.url);

export async function floorSection(
  cleanup: Cleanup,
  cluster: PgCluster,
  cfg: BenchConfig['floor'],
  sysbenchCfg: BenchConfig['sysbench'],
  progress: (line: string) => void,
): Promise<FloorData> {
  const start = loadavg().map((x) => round(x, 2));
  const url = await cluster.createDatabase('floor');
  const tables = { ...sysbenchCfg, warmupMs: cfg.warmupMs, durationMs: cfg.durationMs };
  const loadSeconds = await loadTables(url, tables, progress);
  const seconds = Math.max(1, Math.round(cfg.durationMs / 1000));
  const args = [
    '--db-driver=pgsql',
    '--pgsql-host=127.0.0.1',
    `--pgsql-port=${cluster.port}`,
    '--pgsql-user=postgres',
    '--pgsql-db=floor',
    `--tables=${tables.tables}`,
    `--table-size=${tables.tableSize}`,
    `--time=${seconds}`,
  ];
  const rows: FloorThreads[] = [];
  for (const threads of cfg.threadCounts) {
    const turns: FloorTurn[] = [];
    for (const [i, tool] of FLOOR_TURNS.entries()) {
      progress(`${threads} thread${threads === 1 ? '' : 's'}: ${i + 1}/${FLOOR_TURNS.length} ${tool}`);
      if (tool === 'sysbench')
        turns.push(
          await runSysbench(cleanup, 'oltp_point_select', [...args, `--threads=${threads}`], seconds),
        );
      else if (tool === 'floor') turns.push(await floorTurn(cleanup, cluster.port, tables, threads, cfg));
      else
        turns.push(
          txbenchTurn(
            await runTxbench(
              cleanup,
              url,
              {
                workload: 'sysbench',
                workloadOptions: { script: 'oltp_point_select' },
                procedures: false,
                terminals: threads,
                connections: threads,
                warmupMs: cfg.warmupMs,
                durationMs: cfg.durationMs,
                monitor: false,
              },
              cluster.pid,
            ),
          ),
        );
    }
    const of = (tool: FloorTool) => combineTurns(turns.filter((t) => t.tool === tool));
    rows.push({
      threads,
      turns,
      tools: { sysbench: of('sysbench'), floor: of('floor'), txbench: of('txbench') },
    });
  }
  return {
    tables: tables.tables,
    tableSize: tables.tableSize,
    seconds,
    loadSeconds,
    command: `sysbench oltp_point_select ${args.join(' ')} --threads=N run`,
    rows,
    loadAverage: { start, end: loadavg().map((x) => round(x, 2)) },
  };
}

async function floorTurn(
  cleanup: Cleanup,
  port: number,
  tables: { tables: number; tableSize: number },
  threads: number,
  cfg: BenchConfig['floor'],
): Promise<FloorTurn> {
  const request: FloorRequest = {
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'floor',
    tables: tables.tables,
    tableSize: tables.tableSize,
    connections: threads,
    warmupMs: cfg.warmupMs,
    durationMs: cfg.durationMs,
  };
  const r = await runJsonChild<FloorResult>(cleanup, FLOOR_CHILD, request, 'floor loop');
  return floorTurnOf(r);
}

/** The floor child's count and CPU as a turn (one statement per transaction, as point select has). */
export function floorTurnOf(r: FloorResult): FloorTurn {
  const tps = r.statements / r.seconds;
  const us = r.statements > 0 ? (r.cpuS * 1e6) / r.statements : 0;
  return {
    tool: 'floor',
    figures: {
      tps: round(tps),
      qps: round(tps),
      client: {
        usPerTransaction: round(us, 1),
        coresUsed: round(r.cpuS / r.seconds, 3),
        usPerStatement: round(us, 2),
      },
    },
    transactions: r.statements,
    statements: r.statements,
    clientCpuS: r.cpuS,
  };
}

interface Row {
  threads: number;
  tool: string;
  f: ToolFigures;
  of?: ToolFigures;
}

const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || b === 0 ? '' : `${num(round(a / b, 3))}×`;

export function floorTable(d: FloorData): string {
  const name: Record<FloorTool, string> = {
    sysbench: 'sysbench 1.0.20 (C, libpq)',
    floor: 'bare Node.js socket loop (the floor)',
    txbench: 'txbench --workload sysbench',
  };
  const rows: Row[] = d.rows.flatMap((r) => [
    ...r.turns.map((t, i) => ({ threads: r.threads, tool: `${i + 1}. ${t.tool}`, f: t.figures })),
    ...(['sysbench', 'floor', 'txbench'] as const).map((tool) => ({
      threads: r.threads,
      tool: `${name[tool]}, runs together`,
      f: r.tools[tool],
      of: r.tools.sysbench,
    })),
  ]);
  const columns: Column<Row>[] = [
    { header: 'threads', align: 'right', text: (r) => num(r.threads) },
    { header: 'run', align: 'left', text: (r) => r.tool },
    { header: 'TPS', align: 'right', text: (r) => num(r.f.tps) },
    { header: 'client µs/stmt', align: 'right', text: (r) => num(r.f.client.usPerStatement) },
    { header: 'client cores', align: 'right', text: (r) => num(r.f.client.coresUsed) },
    { header: 'TPS ÷ sysbench', align: 'right', text: (r) => ratio(r.f.tps, r.of?.tps) },
    {
      header: 'µs/stmt ÷ sysbench',
      align: 'right',
      text: (r) => ratio(r.f.client.usPerStatement, r.of?.client.usPerStatement),
    },
  ];
  const verdicts = d.rows.map((r) => {
    const tps = r.tools.floor.tps / r.tools.sysbench.tps;
    const cpu =
      (r.tools.floor.client.usPerStatement ?? NaN) / (r.tools.sysbench.client.usPerStatement ?? NaN);
    const out = [
      tps < 0.95 ? `TPS ${num(round(tps, 3))}× (< 0.95)` : '',
      cpu > 1.5 ? `CPU per statement ${num(round(cpu, 3))}× (> 1.5)` : '',
    ].filter(Boolean);
    return out.length === 0
      ? `at ${r.threads} thread${r.threads === 1 ? '' : 's'} the floor is within section 7's targets (TPS ${num(round(tps, 3))}×, CPU per statement ${num(round(cpu, 3))}×)`
      : `at ${r.threads} thread${r.threads === 1 ? '' : 's'} the floor itself misses them: ${out.join(', ')}, so no Node.js client can meet that target on this machine`;
  });
  return [
    `PostgreSQL 15: ${d.tables} tables x ${d.tableSize} rows (txbench loaded them in ${d.loadSeconds} s), ${d.seconds} s each run; load average ${d.loadAverage.start.join(' ')} at the start, ${d.loadAverage.end.join(' ')} at the end. Command: \`${d.command}\``,
    '',
    'The floor: one socket per connection read through `onread`, the statements prepared once, each call one pre-built Bind/Execute/Sync write with only the id changed, the answer read only as far as its ReadyForQuery; no scheduler, no histogram, no promise, no row decoded; like txbench without `--workers`, one thread carries every connection. What it costs, any JavaScript client on one thread costs at least.',
    '',
    formatTable(columns, rows, 'markdown'),
    '',
    `Against section 7's oltp_point_select targets (TPS ≥ 0.95, client CPU per statement ≤ 1.5): ${verdicts.join('; ')}.`,
  ].join('\n');
}

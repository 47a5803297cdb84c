/**
 * Section 10, the floor: section 7's sysbench scripts on PostgreSQL 15 by sysbench 1.0.20, by a
 * bare Node.js socket loop (floor-child.ts: the least any JavaScript client can do per statement)
 * and by txbench, in turns (sysbench, floor, floors, txbench, txbench, floors, floor, sysbench;
 * `floors` the loop in one process per connection, above one thread) at each of its thread counts.
 * Where the floor's CPU per statement is itself further from sysbench's than section 7's target
 * allows, no Node.js client on one thread can meet it on this machine; where the loop's best TPS,
 * in one process or in several, is below the TPS target, the target is out of reach as measured:
 * this section is the measurement that says so.
 * Information only (no targets of its own).
 */
import { loadavg } from 'node:os';
import { runJsonChild } from './children.js';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column } from './figures.js';
import type { FloorRequest, FloorResult } from './floor-types.js';
import type { PgCluster } from './pg-cluster.js';
import { combineTurns, type Script, type SysbenchTurn, type ToolFigures } from './sysbench-figures.js';
import { PLACEMENT_NOTE, placed, placementText, type Placement } from './placement.js';
import { runSysbench, txbenchSysbenchTurn } from './sysbench.js';
import { loadTables, onMariaDb, printable } from './sysbench-tables.js';
import { round } from './txbench-run.js';

/** `floors`: the same loop in one process per connection, as sysbench has one thread per connection. */
export type FloorTool = 'sysbench' | 'floor' | 'floors' | 'txbench';
export const FLOOR_TURNS: readonly FloorTool[] = [
  'sysbench',
  'floor',
  'floors',
  'txbench',
  'txbench',
  'floors',
  'floor',
  'sysbench',
];

/** The turns at a thread count: at one thread the loop in one process is already one per connection. */
export const floorTurnsAt = (threads: number): readonly FloorTool[] =>
  threads > 1 ? FLOOR_TURNS : FLOOR_TURNS.filter((t) => t !== 'floors');

/** `errors`: the loop's error answers, where there were any (its transactions count none of them). */
export type FloorTurn = Omit<SysbenchTurn, 'tool'> & { tool: FloorTool; errors?: number };

export interface FloorThreads {
  script: Script;
  threads: number;
  turns: FloorTurn[];
  /** Each tool's runs together (`floors` only above one thread). */
  tools: Record<Exclude<FloorTool, 'floors'>, ToolFigures> & { floors?: ToolFigures };
  /** Where the turns ran, as in section 7 (placement.ts); absent in earlier bench files. */
  placement?: Placement;
}

/** One database's turns at each thread count. */
export interface FloorDb {
  loadSeconds: number;
  command: string;
  rows: FloorThreads[];
  loadAverage: { start: number[]; end: number[] };
}

export interface FloorData extends FloorDb {
  tables: number;
  tableSize: number;
  seconds: number;
  /** The same turns on MariaDB (sysbench's mysql driver; the floor after mysql2's handshake), or why not. */
  mariadb?: (FloorDb & { version: string }) | { error: string };
}

const FLOOR_CHILD = new URL('./floor-child.js', import.meta.url);

/** Where a database's turns run: txbench's URL, sysbench's options, the floor's request, the server. */
interface FloorTarget {
  url: string;
  sysbench: string[];
  floor: Omit<FloorRequest, 'script' | 'connections' | 'warmupMs' | 'durationMs'>;
  serverPid: number;
}

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
  const common = [`--tables=${tables.tables}`, `--table-size=${tables.tableSize}`, `--time=${seconds}`];
  const pg: FloorTarget = {
    url,
    sysbench: [
      '--db-driver=pgsql',
      '--pgsql-host=127.0.0.1',
      `--pgsql-port=${cluster.port}`,
      '--pgsql-user=postgres',
      '--pgsql-db=floor',
      ...common,
    ],
    floor: floorBase('postgres', '127.0.0.1', cluster.port, 'postgres', tables),
    serverPid: cluster.pid,
  };
  const rows = await runTurns(cleanup, pg, cfg, progress);
  return {
    tables: tables.tables,
    tableSize: tables.tableSize,
    seconds,
    loadSeconds,
    command: commandOf(pg.sysbench),
    rows,
    loadAverage: { start, end: loadavg().map((x) => round(x, 2)) },
    mariadb: await mariadbFloor(cleanup, cfg, tables, common, progress),
  };
}

const floorBase = (
  dialect: FloorRequest['dialect'],
  host: string,
  port: number,
  user: string,
  tables: { tables: number; tableSize: number },
): FloorTarget['floor'] => ({
  dialect,
  host,
  port,
  user,
  database: 'floor',
  tables: tables.tables,
  tableSize: tables.tableSize,
});

const commandOf = (args: readonly string[]): string =>
  `sysbench SCRIPT ${printable(args).join(' ')} --threads=N run`;

/** The same turns on a MariaDB server started for them; its failure is recorded, not thrown. */
function mariadbFloor(
  cleanup: Cleanup,
  cfg: BenchConfig['floor'],
  tables: BenchConfig['sysbench'],
  common: string[],
  progress: (line: string) => void,
): Promise<FloorData['mariadb']> {
  const start = loadavg().map((x) => round(x, 2));
  return onMariaDb(cleanup, 'floor', tables, progress, async (maria) => {
    const u = new URL(maria.url);
    const target: FloorTarget = {
      url: maria.url,
      sysbench: [...maria.connect, ...common],
      floor: {
        ...floorBase('mysql', u.hostname, Number(u.port), decodeURIComponent(u.username), tables),
        url: maria.url,
      },
      serverPid: maria.serverPid,
    };
    const rows = await runTurns(cleanup, target, cfg, (line) => progress(`MariaDB: ${line}`));
    return {
      version: maria.version,
      loadSeconds: maria.loadSeconds,
      command: commandOf(target.sysbench),
      rows,
      loadAverage: { start, end: loadavg().map((x) => round(x, 2)) },
    };
  });
}

async function runTurns(
  cleanup: Cleanup,
  target: FloorTarget,
  cfg: BenchConfig['floor'],
  progress: (line: string) => void,
): Promise<FloorThreads[]> {
  const seconds = Math.max(1, Math.round(cfg.durationMs / 1000));
  const rows: FloorThreads[] = [];
  for (const script of cfg.scripts)
    for (const threads of cfg.threadCounts) {
      // Placed as section 7 places its turns, so that its verdicts compare like with like.
      await placed(cfg.placement, target.serverPid, async (placement) => {
        const cpus = placement.clientCpus;
        const turns: FloorTurn[] = [];
        const order = floorTurnsAt(threads);
        for (const [i, tool] of order.entries()) {
          progress(
            `${script}, ${threads} thread${threads === 1 ? '' : 's'}: ${i + 1}/${order.length} ${tool}`,
          );
          if (tool === 'sysbench')
            turns.push(
              await runSysbench(cleanup, script, [...target.sysbench, `--threads=${threads}`], seconds, cpus),
            );
          else if (tool === 'floor')
            turns.push(floorTurnOf(await runFloor(cleanup, target, cfg, script, threads, cpus)));
          else if (tool === 'floors') {
            const each = await Promise.all(
              Array.from({ length: threads }, () => runFloor(cleanup, target, cfg, script, 1, cpus)),
            );
            turns.push({ ...floorTurnOf(sumOfFloors(each)), tool: 'floors' });
          } else turns.push(await txbenchSysbenchTurn(cleanup, target, script, threads, cfg, placement));
        }
        const of = (tool: FloorTool) => combineTurns(turns.filter((t) => t.tool === tool));
        rows.push({
          script,
          threads,
          turns,
          tools: {
            sysbench: of('sysbench'),
            floor: of('floor'),
            txbench: of('txbench'),
            ...(order.includes('floors') ? { floors: of('floors') } : {}),
          },
          placement,
        });
      });
    }
  return rows;
}

function runFloor(
  cleanup: Cleanup,
  target: FloorTarget,
  cfg: BenchConfig['floor'],
  script: Script,
  connections: number,
  clientCpus?: string,
): Promise<FloorResult> {
  const request: FloorRequest = {
    ...target.floor,
    script,
    connections,
    warmupMs: cfg.warmupMs,
    durationMs: cfg.durationMs,
  };
  return runJsonChild<FloorResult>(cleanup, FLOOR_CHILD, request, 'floor loop', clientCpus);
}

/**
 * Loops run side by side as one: their statements per second added, their CPU over their
 * statements. Each counts its own window; the windows start together and last as long.
 */
export function sumOfFloors(each: readonly FloorResult[]): FloorResult {
  const rate = (count: (r: FloorResult) => number): number =>
    each.reduce((a, r) => a + count(r) / r.seconds, 0);
  const seconds = each.reduce((a, r) => a + r.seconds, 0) / each.length;
  return {
    statements: Math.round(rate((r) => r.statements) * seconds),
    transactions: Math.round(rate((r) => r.transactions) * seconds),
    errors: each.reduce((a, r) => a + r.errors, 0),
    seconds,
    cpuS: each.reduce((a, r) => a + r.cpuS, 0),
  };
}

/** The floor child's counts and CPU as a turn: TPS by transactions, CPU per statement by statements. */
export function floorTurnOf(r: FloorResult): FloorTurn {
  const tps = r.transactions / r.seconds;
  const perStatement = r.statements > 0 ? (r.cpuS * 1e6) / r.statements : 0;
  const perTransaction = r.transactions > 0 ? (r.cpuS * 1e6) / r.transactions : 0;
  return {
    tool: 'floor',
    figures: {
      tps: round(tps),
      qps: round(r.statements / r.seconds),
      client: {
        usPerTransaction: round(perTransaction, 1),
        coresUsed: round(r.cpuS / r.seconds, 3),
        usPerStatement: round(perStatement, 2),
      },
    },
    transactions: r.transactions,
    statements: r.statements,
    clientCpuS: r.cpuS,
    ...(r.errors > 0 ? { errors: r.errors } : {}),
  };
}

interface Row {
  at: string;
  cpus: string;
  tool: string;
  f: ToolFigures;
  of?: ToolFigures;
}

const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || b === 0 ? '' : `${num(round(a / b, 3))}×`;

/** `oltp_read_only, 4 threads`: a row's script and thread count, as the verdicts and the summary name them. */
export const scriptAt = (r: Pick<FloorThreads, 'script' | 'threads'>): string =>
  `${r.script}, ${r.threads} thread${r.threads === 1 ? '' : 's'}`;

/** One database's turns as a table, and what they say of section 7's targets. */
function floorDbTable(db: FloorDb, sysbenchDriver: string): string[] {
  const name: Record<FloorTool, string> = {
    sysbench: `sysbench 1.0.20 (C, ${sysbenchDriver})`,
    floor: 'bare Node.js socket loop (the floor)',
    floors: 'the floor, one process per connection',
    txbench: 'txbench --workload sysbench',
  };
  const rows: Row[] = db.rows.flatMap((r) => {
    const at = `${r.script}, ${r.threads} thr.`;
    const cpus = placementText(r.placement);
    return [
      ...r.turns.map((t, i) => ({ at, cpus, tool: `${i + 1}. ${t.tool}`, f: t.figures })),
      ...(['sysbench', 'floor', 'floors', 'txbench'] as const).flatMap((tool) => {
        const f = r.tools[tool];
        return f === undefined
          ? []
          : [{ at, cpus, tool: `${name[tool]}, runs together`, f, of: r.tools.sysbench }];
      }),
    ];
  });
  const columns: Column<Row>[] = [
    { header: 'script, threads', align: 'left', text: (r) => r.at },
    { header: 'CPUs', align: 'left', text: (r) => r.cpus },
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
  // CPU per statement has a floor: at the same ids and server, a client that does more per
  // statement cannot do it on less CPU (the cheaper of the two loops: `floorCpuRatio`). TPS has only a measurement: in a closed loop it also rides
  // on how the kernel schedules the client beside the server's backends (txbench was seen above
  // the one-process loop), so the best the bare loop made, in one process or one per connection,
  // is what is reported against the TPS target.
  const cpuVerdicts = db.rows.map((r) => {
    const cpu = floorCpuRatio(r);
    const at = `at ${scriptAt(r)}`;
    return cpu > 1.5
      ? `${at} the floor's CPU per statement is ${num(round(cpu, 3))}× sysbench's (> 1.5), so no Node.js client can meet that target on this machine`
      : `${at} the floor's CPU per statement is ${num(round(cpu, 3))}× sysbench's (≤ 1.5: within a Node.js client's reach)`;
  });
  const errors = db.rows.flatMap((r) =>
    r.turns.flatMap((t, i) =>
      t.errors === undefined ? [] : [`${scriptAt(r)}, turn ${i + 1}: ${num(t.errors)}`],
    ),
  );
  return [
    formatTable(columns, rows, 'markdown'),
    '',
    `Against section 7's targets of client CPU per statement ≤ 1.5× sysbench's: ${cpuVerdicts.join('; ')}.`,
    '',
    `Against its targets of TPS ≥ 0.95× sysbench's: ${db.rows.map((r) => tpsVerdict(r).text).join('; ')}.`,
    ...(errors.length === 0
      ? []
      : [
          '',
          `The loop's error answers (a duplicate key or a deadlock where two connections' writes met; sysbench ignores them too, and the loop's transactions count none of them): ${errors.join('; ')}.`,
        ]),
  ];
}

/**
 * The floor's client CPU per statement ÷ sysbench's: the cheaper of the loop in one process and in
 * one per connection. Above one thread txbench runs a worker thread per core (section 7), so the
 * one-thread loop alone no longer bounds it (at 4 threads, point select, txbench was seen below it).
 */
export function floorCpuRatio(r: FloorThreads): number {
  const one = r.tools.floor.client.usPerStatement ?? NaN;
  const each = r.tools.floors?.client.usPerStatement ?? Infinity;
  return Math.min(one, each) / (r.tools.sysbench.client.usPerStatement ?? NaN);
}

/** What the bare loop's best TPS says of the TPS target at one thread count. */
export function tpsVerdict(r: FloorThreads): { outOfReach: boolean; best: number; text: string } {
  const sb = r.tools.sysbench.tps;
  const one = r.tools.floor.tps / sb;
  const each = r.tools.floors === undefined ? undefined : r.tools.floors.tps / sb;
  const best = Math.max(one, each ?? 0);
  const made =
    each === undefined
      ? `${num(round(one, 3))}×`
      : `${num(round(one, 3))}× in one process and ${num(round(each, 3))}× in one per connection`;
  const at = `at ${scriptAt(r)} the bare loop made ${made}`;
  return best < 0.95
    ? {
        outOfReach: true,
        best,
        text: `${at} (< 0.95), so on this machine a Node.js client doing nothing but the protocol falls short of that target: out of reach as measured`,
      }
    : { outOfReach: false, best, text: `${at} (≥ 0.95: within a Node.js client's reach)` };
}

export function floorTable(d: FloorData): string {
  const load = (l: FloorDb['loadAverage']) =>
    `load average ${l.start.join(' ')} at the start, ${l.end.join(' ')} at the end`;
  const m = d.mariadb;
  return [
    `PostgreSQL 15: ${d.tables} tables x ${d.tableSize} rows (txbench loaded them in ${d.loadSeconds} s), ${d.seconds} s each run; ${load(d.loadAverage)}. Command: \`${d.command}\``,
    '',
    "The floor: one socket per connection, each of the script's statements prepared once per table, each call one pre-built write with only its ints changed (PostgreSQL: Bind/Execute/Sync, read through `onread` as far as its ReadyForQuery; MariaDB: the COM_STMT_EXECUTE bytes mysql2 wrote for its first call, its ids retyped as integers, read as far as the answer's last packet; BEGIN and COMMIT as COM_QUERY); txbench's steps for the script in its order, one round trip each, ids drawn as sysbench's default `special`, c and pad fixed strings; no scheduler, no histogram, no promise, no row decoded; one thread carries every connection. What it costs, any JavaScript client on one thread costs at least. Above one thread the same loop also runs in one process per connection, as sysbench runs one thread per connection (txbench runs a worker thread per core there, as in section 7): the most TPS a Node.js client got here.",
    '',
    PLACEMENT_NOTE,
    '',
    ...floorDbTable(d, 'libpq'),
    ...(m === undefined
      ? []
      : 'error' in m
        ? ['', `MariaDB: not measured: ${m.error}`]
        : [
            '',
            `MariaDB ${m.version}, the same tables (txbench loaded them in ${m.loadSeconds} s) and turns; ${load(m.loadAverage)}. Command: \`${m.command}\``,
            '',
            ...floorDbTable(m, 'libmysqlclient'),
          ]),
  ].join('\n');
}

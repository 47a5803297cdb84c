/**
 * Section 7's figures: each tool's runs of a pairing together, the ratios and their spread over the
 * pairs of turns, the targets (PostgreSQL's under the names of earlier bench files, MariaDB's as
 * "MariaDB: …") and the tables. Pure: sysbench.ts runs the tools.
 */
import { PLACEMENT_NOTE, placementText, type Placement } from './placement.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import { round } from './txbench-run.js';

export const SYSBENCH_SCRIPTS = ['oltp_point_select', 'oltp_read_only', 'oltp_read_write'] as const;
export type Script = (typeof SYSBENCH_SCRIPTS)[number];

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
  /**
   * Where the turns ran (placement.ts): server and client on CPUs of their own at one thread since
   * 2026-12-05 14:00 UTC and at every thread count since 16:00; absent in earlier bench files.
   */
  placement?: Placement;
}

export interface SysbenchData {
  tables: number;
  tableSize: number;
  /** The largest thread count (the pairings at it are also given as `scripts`). */
  threads: number;
  threadCounts: number[];
  /**
   * The worker threads txbench ran with at `threads` (`sysbenchWorkers`: one per client CPU, at
   * most one per terminal; 1 at every thread count in bench files before 2026-12-05 10:00 UTC).
   */
  workers: number;
  seconds: number;
  loadSeconds: number;
  command: string;
  /** The pairings at `threads`, each tool's runs together (the figure names of earlier files). */
  scripts: { script: Script; sysbench: ToolFigures; txbench: ToolFigures; txbenchWorkers?: ToolFigures }[];
  pairings: SysbenchPairing[];
  /** `uptime`'s load averages when the section started and ended. */
  loadAverage: { start: number[]; end: number[] };
  /** The same pairings on MariaDB, or why they did not run (absent in earlier bench files). */
  mariadb?: MariaDbSysbench | { error: string };
}

/** Section 7 on MariaDB: sysbench's mysql driver against txbench through mysql2. */
export interface MariaDbSysbench {
  version: string;
  loadSeconds: number;
  command: string;
  pairings: SysbenchPairing[];
  loadAverage: { start: number[]; end: number[] };
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** Several runs of one tool as one: TPS and cores their mean, CPU per transaction and statement over all. */
export function combineTurns(turns: readonly Omit<SysbenchTurn, 'tool'>[]): ToolFigures {
  if (turns.length === 0) throw new Error('no run to combine');
  const mean = (f: (t: Omit<SysbenchTurn, 'tool'>) => number): number => sum(turns.map(f)) / turns.length;
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

/** A pairing among a database's, or why it has none. */
const pairingIn = (
  pairings: readonly SysbenchPairing[],
  script: Script,
  threads: number,
): SysbenchPairing | string =>
  pairings.find((p) => p.script === script && p.threads === threads) ??
  `${script} at ${threads} threads did not run`;

const pairing = (d: SysbenchData, script: Script, threads: number): SysbenchPairing | string =>
  pairingIn(d.pairings, script, threads);

/** MariaDB's pairings, or why there are none. */
const mariadbPairingsOf = (d: SysbenchData): readonly SysbenchPairing[] | string =>
  d.mariadb === undefined
    ? 'MariaDB was not measured'
    : 'error' in d.mariadb
      ? d.mariadb.error
      : d.mariadb.pairings;

/** The figure names of earlier bench files: the TPS ratios at the largest thread count. */
const legacyRatio = (script: Script) => (d: SysbenchData) => {
  const p = pairing(d, script, d.threads);
  return typeof p === 'string' ? p : p.tpsRatio;
};

const TPS_RATIO = 0.95;
const CPU_RATIO = 1.5;

/** The TPS and CPU targets of every script at every thread count, on one database's pairings. */
function pairingTargets(
  threadCounts: readonly number[],
  prefix: string,
  pairingsOf: (d: SysbenchData) => readonly SysbenchPairing[] | string,
): TargetDef<SysbenchData>[] {
  const targets: TargetDef<SysbenchData>[] = [];
  for (const threads of threadCounts) {
    for (const script of SYSBENCH_SCRIPTS) {
      const at = `${prefix}${script}, ${threads} thread${threads === 1 ? '' : 's'}`;
      const find = (d: SysbenchData): SysbenchPairing | string => {
        const ps = pairingsOf(d);
        return typeof ps === 'string' ? ps : pairingIn(ps, script, threads);
      };
      targets.push(
        {
          figure: `${at}: TPS, txbench ÷ sysbench`,
          unit: '',
          op: '>=',
          limit: TPS_RATIO,
          value: (d) => {
            const p = find(d);
            return typeof p === 'string' ? p : p.tpsRatio;
          },
        },
        {
          figure: `${at}: client CPU per statement, txbench ÷ sysbench`,
          unit: '',
          op: '<=',
          limit: CPU_RATIO,
          value: (d) => {
            const p = find(d);
            return typeof p === 'string' ? p : p.clientUsPerStatementRatio;
          },
        },
      );
    }
  }
  return targets;
}

/**
 * The targets for each script at each thread count (config's default: 1 and 4), on
 * PostgreSQL (the figure names of earlier files) and then on MariaDB (named "MariaDB: …").
 */
export function sysbenchTargets(threadCounts: readonly number[]): TargetDef<SysbenchData>[] {
  return [
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
    ...pairingTargets(threadCounts, '', (d) => d.pairings),
    ...pairingTargets(threadCounts, 'MariaDB: ', mariadbPairingsOf),
  ];
}

interface Row {
  pairing: string;
  tool: string;
  f: ToolFigures;
}

const spread = (xs: readonly number[]): string =>
  xs.length === 0 ? 'n/a' : `${num(Math.min(...xs))}–${num(Math.max(...xs))}`;

/** One database's runs and ratios, as two tables. */
function pairingTables(pairings: readonly SysbenchPairing[]): string[] {
  const rows: Row[] = pairings.flatMap((p) => {
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
    { header: 'CPUs', align: 'left', text: (p) => placementText(p.placement) },
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
    formatTable(columns, rows, 'markdown'),
    '',
    `txbench ÷ sysbench, each tool's runs together (targets: TPS ≥ ${TPS_RATIO}, client CPU per statement ≤ ${CPU_RATIO}), and the same ratio for each neighbouring pair of turns (1 with 2, 3 with 4):`,
    '',
    formatTable(ratioColumns, pairings, 'markdown'),
  ];
}

function mariadbPart(m: SysbenchData['mariadb']): string[] {
  if (m === undefined) return [];
  if ('error' in m) return ['', `MariaDB: not measured: ${m.error}`];
  return [
    '',
    `MariaDB ${m.version}, the same tables (txbench loaded them in ${m.loadSeconds} s) and turns; sysbench's mysql driver, txbench through mysql2; load average ${m.loadAverage.start.join(' ')} at the start, ${m.loadAverage.end.join(' ')} at the end. Command: \`${m.command}\``,
    '',
    ...pairingTables(m.pairings),
  ];
}

export function sysbenchTable(d: SysbenchData): string {
  return [
    `PostgreSQL: ${d.tables} tables x ${d.tableSize} rows (txbench loaded them in ${d.loadSeconds} s), ${d.seconds} s each run, turns ${SYSBENCH_TURNS.join(', ')} per script and thread count; txbench drives as many terminals and connections as sysbench has threads, with a worker thread per client CPU, at most one per terminal (--workers ${d.workers} at ${d.threads} threads), as sysbench runs a thread per connection; load average ${d.loadAverage.start.join(' ')} at the start, ${d.loadAverage.end.join(' ')} at the end. Command: \`${d.command}\``,
    '',
    PLACEMENT_NOTE,
    '',
    ...pairingTables(d.pairings),
    ...mariadbPart(d.mariadb),
  ].join('\n');
}

/**
 * Section 8, worker threads: the client alone (the stand-in executor, no database) at 1 worker
 * (the single-thread path, no worker threads) and at 2 (the run path's coordinator over two
 * worker threads), unpaced, for the throughput ratio and txbench's CPU per transaction at each;
 * and the scheduler's lateness with 100,000 paced terminals over 2 workers. Each scenario in a
 * child process of its own, so its CPU is its own (every thread of it counted).
 */
import { runJsonChild } from './children.js';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { WorkersChildResult, WorkersRequest } from './workers-child.js';

export interface WorkersScenario {
  request: WorkersRequest;
  windowS: number;
  transactions: number;
  tps: number;
  /** txbench's CPU (every thread of the process) per transaction, µs, and cores used. */
  cpuUsPerTransaction: number;
  coresUsed: number;
  latenessMs: { p50: number; p99: number; max: number };
}

export type WorkersData = Record<string, WorkersScenario | { error: string }>;

const CHILD = new URL('./workers-child.js', import.meta.url);

/** The scenarios by key: unpaced at 1 and 2 workers, and 100,000 paced terminals over 2. */
function requests(cfg: BenchConfig['workers']): Record<string, WorkersRequest> {
  const unpaced = {
    terminals: cfg.unpacedTerminals,
    connections: cfg.unpacedTerminals,
    thinkScale: 0,
    serviceMs: cfg.serviceMs,
    cpuUs: cfg.cpuUs,
    warmupMs: cfg.warmupMs,
    rampMs: 0,
    durationMs: cfg.durationMs,
  };
  return {
    unpaced1: { ...unpaced, workers: 1 },
    unpaced2: { ...unpaced, workers: 2 },
    paced100k: {
      workers: 2,
      terminals: 100_000,
      connections: 2000,
      thinkScale: 0.25,
      serviceMs: 2,
      cpuUs: 0,
      rampMs: cfg.pacedRampMs,
      warmupMs: cfg.pacedWarmupMs,
      durationMs: cfg.durationMs,
    },
  };
}

export async function workersSection(
  cleanup: Cleanup,
  cfg: BenchConfig['workers'],
  progress: (line: string) => void,
): Promise<WorkersData> {
  const data: WorkersData = {};
  for (const [key, request] of Object.entries(requests(cfg))) {
    progress(
      `${request.terminals.toLocaleString('en-US')} terminals over ${request.workers} worker(s), think-scale ${request.thinkScale}`,
    );
    try {
      data[key] = await scenario(cleanup, request);
    } catch (err) {
      data[key] = { error: err instanceof Error ? err.message : String(err) };
    }
  }
  return data;
}

async function scenario(cleanup: Cleanup, request: WorkersRequest): Promise<WorkersScenario> {
  const r = await runJsonChild<WorkersChildResult>(cleanup, CHILD, request, 'workers child');
  if (r.status !== 'completed') throw new Error(`the run was ${r.status}`);
  if (r.transactions === 0) throw new Error('no transaction completed in the window');
  const cpuS = r.cpu.userS + r.cpu.systemS;
  return {
    request,
    windowS: r.windowS,
    transactions: r.transactions,
    tps: r.transactions / r.windowS,
    cpuUsPerTransaction: (cpuS * 1e6) / r.transactions,
    coresUsed: cpuS / r.windowS,
    latenessMs: { p50: r.latenessUs.p50 / 1000, p99: r.latenessUs.p99 / 1000, max: r.latenessUs.max / 1000 },
  };
}

const isScenario = (s: WorkersScenario | { error: string } | undefined): s is WorkersScenario =>
  s !== undefined && !('error' in s);

function figure(d: WorkersData, key: string, f: (s: WorkersScenario) => number): number | string {
  const s = d[key];
  if (s === undefined) return `scenario ${key} was not run`;
  return isScenario(s) ? f(s) : s.error;
}

export const WORKERS_TARGETS: readonly TargetDef<WorkersData>[] = [
  {
    figure: 'client alone (stand-in executor), unpaced: TPS at 2 workers ÷ at 1',
    unit: '×',
    op: '>=',
    limit: 1.8,
    value: (d) => {
      const one = d.unpaced1;
      if (!isScenario(one)) return one?.error ?? 'the 1-worker scenario was not run';
      return figure(d, 'unpaced2', (s) => s.tps / one.tps);
    },
  },
  {
    figure: '100,000 terminals over 2 workers (think-scale 0.25): p99 lateness',
    unit: 'ms',
    op: '<',
    limit: 5,
    value: (d) => figure(d, 'paced100k', (s) => s.latenessMs.p99),
  },
];

type Row = { key: string; s: WorkersScenario | { error: string } };

export function workersTable(d: WorkersData): string {
  const f = (g: (s: WorkersScenario) => string) => (row: Row) => (isScenario(row.s) ? g(row.s) : '');
  const columns: Column<Row>[] = [
    {
      header: 'scenario',
      align: 'left',
      text: (row) => (isScenario(row.s) ? row.key : `${row.key} (failed: ${row.s.error})`),
    },
    { header: 'workers', align: 'right', text: f((s) => String(s.request.workers)) },
    { header: 'terminals', align: 'right', text: f((s) => s.request.terminals.toLocaleString('en-US')) },
    { header: 'think-scale', align: 'right', text: f((s) => String(s.request.thinkScale)) },
    { header: 'TPS (stand-in)', align: 'right', text: f((s) => num(s.tps)) },
    { header: 'txbench cores', align: 'right', text: f((s) => num(s.coresUsed)) },
    { header: 'µs CPU/txn', align: 'right', text: f((s) => num(s.cpuUsPerTransaction)) },
    {
      header: 'lateness p50/p99/max ms',
      align: 'right',
      text: f((s) => `${num(s.latenessMs.p50)} / ${num(s.latenessMs.p99)} / ${num(s.latenessMs.max)}`),
    },
  ];
  const rows = Object.entries(d).map(([key, s]) => ({ key, s }));
  const unpaced = Object.values(d).find(
    (s): s is WorkersScenario => isScenario(s) && s.request.thinkScale === 0,
  );
  const note =
    `Stand-in executor (no database, no driver): unpaced, each transaction spends ${unpaced?.request.cpuUs ?? '?'} µs ` +
    `of CPU, as a driver's encoding and decoding would (real drivers cost more), and completes ${unpaced?.request.serviceMs ?? '?'} ms later; ` +
    'paced, 2 ms later and no CPU of its own. These figures are the client alone, not a database benchmark. ' +
    'CPU is the whole process, every thread. On a machine shared with other work they are indicative only.';
  return [note, '', formatTable(columns, rows, 'markdown')].join('\n');
}

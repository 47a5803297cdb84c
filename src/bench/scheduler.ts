/**
 * Section 3, the scheduler alone: each scenario (30,000 and 100,000 terminals at think-scale 0.25)
 * in a child process of its own, against the closed-loop law X = N / (Z + R): Z is the mean keying
 * plus truncated think time of the mix the window actually executed, R the measured mean response.
 */
import { runJsonChild } from './children.js';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, signedPct, type Column, type TargetDef } from './figures.js';
import type { SchedulerChildResult, SchedulerRequest } from './scheduler-child.js';
import { truncatedThinkMeanMs } from '../engine/pacing.js';
import { TPCC_TRANSACTIONS } from '../workloads/tpcc/profile.js';
import { BYTES_PER_MIB } from '../util/units.js';

export interface ScenarioFigures {
  terminals: number;
  request: SchedulerRequest;
  windowS: number;
  transactions: number;
  tps: number;
  /** Mean keying + think per transaction of the executed mix, and mean response, ms. */
  zMs: number;
  rMs: number;
  lawTps: number;
  /** tps ÷ lawTps − 1. */
  deviation: number;
  latenessMs: { p50: number; p99: number; max: number };
  rssPeakMB: number;
  vmHwmMB: number | null;
  rssAfterSetupMB: number;
  coresUsed: number;
  cpuUsPerTransaction: number;
  maxInFlight: number;
  errors: number;
  /** Run-queue wait of the event-loop thread per second of window (ms/s): CPU taken by others. */
  runQueueWaitMsPerS: number | null;
  eventLoopDelayMs: { p99: number; max: number };
}

export type SchedulerData = Record<string, ScenarioFigures | { error: string }>;

const CHILD = new URL('./scheduler-child.js', import.meta.url);

export async function schedulerSection(
  cleanup: Cleanup,
  cfg: BenchConfig['scheduler'],
  progress: (line: string) => void,
): Promise<SchedulerData> {
  const data: SchedulerData = {};
  for (const terminals of cfg.terminals) {
    const request: SchedulerRequest = {
      terminals,
      thinkScale: cfg.thinkScale,
      serviceMs: cfg.serviceMs,
      connections: cfg.connections,
      warmupMs: cfg.warmupMs,
      rampMs: cfg.rampMs,
      durationMs: cfg.durationMs,
    };
    progress(`${terminals.toLocaleString('en-US')} terminals, ${(cfg.warmupMs + cfg.durationMs) / 1000} s`);
    try {
      data[String(terminals)] = await scenario(cleanup, request);
    } catch (err) {
      data[String(terminals)] = { error: err instanceof Error ? err.message : String(err) };
    }
  }
  return data;
}

async function scenario(cleanup: Cleanup, request: SchedulerRequest): Promise<ScenarioFigures> {
  const r = await runJsonChild<SchedulerChildResult>(cleanup, CHILD, request, 'scheduler child');
  if (r.status !== 'completed') throw new Error(`the scheduler run was ${r.status}`);
  const transactions = r.counts.reduce((a, b) => a + b, 0);
  if (transactions === 0) throw new Error('no transaction completed in the window');
  let z = 0;
  let rUs = 0;
  r.counts.forEach((count, i) => {
    const spec = TPCC_TRANSACTIONS[i]!;
    const keying = spec.keyingS * 1000 * request.thinkScale;
    const think = truncatedThinkMeanMs(spec.thinkMeanS * 1000 * request.thinkScale);
    z += count * (keying + think);
    rUs += count * (r.meanResponseUs[i] ?? 0);
  });
  const zMs = z / transactions;
  const rMs = rUs / transactions / 1000;
  const tps = transactions / r.windowS;
  const lawTps = request.terminals / ((zMs + rMs) / 1000);
  const cpuS = r.cpu.userS + r.cpu.systemS;
  return {
    terminals: request.terminals,
    request,
    windowS: r.windowS,
    transactions,
    tps,
    zMs,
    rMs,
    lawTps,
    deviation: tps / lawTps - 1,
    latenessMs: { p50: r.latenessUs.p50 / 1000, p99: r.latenessUs.p99 / 1000, max: r.latenessUs.max / 1000 },
    rssPeakMB: r.rssPeakBytes / BYTES_PER_MIB,
    vmHwmMB: r.vmHwmBytes === null ? null : r.vmHwmBytes / BYTES_PER_MIB,
    rssAfterSetupMB: r.rssAfterSetupBytes / BYTES_PER_MIB,
    coresUsed: cpuS / r.windowS,
    cpuUsPerTransaction: (cpuS * 1e6) / transactions,
    maxInFlight: r.maxInFlight,
    errors: r.errors,
    runQueueWaitMsPerS: r.runQueueWaitMs === null ? null : r.runQueueWaitMs / r.windowS,
    eventLoopDelayMs: r.eventLoopDelayMs,
  };
}

function isScenario(s: ScenarioFigures | { error: string } | undefined): s is ScenarioFigures {
  return s !== undefined && !('error' in s);
}

/** A scenario's figure, or why there is none. */
function figure(d: SchedulerData, terminals: number, f: (s: ScenarioFigures) => number): number | string {
  const s = d[String(terminals)];
  if (s === undefined) return `no ${terminals.toLocaleString('en-US')}-terminal scenario was run`;
  return isScenario(s) ? f(s) : s.error;
}

const scenarioTargets = (terminals: number, latenessMs: number): TargetDef<SchedulerData>[] => {
  const n = terminals.toLocaleString('en-US');
  return [
    {
      figure: `${n} terminals: |TPS ÷ law − 1|`,
      unit: '%',
      op: '<=',
      limit: 1,
      value: (d) => figure(d, terminals, (s) => Math.abs(s.deviation) * 100),
    },
    {
      figure: `${n} terminals: p99 lateness`,
      unit: 'ms',
      op: '<',
      limit: latenessMs,
      value: (d) => figure(d, terminals, (s) => s.latenessMs.p99),
    },
  ];
};

export const SCHEDULER_TARGETS: readonly TargetDef<SchedulerData>[] = [
  ...scenarioTargets(30_000, 5),
  ...scenarioTargets(100_000, 10),
  {
    figure: '100,000 terminals: peak RSS',
    unit: 'MB',
    op: '<',
    limit: 400,
    value: (d) => figure(d, 100_000, (s) => s.rssPeakMB),
  },
];

type Row = { terminals: string; s: ScenarioFigures | { error: string } };

export function schedulerTable(d: SchedulerData): string {
  const f = (g: (s: ScenarioFigures) => string) => (row: Row) => (isScenario(row.s) ? g(row.s) : '');
  const columns: Column<Row>[] = [
    {
      header: 'terminals',
      align: 'right',
      text: (row) => (isScenario(row.s) ? row.terminals : `${row.terminals} (failed: ${row.s.error})`),
    },
    { header: 'TPS', align: 'right', text: f((s) => num(s.tps)) },
    { header: 'law N/(Z+R)', align: 'right', text: f((s) => num(s.lawTps)) },
    { header: 'deviation', align: 'right', text: f((s) => signedPct(s.deviation)) },
    { header: 'Z ms', align: 'right', text: f((s) => num(s.zMs)) },
    { header: 'R ms', align: 'right', text: f((s) => num(s.rMs)) },
    {
      header: 'lateness p50/p99/max ms',
      align: 'right',
      text: f((s) => `${num(s.latenessMs.p50)} / ${num(s.latenessMs.p99)} / ${num(s.latenessMs.max)}`),
    },
    { header: 'peak RSS MB', align: 'right', text: f((s) => num(s.rssPeakMB)) },
    { header: 'cores', align: 'right', text: f((s) => num(s.coresUsed)) },
    { header: 'µs CPU/txn', align: 'right', text: f((s) => num(s.cpuUsPerTransaction)) },
    { header: 'max in flight', align: 'right', text: f((s) => num(s.maxInFlight)) },
    { header: 'run-queue wait ms/s', align: 'right', text: f((s) => num(s.runQueueWaitMsPerS)) },
  ];
  const rows = Object.entries(d).map(([k, s]) => ({ terminals: Number(k).toLocaleString('en-US'), s }));
  const any = Object.values(d).find(isScenario);
  const note = any
    ? `Stand-in executor: ${any.request.serviceMs} ms service time, ${any.request.connections} slots; think-scale ${any.request.thinkScale}; starts spread over ${any.request.rampMs / 1000} s, warm-up ${any.request.warmupMs / 1000} s, window ${any.request.durationMs / 1000} s.`
    : '';
  return [note, '', formatTable(columns, rows, 'markdown')].join('\n');
}

/**
 * One txbench run in a child process (run-child.ts), with the server's CPU over exactly the
 * measured window when the server's postmaster pid is known.
 */
import { startNode, lastLine } from './children.js';
import type { Cleanup } from './cleanup.js';
import { hostBusyS } from './host-cpu.js';
import { forkOnClientCpus } from './placement.js';
import { clusterCpuS } from './proc-stat.js';
import type { FromRunChild, RunChildRequest } from './run-child.js';
import type { HeadlineFigure, OptionValues } from '../workloads/workload.js';

export interface RunSpec {
  /** The workload (default tpcc, with `warehouses` and `procedures` as its options). */
  workload?: string;
  workloadOptions?: OptionValues;
  procedures: boolean;
  terminals: number;
  connections: number;
  warehouses?: number;
  warmupMs: number;
  durationMs: number;
  /** Worker threads driving the terminals (--workers); txbench's default when absent. */
  workers?: number;
  /** Watch the disks, host and database while running (txbench's default); off for --no-monitor. */
  monitor?: boolean;
  /** Extra environment for the run's process (TXBENCH_PG_DRIVER=postgres.js for the old driver path). */
  env?: Readonly<Record<string, string>>;
  /** The CPUs the run's process is pinned to (taskset's list; placement.ts), or none. */
  clientCpus?: string;
}

/** The part of txbench's run report the bench reads. */
interface ReportSummary {
  status: string;
  failure?: string;
  summary: {
    windowSeconds: number;
    transactions: number;
    tps: number;
    tpmC: number;
    nopm: number | null;
    errors: number;
    retries: number;
    responseMs: { avg: number; p90: number; p99: number };
    clientCpu: { userS: number; systemS: number; coresUsed: number; usPerTransaction: number };
    figures?: HeadlineFigure[];
  };
}

export interface RunFigures {
  mode: 'client-sql' | 'procedures';
  terminals: number;
  connections: number;
  windowS: number;
  transactions: number;
  tps: number;
  tpmC: number;
  nopm: number | null;
  errors: number;
  retries: number;
  responseMs: { avg: number; p90: number; p99: number };
  /** The txbench process's user + system CPU over the window (its own report). */
  client: { userS: number; systemS: number; coresUsed: number; usPerTransaction: number };
  /** All processes of the PostgreSQL cluster over the same window. */
  server: { cpuS: number; coresUsed: number; usPerTransaction: number } | null;
  /** Busy CPU of everything else on the machine over the window, in cores (null without a server pid). */
  otherCores: number | null;
  /** The workload's headline figures (sysbench: QPS, reads, writes, other). */
  figures?: HeadlineFigure[] | undefined;
}

const RUN_CHILD = new URL('./run-child.js', import.meta.url);

export async function runTxbench(
  cleanup: Cleanup,
  url: string,
  spec: RunSpec,
  postmasterPid?: number,
): Promise<RunFigures> {
  const request: RunChildRequest = {
    url,
    workload: spec.workload ?? 'tpcc',
    workloadOptions: spec.workloadOptions ?? { warehouses: spec.warehouses, procedures: spec.procedures },
    options: {
      terminals: spec.terminals,
      connections: spec.connections,
      thinkScale: 0,
      warmupMs: spec.warmupMs,
      durationMs: spec.durationMs,
      rampMs: 0,
      intervalMs: 10_000,
      monitor: spec.monitor ?? true,
      ...(spec.workers === undefined ? {} : { workers: spec.workers }),
    },
  };
  const { child, finished } = startNode(cleanup, RUN_CHILD, [], spec.warmupMs + spec.durationMs + 180_000, {
    env: { ...process.env, ...spec.env, BENCH_RUN_REQUEST: JSON.stringify(request) },
    ...forkOnClientCpus(spec.clientCpus, process.execArgv),
  });
  type Sample = { cpuS: number; hostS: number; at: number };
  let serverStart: Sample | undefined;
  let serverEnd: Sample | undefined;
  let report: ReportSummary | undefined;
  let error: string | undefined;
  const sample = (): Sample | undefined =>
    postmasterPid === undefined
      ? undefined
      : { cpuS: clusterCpuS(postmasterPid), hostS: hostBusyS(), at: performance.now() };
  child.on('message', (message: FromRunChild) => {
    if (message.type === 'phase' && message.phase === 'measure') serverStart = sample();
    else if (message.type === 'phase' && message.phase === 'drain') serverEnd = sample();
    else if (message.type === 'report') report = message.report as ReportSummary;
    else if (message.type === 'error') error = message.message;
  });
  const result = await finished;
  if (error !== undefined) throw new Error(error);
  if (report === undefined) {
    throw new Error(
      `the txbench run ended without a report (exit ${result.code ?? result.signal}): ${lastLine(result.stderr)}`,
    );
  }
  if (report.status !== 'completed') throw new Error(`the run was ${report.status}: ${report.failure ?? ''}`);
  const s = report.summary;
  const server =
    serverStart !== undefined && serverEnd !== undefined
      ? {
          cpuS: round(serverEnd.cpuS - serverStart.cpuS, 3),
          coresUsed: round((serverEnd.cpuS - serverStart.cpuS) / ((serverEnd.at - serverStart.at) / 1000), 3),
          usPerTransaction:
            s.transactions > 0 ? round(((serverEnd.cpuS - serverStart.cpuS) * 1e6) / s.transactions, 1) : 0,
        }
      : null;
  const otherCores =
    serverStart !== undefined && serverEnd !== undefined
      ? round(
          Math.max(
            0,
            serverEnd.hostS -
              serverStart.hostS -
              (serverEnd.cpuS - serverStart.cpuS) -
              (s.clientCpu.userS + s.clientCpu.systemS),
          ) /
            ((serverEnd.at - serverStart.at) / 1000),
          3,
        )
      : null;
  return {
    mode: spec.procedures ? 'procedures' : 'client-sql',
    terminals: spec.terminals,
    connections: spec.connections,
    windowS: s.windowSeconds,
    transactions: s.transactions,
    tps: s.tps,
    tpmC: s.tpmC,
    nopm: s.nopm,
    errors: s.errors,
    retries: s.retries,
    responseMs: { avg: s.responseMs.avg, p90: s.responseMs.p90, p99: s.responseMs.p99 },
    client: s.clientCpu,
    server,
    otherCores,
    figures: s.figures,
  };
}

export const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;

/**
 * Child process entry for section 8: the client alone over 1 or more worker threads, each driving
 * the bench's stand-in executor. With 1 worker, the run path's single-thread engine (no worker
 * threads at all); with more, the run path's coordinator (threaded-engine.ts) over stand-in
 * workers. Prints one JSON line (WorkersChildResult) on stdout.
 */
import { Engine } from '../engine/engine.js';
import type { EngineResult } from '../engine/engine-result.js';
import type { Counters } from '../engine/types.js';
import { RunWorkers } from '../run/threaded-engine.js';
import { TPCC_DECK, TPCC_TRANSACTIONS } from '../workloads/tpcc/profile.js';
import { StandIn } from './stand-in.js';
import type { StandInWorkerInit } from './stand-in-worker.js';

export interface WorkersRequest {
  workers: number;
  terminals: number;
  connections: number;
  thinkScale: number;
  serviceMs: number;
  /** CPU the stand-in spends per transaction, µs. */
  cpuUs: number;
  warmupMs: number;
  rampMs: number;
  durationMs: number;
}

export interface WorkersChildResult {
  status: string;
  windowS: number;
  transactions: number;
  /** The whole process (every thread) over the window. */
  cpu: { userS: number; systemS: number };
  latenessUs: { count: number; p50: number; p99: number; max: number };
}

async function main(): Promise<void> {
  const req = JSON.parse(process.argv[2] ?? '{}') as WorkersRequest;
  const config = {
    transactions: TPCC_TRANSACTIONS,
    deck: TPCC_DECK,
    thinkScale: req.thinkScale,
    warmupMs: req.warmupMs,
    durationMs: req.durationMs,
    rampMs: req.rampMs,
    intervalMs: 1_000,
    drainMs: 10_000,
    seed: 12345,
  };
  let pool: RunWorkers | undefined;
  let engine: Engine<Counters> | ReturnType<RunWorkers['engine']>;
  if (req.workers <= 1) {
    engine = new Engine<Counters>(
      { ...config, terminals: req.terminals },
      new StandIn(req.connections, req.serviceMs, req.cpuUs),
      () => ({}),
    );
  } else {
    pool = await RunWorkers.start<Omit<StandInWorkerInit, 'slice' | 'connections'>>(
      { totalTerminals: req.terminals, serviceMs: req.serviceMs, cpuUs: req.cpuUs },
      req.workers,
      req.connections,
      new URL('./stand-in-worker.js', import.meta.url),
    );
    engine = pool.engine(config, () => ({}));
  }
  let cpu0 = process.cpuUsage();
  let cpu = { user: 0, system: 0 };
  engine.on('phase', (phase) => {
    if (phase === 'measure') cpu0 = process.cpuUsage();
    else if (phase === 'drain') cpu = process.cpuUsage(cpu0);
  });
  const result: EngineResult<Counters> = await engine.run();
  await pool?.close();
  const out: WorkersChildResult = {
    status: result.status,
    windowS: result.windowSeconds,
    transactions: result.perType.reduce((a, t) => a + t.count, 0),
    cpu: { userS: cpu.user / 1e6, systemS: cpu.system / 1e6 },
    latenessUs: {
      count: result.lateness.totalCount,
      p50: result.lateness.getValueAtPercentile(50),
      p99: result.lateness.getValueAtPercentile(99),
      max: result.lateness.maxValue,
    },
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

void main();

/**
 * What drives a target's terminals: one engine in this thread over one executor (--workers 1,
 * the path with no worker threads at all), or worker threads that each drive a slice
 * (threaded-engine.ts). WorkloadRun sees either through this one small surface.
 */
import { Engine } from '../engine/engine.js';
import type { EngineConfig } from '../engine/engine-config.js';
import type { TerminalSlice } from '../engine/slice.js';
import type { Counters } from '../engine/types.js';
import { WorkloadExecutor } from '../workloads/executor.js';
import type { FaultCounts, FaultPolicy } from '../workloads/fault-policy.js';
import type { PreparedRun } from '../workloads/workload.js';
import type { WorkerSliceReport } from '../results/worker-slice.js';
import type { RunWorkerInit, WorkerEngineConfig } from './run-worker-protocol.js';
import { RunWorkers, type ThreadedEngine } from './threaded-engine.js';

export type RunEngine = Engine<Counters> | ThreadedEngine<Counters>;

export interface RunDrive {
  readonly workers: number;
  engine(config: WorkerEngineConfig, newCounters: () => Counters): RunEngine;
  faults(): FaultCounts;
  /** Adds what the workers tallied over the whole run into the run that audits (before `audit`). */
  addRunTallies(prepared: PreparedRun): void;
  /** Each worker's slice and what it completed in the measured window (one entry with one worker). */
  slices(windowTransactions: number): WorkerSliceReport[];
  close(): Promise<void>;
}

/** The single-thread drive: this thread's executor and engine, exactly as without workers. */
export async function openLocalDrive(
  prepared: PreparedRun,
  url: string,
  /** The terminals this process drives: all of them, or a shard's slice. */
  slice: TerminalSlice,
  totalTerminals: number,
  connections: number,
  policy: Partial<FaultPolicy>,
): Promise<RunDrive> {
  const set = await prepared.open(url, connections);
  const { first, count } = slice;
  const states = Array.from({ length: count }, (_, i) => prepared.terminal(first + i, totalTerminals));
  const executor = new WorkloadExecutor<unknown, Counters>(set, states, policy, first);
  return {
    workers: 1,
    engine: (config: Omit<EngineConfig, 'terminals'>, newCounters) => {
      const engine = new Engine<Counters>(
        { ...config, terminals: count, firstTerminal: first, totalTerminals, script: prepared.script },
        executor,
        newCounters,
      );
      return observed(engine, prepared);
    },
    faults: () => executor.faults,
    addRunTallies: () => undefined,
    slices: (transactions) => [{ first, count, connections, transactions }],
    close: () => executor.close(),
  };
}

/** Worker threads, each setting up the same run for its slice of the terminals. */
export async function openThreadedDrive(
  init: Omit<RunWorkerInit, 'slice' | 'connections'>,
  workers: number,
  connections: number,
  /** The terminals this process drives: all of them, or a shard's slice. */
  slice: TerminalSlice,
  /** This thread's prepared run: it sees the merged intervals (observeInterval). */
  prepared: PreparedRun,
): Promise<RunDrive> {
  const pool = await RunWorkers.start(init, workers, connections, undefined, slice);
  return {
    workers,
    engine: (config, newCounters) => observed(pool.engine(config, newCounters), prepared),
    faults: () => pool.faults(),
    addRunTallies: (prepared) => {
      for (const t of pool.runTallies()) prepared.addRunTallies?.(t);
    },
    slices: () => pool.slices.map((s, i) => ({ ...s, transactions: pool.transactions()[i] ?? 0 })),
    close: () => pool.close(),
  };
}

/** The engine, with the prepared run hearing its intervals (the merged ones, over worker threads). */
function observed<E extends RunEngine>(engine: E, prepared: PreparedRun): E {
  if (prepared.observeInterval) engine.on('interval', (stats) => prepared.observeInterval?.(stats));
  return engine;
}

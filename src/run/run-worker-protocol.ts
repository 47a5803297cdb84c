/** The messages between a run's coordinator (threaded-engine.ts) and its worker threads (run-worker.ts). */
import type { EngineConfig } from '../engine/engine-config.js';
import type { Phase, RunStatus } from '../engine/engine-result.js';
import type { Outage, OutageEdge } from '../engine/outages.js';
import type { TerminalSlice } from '../engine/slice.js';
import type { Counters } from '../engine/types.js';
import type { WireInterval, WireResult } from '../engine/wire.js';
import type { FaultCounts, FaultPolicy } from '../workloads/fault-policy.js';
import type { OptionValues } from '../workloads/workload.js';

/** What a worker needs to set up its slice: the same workload, options, record and seed as the main thread. */
export interface RunWorkerInit {
  url: string;
  /** The workload's name, the absolute path of its file, or its ref (registry.ts `workloadRef`). */
  workload: string;
  workloadOptions: OptionValues;
  /** What was loaded, as the main thread read it. */
  record: unknown;
  seed: number;
  slice: TerminalSlice;
  totalTerminals: number;
  /** This worker's own connections (slice.ts `sliceConnections`). */
  connections: number;
  faultPolicy: Partial<FaultPolicy>;
}

/** One engine run (a round: preconditioning, or the measurement) over the worker's slice. */
export type WorkerEngineConfig = Omit<
  EngineConfig,
  'terminals' | 'firstTerminal' | 'totalTerminals' | 'script'
>;

export type ToRunWorker =
  | { type: 'run'; config: WorkerEngineConfig; stop?: { status: StopStatus; reason?: string | undefined } }
  /** Phase commands: each is answered by an `ack` with its `seq`, after any interval it cut. */
  | { type: 'open'; seq: number }
  | { type: 'tick'; seq: number }
  | { type: 'close'; seq: number; status: RunStatus; reason?: string | undefined }
  /** No more rounds: close the connections and exit. */
  | { type: 'end' };

export type StopStatus = Exclude<RunStatus, 'completed'>;

export type FromRunWorker =
  | { type: 'ready' }
  /** `phase`: its engine's as it cut it; the coordinator merges it with the others of its phase. */
  | { type: 'interval'; phase: Phase; interval: WireInterval }
  /** Its engine's outage opened or ended; `startedAtWallMs` as in `result`, for its clock. */
  | { type: 'outage'; edge: OutageEdge; outage: Outage; startedAtWallMs: number }
  | { type: 'ack'; seq: number }
  /** Every scripted terminal of its slice is done (a replay): the window closes once every worker's are. */
  | { type: 'scriptsDone' }
  /** The worker's engine closed its window itself (a lost connection with --on-error stop). */
  | { type: 'stopped'; status: StopStatus; reason?: string | undefined }
  | {
      type: 'result';
      result: WireResult<Counters>;
      /** Date.now() when its engine started: its outages' times are relative to this. */
      startedAtWallMs: number;
      /** Cumulative over the worker's life (every round so far). */
      faults: FaultCounts;
      tallies: Record<string, number>;
    }
  | { type: 'error'; message: string; exitCode?: number | undefined; code?: string | undefined }
  | { type: 'ended' };

/** run.json's `config.workerSlices`: how a run's terminals were split over worker threads. */
import type { TerminalSlice } from '../engine/slice.js';

/** One worker's slice as run.json records it. */
export interface WorkerSlice extends TerminalSlice {
  connections: number;
}

/** run.json's account of one worker: its terminals, connections and window transactions. */
export interface WorkerSliceReport extends WorkerSlice {
  transactions: number;
}

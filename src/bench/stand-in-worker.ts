/**
 * A worker thread for section 8: the run path's worker side (worker-rounds.ts) over the bench's
 * stand-in executor instead of a workload's, so the coordinator, the messages and the merges are
 * measured exactly as a run uses them, without a database.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { TerminalSlice } from '../engine/slice.js';
import { serveRounds } from '../run/worker-rounds.js';
import { StandIn } from './stand-in.js';

export interface StandInWorkerInit {
  slice: TerminalSlice;
  totalTerminals: number;
  connections: number;
  serviceMs: number;
  cpuUs: number;
}

const port = parentPort;
if (port === null) throw new Error('stand-in-worker must run in a worker thread');
const init = workerData as StandInWorkerInit;
serveRounds(port, {
  slice: init.slice,
  totalTerminals: init.totalTerminals,
  executor: new StandIn(init.connections, init.serviceMs, init.cpuUs),
  newCounters: () => ({}),
  faults: () => ({ reconnects: 0, reconnectFailures: 0, cancelled: 0, abandoned: 0 }),
  tallies: () => ({}),
  close: () => Promise.resolve(),
});

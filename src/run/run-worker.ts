/**
 * A run's worker thread: finds the workload again (by name, or its file), prepares the same run as
 * the main thread (options, record, seed), opens its share of the connections, and drives its
 * slice of the terminals with an engine whose phases and intervals the coordinator commands, so
 * that every worker's window and intervals line up. It sends intervals and results with their
 * histograms encoded; the main thread merges them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { dialectFor } from '../dialects/for-url.js';
import type { Db } from '../dialects/dialect.js';
import { Engine } from '../engine/engine.js';
import type { Counters } from '../engine/types.js';
import { encodeInterval, encodeResult } from '../engine/wire.js';
import { errorMessage, TxbenchError } from '../errors.js';
import { WorkloadExecutor } from '../workloads/executor.js';
import { findWorkload } from '../workloads/registry.js';
import type { PreparedRun } from '../workloads/workload.js';
import type { FromRunWorker, RunWorkerInit, ToRunWorker } from './run-worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('run-worker must run in a worker thread');
const init = workerData as RunWorkerInit;
const send = (message: FromRunWorker): void => port.postMessage(message);

let db: Db | undefined;
let executor: WorkloadExecutor<unknown, Counters> | undefined;
let prepared: PreparedRun | undefined;
let engine: Engine<Counters> | undefined;
let engineDone = true;
/** Set while a phase command runs: the engine's window then closes because it was told to. */
let commanded = false;

async function setUp(): Promise<void> {
  const workload = await findWorkload(init.workload);
  const dialect = await dialectFor(init.url);
  db = await dialect.connect(init.url, { max: 1 });
  prepared = await workload.prepareRun({
    options: init.workloadOptions,
    record: init.record,
    dialect,
    db,
    url: init.url,
    seed: init.seed,
  });
  const set = await prepared.open(init.url, init.connections);
  const { first, count } = init.slice;
  const states = Array.from({ length: count }, (_, i) => prepared!.terminal(first + i, init.totalTerminals));
  executor = new WorkloadExecutor<unknown, Counters>(set, states, init.faultPolicy, first);
}

function startRound(message: Extract<ToRunWorker, { type: 'run' }>): void {
  const p = prepared!;
  const e = new Engine<Counters>(
    {
      ...message.config,
      terminals: init.slice.count,
      firstTerminal: init.slice.first,
      totalTerminals: init.totalTerminals,
      externalPhases: true,
    },
    executor!,
    () => p.newCounters(),
  );
  engine = e;
  engineDone = false;
  e.on('interval', (stats) => send({ type: 'interval', interval: encodeInterval(stats) }));
  e.on('phase', (phase) => {
    // Only a lost connection (--on-error stop) closes the window uncommanded: the coordinator
    // then stops every other worker too; this one's result carries the reason.
    if (phase === 'drain' && !commanded) send({ type: 'stopped', status: 'failed' });
  });
  if (message.stop) e.stop(message.stop.status, message.stop.reason);
  const startedAtWallMs = Date.now();
  void e.run().then((result) => {
    engineDone = true;
    send({
      type: 'result',
      result: encodeResult(result),
      startedAtWallMs,
      faults: { ...executor!.faults },
      tallies: p.runTallies?.() ?? {},
    });
  });
}

/** Runs a phase command on the live engine (none once it is done), then acknowledges it. */
function command(seq: number, act: (e: Engine<Counters>) => void): void {
  if (engine !== undefined && !engineDone) {
    commanded = true;
    try {
      act(engine);
    } finally {
      commanded = false;
    }
  }
  send({ type: 'ack', seq });
}

async function end(): Promise<void> {
  await executor?.close().catch(() => undefined);
  await db?.close().catch(() => undefined);
  send({ type: 'ended' });
  port!.close();
}

port.on('message', (message: ToRunWorker) => {
  switch (message.type) {
    case 'run':
      startRound(message);
      break;
    case 'open':
      command(message.seq, (e) => e.beginWindow());
      break;
    case 'tick':
      command(message.seq, (e) => e.takeInterval());
      break;
    case 'close':
      command(message.seq, (e) =>
        message.status === 'completed' ? e.endWindow() : e.stop(message.status, message.reason),
      );
      break;
    case 'end':
      void end();
      break;
  }
});

try {
  await setUp();
  send({ type: 'ready' });
} catch (err) {
  send({
    type: 'error',
    message: errorMessage(err),
    exitCode: err instanceof TxbenchError ? err.exitCode : undefined,
    code: typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined,
  });
  await end();
}

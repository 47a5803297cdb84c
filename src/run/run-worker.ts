/**
 * A run's worker thread: finds the workload again (by name, or its file), prepares the same run as
 * the main thread (options, record, seed), opens its share of the connections, and drives its
 * slice of the terminals (worker-rounds.ts) with an engine whose phases and intervals the
 * coordinator commands, so that every worker's window and intervals line up.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { dialectFor } from '../dialects/for-url.js';
import type { Db } from '../dialects/dialect.js';
import type { Counters } from '../engine/types.js';
import { errorMessage, TxbenchError } from '../errors.js';
import { WorkloadExecutor } from '../workloads/executor.js';
import { findWorkload } from '../workloads/registry.js';
import type { FromRunWorker, RunWorkerInit } from './run-worker-protocol.js';
import { serveRounds } from './worker-rounds.js';

/** The thread's life: its connections are this function's, closed on error or when told to. */
async function serveRun(port: MessagePort, init: RunWorkerInit): Promise<void> {
  let db: Db | undefined;
  let executor: WorkloadExecutor<unknown, Counters> | undefined;
  const close = async (): Promise<void> => {
    await executor?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
  };

  try {
    const workload = await findWorkload(init.workload);
    const dialect = await dialectFor(init.url);
    db = await dialect.connect(init.url, { max: 1 });
    const prepared = await workload.prepareRun({
      options: init.workloadOptions,
      record: init.record,
      dialect,
      db,
      url: init.url,
      seed: init.seed,
    });
    const set = await prepared.open(init.url, init.connections);
    // The administrative connection served prepareRun only (the main thread audits and reads the
    // counters): closed now, so the workers hold no more connections than one thread would.
    await db.close().catch(() => undefined);
    db = undefined;
    const { first, count } = init.slice;
    const states = Array.from({ length: count }, (_, i) => prepared.terminal(first + i, init.totalTerminals));
    const ex = new WorkloadExecutor<unknown, Counters>(set, states, init.faultPolicy, first);
    executor = ex;
    serveRounds(port, {
      slice: init.slice,
      totalTerminals: init.totalTerminals,
      executor: ex,
      script: prepared.script,
      newCounters: () => prepared.newCounters(),
      faults: () => ex.faults,
      tallies: () => prepared.runTallies?.() ?? {},
      close,
    });
  } catch (err) {
    port.postMessage({
      type: 'error',
      message: errorMessage(err),
      exitCode: err instanceof TxbenchError ? err.exitCode : undefined,
      code: typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined,
    } satisfies FromRunWorker);
    await close();
    port.close();
  }
}

const port = parentPort;
if (port === null) throw new Error('run-worker must run in a worker thread');
await serveRun(port, workerData as RunWorkerInit);

/**
 * A loader worker thread: finds the workload again (by name, or its file), generates the rows of
 * the tasks it is given and streams them into the database's bulk path on its own connection, so
 * generation and ingestion run in parallel across workers.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { dialectFor } from '../dialects/for-url.js';
import { errorMessage } from '../errors.js';
import { copyTextChunks } from './copy-text.js';
import { findWorkload } from './registry.js';
import { columnNames } from './schema.js';
import type { LoadContext, LoadTask, OptionValues } from './workload.js';

export interface WorkerInit {
  url: string;
  /** The workload's name, or the absolute path of its file. */
  workload: string;
  /** The options the load was given (the tables may depend on them). */
  options: OptionValues;
  ctx: LoadContext;
}
export type ToWorker = { type: 'task'; task: LoadTask } | { type: 'stop' };
export type FromWorker =
  | { type: 'progress'; rows: number; bytes: number }
  | { type: 'taskDone'; task: LoadTask }
  | { type: 'error'; message: string; code: string | undefined };

/**
 * Progress goes to the main thread at most every PROGRESS_MS: a message per 256 KB chunk cost
 * ≈ 0.1 ms of the worker's CPU each (structured clone and a wake-up of the other thread), ≈ 0.3 s
 * per worker over a 10-warehouse load.
 */
const PROGRESS_MS = 100;

/** The thread's life: its workload, table columns, bulk loader and unsent progress are this call's. */
async function serveLoad(port: MessagePort, init: WorkerInit): Promise<void> {
  const send = (message: FromWorker): void => port.postMessage(message);
  const workload = await findWorkload(init.workload);
  const columns = new Map(
    workload.tables(init.options, init.ctx.record).map((t) => [t.name, columnNames(t)]),
  );
  const loader = (await dialectFor(init.url)).openBulkLoader(init.url);
  const generate =
    workload.loader.threadGenerator?.(init.ctx) ??
    ((task: LoadTask, onProgress: (rows: number, bytes: number) => void) =>
      workload.loader.generate(task, init.ctx, onProgress));

  const unsent = { rows: 0, bytes: 0, at: performance.now() };

  function progress(rows: number, bytes: number): void {
    unsent.rows += rows;
    unsent.bytes += bytes;
    const now = performance.now();
    if (now - unsent.at >= PROGRESS_MS) sendProgress(now);
  }

  function sendProgress(now = performance.now()): void {
    unsent.at = now;
    if (unsent.rows === 0 && unsent.bytes === 0) return;
    send({ type: 'progress', rows: unsent.rows, bytes: unsent.bytes });
    unsent.rows = 0;
    unsent.bytes = 0;
  }

  async function runTask(task: LoadTask): Promise<void> {
    const bulk = await loader;
    const copyFormat = init.ctx.copyFormat ?? 'text';
    const parts = generate(task, progress);
    // The main thread builds a table's keys once its named tasks are done: rows after that would be late.
    const named = workload.loader.tablesOf?.(task);
    for (const part of parts) {
      const names = columns.get(part.table);
      if (names === undefined)
        throw new Error(`the workload generated rows for an unknown table ${part.table}`);
      if (named !== undefined && !named.includes(part.table))
        throw new Error(
          `the workload generated rows for ${part.table}, which its tablesOf does not name for the task`,
        );
      if ('chunks' in part) {
        const format = part.format ?? 'text';
        if (format !== 'text' && format !== copyFormat)
          throw new Error(
            `the workload generated ${format} COPY for ${part.table}, which this database does not take`,
          );
        await bulk.load(part.table, names, part.chunks, format);
      } else await bulk.load(part.table, names, countedChunks(part.rows));
    }
  }

  /** Rows given as values: encoded, and counted for progress as they go. */
  function* countedChunks(rows: Iterable<readonly unknown[]>): Generator<Buffer> {
    let n = 0;
    const counted = (function* () {
      for (const row of rows) {
        n++;
        yield row;
      }
    })();
    for (const chunk of copyTextChunks(counted)) {
      progress(n, chunk.length);
      n = 0;
      yield chunk;
    }
  }

  port.on('message', (message: ToWorker) => {
    if (message.type === 'stop') {
      void loader
        .then((l) => l.close())
        .catch(() => undefined)
        .finally(() => port.close());
      return;
    }
    runTask(message.task).then(
      () => {
        sendProgress();
        send({ type: 'taskDone', task: message.task });
      },
      (err: unknown) => {
        sendProgress();
        const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
        send({ type: 'error', message: errorMessage(err), code });
      },
    );
  });
}

const port = parentPort;
if (port === null) throw new Error('load-worker must run in a worker thread');
await serveLoad(port, workerData as WorkerInit);

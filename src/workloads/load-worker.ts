/**
 * A loader worker thread: finds the workload again (by name, or its file), generates the rows of
 * the tasks it is given and streams them into the database's bulk path on its own connection, so
 * generation and ingestion run in parallel across workers.
 */
import { parentPort, workerData } from 'node:worker_threads';
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

const port = parentPort;
if (port === null) throw new Error('load-worker must run in a worker thread');
const init = workerData as WorkerInit;
const send = (message: FromWorker): void => port.postMessage(message);
const workload = await findWorkload(init.workload);
const columns = new Map(workload.tables(init.options, init.ctx.record).map((t) => [t.name, columnNames(t)]));
const loader = (await dialectFor(init.url)).openBulkLoader(init.url);

async function runTask(task: LoadTask): Promise<void> {
  const parts = workload.loader.generate(task, init.ctx, (rows, bytes) =>
    send({ type: 'progress', rows, bytes }),
  );
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
    const chunks = 'chunks' in part ? part.chunks : countedChunks(part.rows);
    await (await loader).load(part.table, names, chunks);
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
    send({ type: 'progress', rows: n, bytes: chunk.length });
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
    () => send({ type: 'taskDone', task: message.task }),
    (err: unknown) => {
      const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
      send({ type: 'error', message: errorMessage(err), code });
    },
  );
});

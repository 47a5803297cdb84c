/**
 * A loader worker thread: generates the rows of the tasks it is given and streams them into
 * COPY on its own connection, so generation and ingestion run in parallel across workers.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../errors.js';
import { taskStreams, type GenerateContext, type LoadTask } from './generate.js';
import { COLUMNS } from './schema.js';
import { tpccDialectFor } from './tpcc-dialect.js';

export interface WorkerInit {
  url: string;
  ctx: GenerateContext;
}
export type ToWorker = { type: 'task'; task: LoadTask } | { type: 'stop' };
export type FromWorker =
  | { type: 'progress'; rows: number; bytes: number }
  | { type: 'taskDone'; task: LoadTask }
  | { type: 'error'; message: string; code: string | undefined };

const port = parentPort;
if (port === null) throw new Error('load-worker must run in a worker thread');
const init = workerData as WorkerInit;
const loader = (await tpccDialectFor(init.url)).dialect.openBulkLoader(init.url);
const send = (message: FromWorker): void => port.postMessage(message);

async function runTask(task: LoadTask): Promise<void> {
  const streams = taskStreams(task, init.ctx, (rows, bytes) => send({ type: 'progress', rows, bytes }));
  for (const { table, chunks } of streams) await (await loader).load(table, COLUMNS[table], chunks);
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

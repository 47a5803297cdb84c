/**
 * Child process entry: one txbench run (TpccRun) in a process of its own, so that its CPU time is
 * the client's alone. Tells the parent when the measured window opens and closes (the parent
 * samples the server's CPU then) and sends the report. Started by txbench-run.ts with an IPC channel.
 */
import { TpccRun, type RunOptions } from '../run/tpcc-run.js';

export interface RunChildRequest {
  url: string;
  options: RunOptions;
}

export type FromRunChild =
  { type: 'phase'; phase: string } | { type: 'report'; report: unknown } | { type: 'error'; message: string };

const send = (message: FromRunChild): Promise<void> =>
  new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));

async function main(): Promise<void> {
  // In the environment, not the command line: an embedded server's URL carries its password.
  const request = JSON.parse(process.env.BENCH_RUN_REQUEST ?? '{}') as RunChildRequest;
  const run = new TpccRun(request.url, 'bench', request.options, {
    onPhase: (phase) => void send({ type: 'phase', phase }),
  });
  process.once('SIGINT', () => run.stop());
  process.once('SIGTERM', () => run.stop());
  try {
    const { histograms: _histograms, ...report } = await run.run();
    await send({ type: 'report', report });
  } catch (err) {
    await send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
  process.disconnect();
}

void main();

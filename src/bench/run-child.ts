/**
 * Child process entry: one txbench run (WorkloadRun) in a process of its own, so that its CPU time is
 * the client's alone. Tells the parent when the measured window opens and closes (the parent
 * samples the server's CPU then) and sends the report. Started by txbench-run.ts with an IPC channel.
 */
import { WorkloadRun, type RunOptions } from '../run/workload-run.js';
import { findWorkload } from '../workloads/registry.js';
import type { OptionValues } from '../workloads/workload.js';

export interface RunChildRequest {
  url: string;
  /** The workload's name (found again in the child). */
  workload: string;
  workloadOptions: OptionValues;
  options: Omit<RunOptions, 'workload' | 'workloadOptions'>;
}

export type FromRunChild =
  { type: 'phase'; phase: string } | { type: 'report'; report: unknown } | { type: 'error'; message: string };

const send = (message: FromRunChild): Promise<void> =>
  new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));

async function main(): Promise<void> {
  // In the environment, not the command line: an embedded server's URL carries its password.
  const request = JSON.parse(process.env.BENCH_RUN_REQUEST ?? '{}') as RunChildRequest;
  const workload = await findWorkload(request.workload);
  const options = { ...request.options, workload, workloadOptions: request.workloadOptions };
  const run = new WorkloadRun(request.url, 'bench', options, {
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

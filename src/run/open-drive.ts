/** What drives a run's terminals, chosen from its config: this thread, or worker threads. */
import { workloadRef } from '../workloads/registry.js';
import type { OptionValues, PreparedRun, Workload } from '../workloads/workload.js';
import { openLocalDrive, openThreadedDrive, type RunDrive } from './drive.js';
import { faultPolicy } from './fault-policy.js';
import type { RunConfig } from '../results/run-file.js';
import type { RunOptions } from './run-options.js';

/** This thread's executor (one worker), or worker threads that set up the same run for their slices. */
export function openRunDrive(
  run: { url: string; options: RunOptions; workload: Workload },
  config: RunConfig,
  record: unknown,
  workloadOptions: OptionValues,
  prepared: PreparedRun,
): Promise<RunDrive> {
  // A shard drives its slice of the run's terminals; otherwise this process drives them all.
  const total = config.shard?.totalTerminals ?? config.terminals;
  const slice = { first: config.shard?.firstTerminal ?? 0, count: config.terminals };
  const policy = faultPolicy(run.options);
  if (config.workers <= 1) return openLocalDrive(prepared, run.url, slice, total, config.connections, policy);
  return openThreadedDrive(
    {
      url: run.url,
      workload: workloadRef(run.workload.ref ?? run.options.workloadRef ?? run.workload.name),
      workloadOptions,
      record,
      seed: config.seed,
      totalTerminals: total,
      faultPolicy: policy,
    },
    config.workers,
    config.connections,
    slice,
    prepared,
  );
}

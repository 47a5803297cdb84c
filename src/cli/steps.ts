import { ExitCode, UsageError } from '../errors.js';
import { formatStepsTable } from '../report/scaling.js';
import { RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { kneeOf } from '../run/aggregate.js';
import { GENERIC_DISCLAIMER, type RunOptions, type WorkloadRun } from '../run/workload-run.js';
import type { RunReport } from '../results/run-file.js';
import type { Target } from '../targets/target.js';
import { parseIntFlag } from './args.js';
import { parseRunOptions, RUN_FLAGS, RUN_OPTIONAL_VALUES } from './run.js';
import {
  exitCodeOf,
  newRun,
  progressListener,
  saveResults,
  withInterrupt,
  withRunSession,
  withoutHistograms,
} from './run-session.js';
import {
  measuredEntry,
  parseRepeatFlags,
  refuseRepeatWith,
  reloadTarget,
  repetitionOptions,
  runRepeated,
} from './repeat-flags.js';
import { targetOptionsFrom } from './target.js';
import { parseWithWorkload, WORKLOAD_HELP, workloadOptionsHelp } from './workload-flags.js';

export const STEPS_HELP = `txbench steps --users 1,20,50,100 [run options]

Runs one full warm-up and measured window per user count (terminals), one after another, and
prints the scaling table (TPS, response time and the disks' MB/s and latency against users) with
the knee named.
  --users LIST       terminal counts, e.g. 1,20,50,100 (required)
  every \`txbench run\` option applies to each step (--warmup, --duration, --think-scale,
  --workload and the workload's options, ...); --terminals is replaced by each step's user count;
  --repeat N runs the whole sequence N times and gives each step's figures as mean ± 95% interval
${WORKLOAD_HELP}`;

export const STEPS_FLAGS = { ...RUN_FLAGS, users: { type: 'string', short: 'u' } } as const;

export async function stepsCommand(argv: string[]): Promise<number> {
  const { values, workload, ref, workloadOptions } = await parseWithWorkload(
    'steps',
    argv,
    STEPS_FLAGS,
    true,
    RUN_OPTIONAL_VALUES,
  );
  if (values.help) {
    console.log(`${STEPS_HELP}\n${workloadOptionsHelp(workload)}`);
    return 0;
  }
  if (typeof values.users !== 'string')
    throw new UsageError('--users is required; e.g. `txbench steps --users 1,20,50,100`');
  const users = values.users.split(',').map((u) => parseIntFlag('users', u, 1, 10_000_000));
  const options = parseRunOptions(values, workload, ref, workloadOptions);
  const out = typeof values.out === 'string' ? values.out : 'results';
  const json = typeof values.json === 'string' ? values.json : undefined;
  const list = targetOptionsFrom(argv);
  if (list.length > 1) throw new UsageError('steps drive one target; give one --db or --data-dir');
  const repeat = parseRepeatFlags(values);
  refuseRepeatWith(repeat, list.length, false);
  return withRunSession(options, list, out, async ([target]) => {
    if (repeat.count !== undefined) {
      return runRepeated(
        {
          of: 'steps',
          flags: { ...repeat, count: repeat.count },
          resultsDir: out,
          json,
          target: target!,
          options,
        },
        async (dir, index) => {
          const reports = await measureSteps(
            target!,
            repetitionOptions(options, index),
            users,
            dir,
            undefined,
          );
          return {
            reports,
            entries: reports.map((r) =>
              measuredEntry(`${r.config.terminals} users`, r, { users: r.config.terminals }),
            ),
            status: stepsStatus(reports, users),
          };
        },
      );
    }
    if (repeat.reload) await reloadTarget(target!, options);
    const runDir = await RunDirectory.create(out, new Date(), 'steps');
    const reports = await measureSteps(target!, options, users, runDir, json);
    const code = exitCodeOf(reports);
    return reports.length < users.length && code === ExitCode.ok ? ExitCode.interrupted : code;
  });
}

/**
 * One full sequence of steps into `runDir`: each user count's warm-up and window, the scaling
 * table printed, run.json written; ends early at a step that does not complete.
 */
async function measureSteps(
  target: Target,
  options: RunOptions,
  users: readonly number[],
  runDir: RunDirectory,
  json: string | undefined,
): Promise<RunReport[]> {
  const workload = options.workload;
  const startedAt = new Date().toISOString();
  const reports: RunReport[] = [];
  let current: WorkloadRun | undefined;
  await withInterrupt(
    () => (current ? [current] : []),
    async () => {
      for (const n of users) {
        current = newRun(target, { ...options, terminals: n }, progressListener(`[${n} users] `, runDir));
        const report = await current.run();
        reports.push(report);
        if (report.status !== 'completed') break;
      }
    },
  );
  const steps = reports.map((r) => ({
    users: r.config.terminals,
    summary: r.summary,
    report: withoutHistograms(r),
  }));
  const knee = kneeOf(steps.map((s) => ({ users: s.users, tps: s.summary.tps })));
  console.log(formatStepsTable(steps, knee));
  await saveResults(runDir, json, {
    schemaVersion: RUN_SCHEMA_VERSION,
    kind: 'steps',
    status: reports.find((r) => r.status !== 'completed')?.status ?? 'completed',
    startedAt,
    endedAt: new Date().toISOString(),
    workload: reports[0]?.workload ?? options.workloadRef,
    disclaimer: reports[0]?.disclaimer ?? workload.disclaimer ?? GENERIC_DISCLAIMER,
    config: { target: target.spec.label, users, ...(reports[0] ? { run: reports[0].config } : {}) },
    knee: knee ?? null,
    steps,
  });
  return reports;
}

/** completed when every step ran; else the status of the step that stopped the sequence. */
function stepsStatus(reports: readonly RunReport[], users: readonly number[]): string {
  const stopped = reports.find((r) => r.status !== 'completed')?.status;
  return stopped ?? (reports.length < users.length ? 'interrupted' : 'completed');
}

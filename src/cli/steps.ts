import { ExitCode, UsageError } from '../errors.js';
import { formatStepsTable } from '../report/scaling.js';
import { RunDirectory, RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { kneeOf } from '../run/aggregate.js';
import { DISCLAIMER, type RunReport, type TpccRun } from '../run/tpcc-run.js';
import { parseCommand, parseIntFlag } from './args.js';
import { parseRunOptions, RUN_FLAGS } from './run.js';
import {
  exitCodeOf,
  newRun,
  progressListener,
  saveResults,
  withInterrupt,
  withRunSession,
  withoutHistograms,
} from './run-session.js';
import { targetOptionsFrom } from './target.js';

export const STEPS_HELP = `txbench steps --users 1,20,50,100 [run options]

Runs one full warm-up and measured window per user count (terminals), one after another, and
prints the scaling table (TPS, response time and the disks' MB/s and latency against users) with
the knee named.
  --users LIST       terminal counts, e.g. 1,20,50,100 (required)
  every \`txbench run\` option applies to each step (--warmup, --duration, --think-scale, ...);
  --terminals is replaced by each step's user count`;

export async function stepsCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand('steps', argv, { ...RUN_FLAGS, users: { type: 'string', short: 'u' } });
  if (values.help) {
    console.log(STEPS_HELP);
    return 0;
  }
  if (values.users === undefined)
    throw new UsageError('--users is required; e.g. `txbench steps --users 1,20,50,100`');
  const users = values.users.split(',').map((u) => parseIntFlag('users', u, 1, 10_000_000));
  const options = parseRunOptions(values);
  const list = targetOptionsFrom(argv);
  if (list.length > 1) throw new UsageError('steps drive one target; give one --db or --data-dir');
  return withRunSession(options, list, values.out ?? 'results', async ([target]) => {
    const runDir = await RunDirectory.create(values.out ?? 'results', new Date(), 'steps');
    const startedAt = new Date().toISOString();
    const reports: RunReport[] = [];
    let current: TpccRun | undefined;
    await withInterrupt(
      () => (current ? [current] : []),
      async () => {
        for (const n of users) {
          current = newRun(target!, { ...options, terminals: n }, progressListener(`[${n} users] `, runDir));
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
    await saveResults(runDir, values.json, {
      schemaVersion: RUN_SCHEMA_VERSION,
      kind: 'steps',
      status: reports.find((r) => r.status !== 'completed')?.status ?? 'completed',
      startedAt,
      endedAt: new Date().toISOString(),
      disclaimer: DISCLAIMER,
      config: { target: target!.spec.label, users, ...(reports[0] ? { run: reports[0].config } : {}) },
      knee: knee ?? null,
      steps,
    });
    const code = exitCodeOf(reports);
    return reports.length < users.length && code === ExitCode.ok ? ExitCode.interrupted : code;
  });
}

import { UsageError } from '../errors.js';
import { runSteps } from '../api.js';
import { parseIntFlag } from './args.js';
import { parseRepeatFlags, refuseRepeatWith } from './repeat-flags.js';
import { parseRunOptions, RUN_FLAGS, RUN_OPTIONAL_VALUES } from './run.js';
import { withRunOutputs } from './run-outputs.js';
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

export async function stepsCommand(argv: string[], commandLine?: string): Promise<number> {
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
  return withRunOutputs(options, out, (outputs) =>
    runSteps({ options, targets: list, users, resultsDir: out, json, repeat, commandLine }, outputs),
  );
}

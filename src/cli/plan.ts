import {
  defaultPlanDir,
  estimatePlan,
  formatEstimate,
  openPlanDir,
  planSchemaCheck,
  readPlanFile,
  runPlan,
  type PlanCommandTable,
} from '../api.js';
import { UsageError } from '../errors.js';
import { COMMAND_FLAGS } from './commands.js';
import { PLAN_FLAGS } from './plan-flags.js';
import { parseWithOperands } from './positionals.js';

export const PLAN_HELP = `txbench plan FILE.yaml [--resume] [--dry-run] [--out DIR] [--force]

Runs a plan: a list of steps, each one of txbench's commands (load, check, drop, run, steps,
sweep, replay) with its options (the long flag names, as in a --config section) and the targets it
applies to. The whole plan is checked before anything runs. Each step runs as its own txbench
process; its state (pending, running, done, failed) is recorded in the plan directory as it goes,
and after each step the plan writes report.html (every run of the plan) and summary.md (the
steps, and the reviewers' table across runs and per target, with drive costs when the plan
names a cost file). See docs/plans.md.
  --out DIR      the plan directory (default results/plan-NAME)
  --dry-run      print the steps in order and an estimate of the total time; run nothing
  --resume       carry on a plan that stopped: done steps are not run again; a step that was
                 running starts over (its partial directory kept under earlier/, marked)
  --force        with --resume: carry on even if the plan file changed a step already done
                 (that step is not run again)
Exit codes: 0 every step ok; 1 a step failed (a check, a threshold); 2 bad plan or usage (every
problem listed, one line each), a plan directory of another plan, --resume without one; 3 a
step's database unreachable or lost; 130 interrupted.`;

/** The plan's view of the commands' flag tables (commands.ts). */
const COMMANDS: PlanCommandTable = {
  flags: (command) => Object.keys(COMMAND_FLAGS[command]?.flags ?? {}),
  workload: (command) => COMMAND_FLAGS[command]?.workload ?? 'none',
};

export async function planCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseWithOperands('plan', argv, PLAN_FLAGS);
  if (values.help) {
    console.log(PLAN_HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('name one plan file: txbench plan FILE.yaml');
  if (values.force === true && values.resume !== true) throw new UsageError('--force goes with --resume');
  const plan = await readPlanFile(positionals[0]!, planSchemaCheck(), COMMANDS);
  if (values['dry-run'] === true) {
    console.log(formatEstimate(plan, estimatePlan(plan)));
    return 0;
  }
  const options = {
    out: values.out ?? defaultPlanDir(plan),
    resume: values.resume === true,
    force: values.force === true,
    say: (line: string) => console.error(`txbench plan: ${line}`),
  };
  const state = await openPlanDir(plan, options);
  const code = await runPlan(plan, state, options);
  options.say(
    `${code === 0 ? 'done' : `stopped (exit ${code})`}; report: ${options.out}/report.html, ${options.out}/summary.md`,
  );
  return code;
}

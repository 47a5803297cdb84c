import { writeFile } from 'node:fs/promises';
import { ExitCode } from '../errors.js';
import { formatCheckResults } from '../report/check-table.js';
import { checkWorkload } from '../api.js';
import { TARGET_OPTIONS } from './args.js';
import { withTarget } from './target.js';
import { parseWithWorkload, WORKLOAD_HELP } from './workload-flags.js';

export const CHECK_HELP = `txbench check [options]

Runs the workload's consistency checks; exits 1 if any fails. TPC-C (the default): consistency
conditions 1-10 and 12.
${WORKLOAD_HELP}
  --after-load     also the checks that hold only right after a load (TPC-C: condition 11 and
                   the population checks: cardinalities, 10% rules, initial values)
  --json FILE      write the results as JSON
  --db URL / --data-dir DIR   the target, as for \`txbench load\``;

export const CHECK_FLAGS = {
  ...TARGET_OPTIONS,
  'after-load': { type: 'boolean' },
  json: { type: 'string' },
} as const;

export async function checkCommand(argv: string[]): Promise<number> {
  const { values, workload } = await parseWithWorkload('check', argv, CHECK_FLAGS, false);
  if (values.help) {
    console.log(CHECK_HELP);
    return 0;
  }
  return withTarget(values, { create: false }, async (target) => {
    const results = await checkWorkload(workload, target.url, values['after-load'] === true);
    console.log(formatCheckResults(results));
    if (typeof values.json === 'string')
      await writeFile(values.json, JSON.stringify({ checks: results }, null, 2) + '\n');
    return results.every((r) => r.pass) ? ExitCode.ok : ExitCode.checkFailed;
  });
}

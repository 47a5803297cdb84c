import { writeFile } from 'node:fs/promises';
import { ExitCode } from '../errors.js';
import { formatCheckResults } from '../report/check-table.js';
import { checkDatabase } from '../workloads/tpcc/check-database.js';
import { parseCommand, TARGET_OPTIONS } from './args.js';
import { withTarget } from './target.js';

export const CHECK_HELP = `txbench check [options]

Runs TPC-C consistency conditions 1-10 and 12; exits 1 if any fails.
  --after-load     also condition 11 and the population checks (cardinalities, 10% rules,
                   initial values), which hold only right after a load
  --json FILE      write the results as JSON
  --db URL / --data-dir DIR   the target, as for \`txbench load\``;

export async function checkCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand('check', argv, {
    ...TARGET_OPTIONS,
    'after-load': { type: 'boolean' },
    json: { type: 'string' },
  });
  if (values.help) {
    console.log(CHECK_HELP);
    return 0;
  }
  return withTarget(values, { create: false }, async (target) => {
    const results = await checkDatabase(target.url, values['after-load'] === true);
    console.log(formatCheckResults(results));
    if (values.json !== undefined)
      await writeFile(values.json, JSON.stringify({ checks: results }, null, 2) + '\n');
    return results.every((r) => r.pass) ? ExitCode.ok : ExitCode.checkFailed;
  });
}

import { connectChecked } from '../dialects/postgres/connect.js';
import { ExitCode } from '../errors.js';
import { formatCheckResults } from '../report/check-table.js';
import { formatLoadResult, loadProgressPrinter } from '../report/load-progress.js';
import { loadTpcc } from '../workloads/tpcc/loader.js';
import { schemaState } from '../workloads/tpcc/meta.js';
import { parseCommand, parseIntFlag, TARGET_OPTIONS } from './args.js';
import { checkDatabase } from './check.js';
import { withTarget } from './target.js';

export const DEFAULT_RUN_WAREHOUSES = 2;

export const RUN_HELP = `txbench run [options]

Loads ${DEFAULT_RUN_WAREHOUSES} warehouses if nothing is loaded yet, then checks the database.
(The measuring run engine is not built yet: this command does not measure anything.)
  --warehouses N   scale to load when the database is empty (default ${DEFAULT_RUN_WAREHOUSES})
  --db URL / --data-dir DIR   the target, as for \`txbench load\``;

export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand('run', argv, {
    ...TARGET_OPTIONS,
    warehouses: { type: 'string', short: 'w' },
  });
  if (values.help) {
    console.log(RUN_HELP);
    return 0;
  }
  const warehouses =
    values.warehouses === undefined
      ? DEFAULT_RUN_WAREHOUSES
      : parseIntFlag('warehouses', values.warehouses, 1, 1_000_000);
  return withTarget(values, async (target) => {
    const sql = await connectChecked(target.url, { max: 1 });
    const state = await schemaState(sql).finally(() => sql.end({ timeout: 5 }));
    const justLoaded = state.kind === 'empty';
    if (justLoaded) {
      console.error(`nothing loaded in ${target.spec.label}; loading ${warehouses} warehouses`);
      const result = await loadTpcc(target.url, { warehouses }, loadProgressPrinter(process.stderr));
      if (process.stderr.isTTY) process.stderr.write('\n');
      console.log(formatLoadResult(result));
    }
    console.log('the run engine is not built yet: checking consistency instead of measuring');
    const results = await checkDatabase(target.url, justLoaded);
    console.log(formatCheckResults(results));
    return results.every((r) => r.pass) ? ExitCode.ok : ExitCode.checkFailed;
  });
}

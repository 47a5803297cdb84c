import { UsageError } from '../errors.js';
import { formatLoadResult, loadProgressPrinter } from '../report/load-progress.js';
import { loadWorkload } from '../api.js';
import { parseIntFlag, TARGET_OPTIONS } from './args.js';
import { withTarget } from './target.js';
import { parseWithWorkload, WORKLOAD_HELP, workloadOptionsHelp } from './workload-flags.js';

export const LOAD_HELP = `txbench load [--workload NAME] [workload options] [options]

Creates the workload's tables and loads them (TPC-C, the default: --warehouses N, required).
${WORKLOAD_HELP}
  --jobs J         parallel generator/COPY streams (default: CPU count)
  --seed S         random seed, for a reproducible population
  --replace        drop an existing (or interrupted) schema of the workload first
  --db URL         postgres://, mysql:// or mariadb://, sqlite:path, mssql:// or sqlserver://
                   (default: DATABASE_URL, PG*, else the embedded PostgreSQL)
  --data-dir DIR   embedded PostgreSQL data directory (default .txbench/pg)
  --label NAME     what the output calls the target (default host:port/database, embedded:DIR)`;

export const LOAD_FLAGS = {
  ...TARGET_OPTIONS,
  jobs: { type: 'string', short: 'j' },
  seed: { type: 'string' },
  replace: { type: 'boolean' },
} as const;

export async function loadCommand(argv: string[]): Promise<number> {
  const { values, workload, ref, workloadOptions } = await parseWithWorkload('load', argv, LOAD_FLAGS);
  if (values.help) {
    console.log(`${LOAD_HELP}\n${workloadOptionsHelp(workload)}`);
    return 0;
  }
  const required = workload.options.find((o) => o.requiredToLoad && values[o.name] === undefined);
  if (required !== undefined) {
    const example = workload.name === 'tpcc' ? '' : ` --workload ${ref}`;
    throw new UsageError(
      `--${required.name} is required; e.g. \`txbench load${example} --${required.name} 10\``,
    );
  }
  const str = (k: string): string | undefined =>
    typeof values[k] === 'string' ? (values[k] as string) : undefined;
  const jobs = str('jobs') === undefined ? undefined : parseIntFlag('jobs', str('jobs')!, 1, 256);
  const seed = str('seed') === undefined ? undefined : parseIntFlag('seed', str('seed')!, 0, 2 ** 31 - 1);
  return withTarget(values, { create: true }, async (target) => {
    const result = await loadWorkload(
      workload,
      ref,
      target.url,
      { options: workloadOptions, jobs, seed, replace: values.replace === true },
      loadProgressPrinter(process.stderr),
    );
    if (process.stderr.isTTY) process.stderr.write('\n');
    console.log(`${formatLoadResult(result)} into ${target.spec.label}`);
    return 0;
  });
}

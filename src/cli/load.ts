import { UsageError } from '../errors.js';
import { formatLoadResult, loadProgressPrinter } from '../report/load-progress.js';
import { loadTpcc } from '../workloads/tpcc/loader.js';
import { parseCommand, parseIntFlag, TARGET_OPTIONS } from './args.js';
import { withTarget } from './target.js';

export const LOAD_HELP = `txbench load --warehouses N [options]

Creates the TPC-C tables and loads N warehouses.
  --warehouses N   scale (required), 1 or more
  --jobs J         parallel generator/COPY streams (default: CPU count)
  --seed S         random seed, for a reproducible population
  --replace        drop an existing (or interrupted) TPC-C schema first
  --db URL         postgres://, mysql:// or mariadb://, sqlite:path, mssql:// or sqlserver://
                   (default: DATABASE_URL, PG*, else the embedded PostgreSQL)
  --data-dir DIR   embedded PostgreSQL data directory (default .txbench/pg)`;

export async function loadCommand(argv: string[]): Promise<number> {
  const { values } = parseCommand('load', argv, {
    ...TARGET_OPTIONS,
    warehouses: { type: 'string', short: 'w' },
    jobs: { type: 'string', short: 'j' },
    seed: { type: 'string' },
    replace: { type: 'boolean' },
  });
  if (values.help) {
    console.log(LOAD_HELP);
    return 0;
  }
  if (values.warehouses === undefined)
    throw new UsageError('--warehouses is required; e.g. `txbench load --warehouses 10`');
  const warehouses = parseIntFlag('warehouses', values.warehouses, 1, 1_000_000);
  const jobs = values.jobs === undefined ? undefined : parseIntFlag('jobs', values.jobs, 1, 256);
  const seed = values.seed === undefined ? undefined : parseIntFlag('seed', values.seed, 0, 2 ** 31 - 1);
  return withTarget(values, { create: true }, async (target) => {
    const result = await loadTpcc(
      target.url,
      { warehouses, jobs, seed, replace: values.replace },
      loadProgressPrinter(process.stderr),
    );
    if (process.stderr.isTTY) process.stderr.write('\n');
    console.log(`${formatLoadResult(result)} into ${target.spec.label}`);
    return 0;
  });
}

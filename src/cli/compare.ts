import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { formatComparison, formatVerdicts } from '../report/compare.js';
import { compareRuns, SORT_KEYS, type CompareRow, type SortKey } from '../report/compare-rows.js';
import type { TableFormat } from '../report/table.js';
import { costRows, formatCostTable, parseCosts } from '../report/cost.js';
import { TABLE_FORMATS } from '../report/table.js';
import { formatRepeat } from '../report/repeat-table.js';
import { readRepeatFile } from '../api.js';
import { collectRuns } from '../api.js';
import { parseWithOperands } from './positionals.js';

export const COMPARE_HELP = `txbench compare [RUN...] [options]

The reviewers' table across runs: label | TPS | avg response ms | device MB/s | device latency ms
| tpmC | p90 ms | p99 ms | status. The device columns add up the disks under each row (MB/s read
plus write; latency per I/O over reads and writes); n/a for runs without device figures.
Each RUN is a run directory, a run.json, or a results directory (all its runs); default: results.
The New-Order rate is headed tpmC only for runs at think-scale 1 with a standard mix; other runs'
is headed New-Orders/min (unpaced) at think-scale 0, (paced ×0.25) at a scaled think time, or
(non-standard mix). Completed runs are ranked first, the
others after them. A warning on stderr names each of warehouses, terminals, think-scale, mode,
workload, window and mix that differs between the rows.
Noise: TPS, the New-Order rate, avg and p99 response time show ± their 95% confidence interval
(from each run's own intervals, run.json summary.ci95). Each row is set against the first row
(with the default sort, the highest TPS): the difference ± sqrt(h1² + h2²) and a verdict,
faster, slower or "no difference detected" (a lower response time is faster; n/a for runs
without ci95). A line over the table names the figures on which the rows differ only by noise.
A repeated run (--repeat) gives a row
per repetition; named by its directory, its figures over the repetitions follow (mean ± 95% CI).
  --format F     text (default), markdown or csv (raw figures, fixed columns: tpmC only where it
                 is tpmC, New-Orders/min always and what it is, the device columns and each direction's IOPS,
                 MB/s and latency, think-scale, mix, status, run)
  --sort KEY     tps (default; highest first), tpmC (New-Orders/min), avg (lowest first) or label
  --cost FILE    also the drive-cost table from a YAML file with, per label, drivePrice (one
                 drive), drives, driveGB (one drive, raw) and protection (raid1, raid10, raid5,
                 raid6 or a usable fraction): cost per TPS, per raw GB, per usable GB and per
                 usable GB per TPS. With --format csv only the cost table is printed.
Exit codes: 0 ok; 2 bad usage, a run that cannot be read, or a run.json written by a newer
txbench (its schemaVersion is named: upgrade txbench).`;

export const COMPARE_FLAGS = {
  format: { type: 'string' },
  sort: { type: 'string' },
  cost: { type: 'string' },
} as const;

export async function compareCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseWithOperands('compare', argv, COMPARE_FLAGS);
  if (values.help) {
    console.log(COMPARE_HELP);
    return 0;
  }
  const format = oneOf('format', values.format ?? 'text', TABLE_FORMATS);
  const sort = oneOf('sort', values.sort ?? 'tps', SORT_KEYS) satisfies SortKey;
  const costs = values.cost === undefined ? undefined : parseCosts(await readText(values.cost), values.cost);

  const { runs, warnings } = await collectRuns(positionals.length > 0 ? positionals : ['results']);
  warnings.forEach((w) => console.error(`txbench compare: warning: ${w}`));
  const comparison = compareRuns(runs, sort);
  comparison.notes.forEach((n) => console.error(`txbench compare: note: ${n}`));
  comparison.warnings.forEach((w) => console.error(`txbench compare: warning: ${w}`));
  if (comparison.rows.length === 0) throw new UsageError('no run with a summary to compare');

  if (costs === undefined) {
    console.log(comparisonText(comparison.rows, format));
    if (format === 'text') await printRepeats(positionals);
    return 0;
  }
  const cost = costRows(comparison.rows, costs);
  cost.notes.forEach((n) => console.error(`txbench compare: note: ${n}`));
  if (format !== 'csv') console.log(comparisonText(comparison.rows, format) + '\n');
  console.log(formatCostTable(cost.rows, format));
  return 0;
}

/** The table, and in text and Markdown the noise line over it and the verdicts under it. */
function comparisonText(rows: readonly CompareRow[], format: TableFormat): string {
  if (format === 'csv') return formatComparison(rows, format);
  const { over, under } = formatVerdicts(rows, format);
  return [
    ...(over === undefined ? [] : [over, '']),
    formatComparison(rows, format),
    ...(under === undefined ? [] : ['', under]),
  ].join('\n');
}

/** A repeated run (--repeat) named by its parent directory: its figures over the repetitions, mean ± CI. */
async function printRepeats(args: readonly string[]): Promise<void> {
  for (const arg of args) {
    const file = await readRepeatFile(arg);
    if (file !== undefined)
      console.log(`\n${arg} (${file.of} --repeat ${file.requested}), ${formatRepeat(file)}`);
  }
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${flag} must be ${allowed.join(', ')}; not "${value}"`);
  }
  return value as T;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--cost ${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
}

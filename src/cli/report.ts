import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { parseCosts } from '../report/cost.js';
import { loadRuns } from '../report/html/load.js';
import { renderReportHtml } from '../report/html/page.js';
import { REPORT_FILE, reportInput } from '../report/html/report.js';
import { parseWithOperands } from './positionals.js';

export const REPORT_HELP = `txbench report RUN... [options]

One self-contained HTML file (charts, their numbers, the environment; opens offline) from run
directories, run.json files or results directories (every run in them). A run directory whose
run.json or intervals.ndjson is missing or damaged is drawn as far as it goes, and the page says
what is missing. With two runs or more, the comparison chart (TPS and avg response ms per run).
  --out FILE     where to write the page (default: report.html in the current directory)
  --cost FILE    also the drive-cost table (the YAML file of \`txbench compare --cost\`)
Exit codes: 0 ok; 2 bad usage or a path that cannot be read.`;

export const REPORT_FLAGS = {
  out: { type: 'string', short: 'o' },
  cost: { type: 'string' },
} as const;

export async function reportCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseWithOperands('report', argv, REPORT_FLAGS);
  if (values.help) {
    console.log(REPORT_HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('name at least one run directory or results directory');
  const costs = values.cost === undefined ? undefined : parseCosts(await readText(values.cost), values.cost);
  const runs = await loadRuns(positionals);
  for (const run of runs) run.missing.forEach((m) => console.error(`txbench report: warning: ${m}`));
  const out = values.out ?? REPORT_FILE;
  try {
    await writeFile(out, renderReportHtml(reportInput(runs, costs)));
  } catch (err) {
    throw new UsageError(
      `--out ${out}: cannot write (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  console.log(`report: ${path.resolve(out)}`);
  return 0;
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

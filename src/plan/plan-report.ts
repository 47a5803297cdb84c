/**
 * The plan's report, rewritten after each step and at the end: report.html (`txbench report` over
 * every run of the plan: the runs' charts, the steps and sweep charts, the comparison chart and,
 * with a cost file, the drive-cost table) and summary.md (each step's state and runs, then the
 * reviewers' table of `txbench compare --format markdown` over all runs and per target, with cost
 * per TPS and per usable GB when the plan names a cost file). report.html is the command's own
 * output; the tables are made by the functions `txbench compare` prints with, so they read as its.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import { compareRuns, type CompareRow } from '../report/compare-rows.js';
import { formatComparison, formatVerdicts } from '../report/compare.js';
import { costRows, formatCostTable, parseCosts, type CostEntry } from '../report/cost.js';
import { collectRuns } from '../results/store.js';
import { startTxbench } from './child.js';
import type { PlanState } from './plan-state.js';
import type { Plan } from './plan-types.js';

export const REPORT_HTML = 'report.html';
export const SUMMARY_MD = 'summary.md';

export async function writePlanReport(
  planDir: string,
  plan: Plan,
  state: PlanState,
  say: (line: string) => void,
): Promise<void> {
  const runs = state.steps.flatMap((s) => s.runDirs.map((d) => path.join(planDir, d)));
  const cost = plan.cost === undefined ? [] : ['--cost', plan.cost];
  const sections: string[] = [`# Plan ${plan.name}`, '', `Plan file: ${plan.file}`, '', stepTable(state)];
  if (runs.length > 0) {
    const html = await txbenchOutput(['report', ...runs, '--out', path.join(planDir, REPORT_HTML), ...cost]);
    if (html.code !== 0) say(`report.html not written (txbench report exit ${html.code})`);
    sections.push(...(await reviewersTables(runs, plan)));
  }
  const file = path.join(planDir, SUMMARY_MD);
  const temporary = `${file}.tmp-${process.pid}`;
  await writeFile(temporary, sections.join('\n') + '\n');
  await rename(temporary, file);
}

/** summary.md's tables: all runs, then each target's own rows, each with its costs. */
async function reviewersTables(runDirs: readonly string[], plan: Plan): Promise<string[]> {
  let rows: CompareRow[];
  let costs: Map<string, CostEntry> | undefined;
  try {
    rows = compareRuns((await collectRuns(runDirs)).runs).rows;
    if (plan.cost !== undefined) costs = parseCosts(await readFile(plan.cost, 'utf8'), plan.cost);
  } catch (err) {
    return ['', `(no comparison: ${errorMessage(err)})`];
  }
  if (rows.length === 0) return ['', '## All runs', '', '(no run with a summary yet)'];
  return targetGroups(rows, plan).flatMap(([title, mine]) => [
    '',
    `## ${title}`,
    '',
    markdownTable(mine, costs),
  ]);
}

/**
 * All rows, then the rows measured on each target alone: its steps, sweep values and runs, and its
 * own row of a run that drove several targets at once (their sum stays under all runs only).
 */
export function targetGroups(rows: readonly CompareRow[], plan: Plan): [string, CompareRow[]][] {
  const out: [string, CompareRow[]][] = [['All runs', [...rows]]];
  for (const target of plan.targets) {
    const label = String(target.label);
    const mine = rows.filter((r) => r.costLabels.length === 1 && r.costLabels[0] === label);
    if (mine.length > 0) out.push([`Target ${label}`, mine]);
  }
  return out;
}

/** As `txbench compare --format markdown [--cost FILE]` prints it. */
function markdownTable(
  rows: readonly CompareRow[],
  costs: ReadonlyMap<string, CostEntry> | undefined,
): string {
  const { over, under } = formatVerdicts(rows, 'markdown');
  return [
    ...(over === undefined ? [] : [over, '']),
    formatComparison(rows, 'markdown'),
    ...(under === undefined ? [] : ['', under]),
    ...(costs === undefined ? [] : ['', formatCostTable(costRows(rows, costs).rows, 'markdown')]),
  ].join('\n');
}

function stepTable(state: PlanState): string {
  const rows = state.steps.map((s, i) => {
    const runs = s.runDirs.length === 0 ? '' : s.runDirs.join('<br>');
    const earlier = s.earlier.length === 0 ? '' : s.earlier.join('<br>');
    return `| ${i + 1} | ${s.name} | ${s.command} | ${s.state} | ${s.exitCode ?? ''} | ${runs} | ${earlier} |`;
  });
  return [
    '| # | step | command | state | exit | runs | earlier attempts |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

async function txbenchOutput(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const child = startTxbench(args, (chunk) => {
    stdout += chunk;
  });
  return { code: await child.exited, stdout };
}

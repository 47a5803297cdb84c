/**
 * The plan's report, rewritten after each step and at the end: report.html (`txbench report` over
 * every run of the plan: the runs' charts, the steps and sweep charts, the comparison chart and,
 * with a cost file, the drive-cost table) and summary.md (each step's state and runs, then the
 * reviewers' table from `txbench compare` over all runs and per target, with cost per TPS and per
 * usable GB when the plan names a cost file). Both are the commands' own output, so the plan's
 * report reads exactly as theirs.
 */
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
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
    for (const [title, dirs] of groups(planDir, plan, state)) {
      const table = await txbenchOutput(['compare', ...dirs, '--format', 'markdown', ...cost]);
      sections.push(
        '',
        `## ${title}`,
        '',
        table.code === 0 ? table.stdout.trim() : '(no run with a summary yet)',
      );
    }
  }
  const file = path.join(planDir, SUMMARY_MD);
  const temporary = `${file}.tmp-${process.pid}`;
  await writeFile(temporary, sections.join('\n') + '\n');
  await rename(temporary, file);
}

/** All runs, then the runs of each target that steps ran on one at a time (their own directories). */
function groups(planDir: string, plan: Plan, state: PlanState): [string, string[]][] {
  const all = state.steps.flatMap((s) => s.runDirs.map((d) => path.join(planDir, d)));
  const out: [string, string[]][] = [['All runs', all]];
  for (const target of plan.targets) {
    const label = String(target.label);
    const mine = state.steps.flatMap((s) =>
      s.runDirs.filter((d) => d.split(path.sep)[2] === label).map((d) => path.join(planDir, d)),
    );
    if (mine.length > 0) out.push([`Target ${label}`, mine]);
  }
  return out;
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

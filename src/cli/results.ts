import { formatRunList, runListJson } from '../report/run-list.js';
import { listRuns, resolveRunDir, tagRun, untagRun } from '../api.js';
import { UsageError } from '../errors.js';
import { parseWithOperands } from './positionals.js';

export const RESULTS_HELP = `txbench results [DIR] [options]
txbench results tag RUN TAG...
txbench results untag RUN TAG...

Lists the runs in DIR (default: results), newest first: id, start time, label, status, TPS,
New-Orders per minute (headed tpmC only for runs at think-scale 1 with a standard mix), average
response time and tags. Tags are kept in tags.json beside a run's run.json.
  --tag T     only runs tagged T (repeat for several: all must match)
  --json      print the runs as JSON
RUN is a run directory, its run.json, or a run id in ./results.
Exit codes: 0 ok; 2 bad usage, or a run.json written by a newer txbench (upgrade txbench).`;

export const RESULTS_FLAGS = {
  tag: { type: 'string', multiple: true },
  json: { type: 'boolean' },
} as const;

export async function resultsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseWithOperands('results', argv, RESULTS_FLAGS);
  if (values.help) {
    console.log(RESULTS_HELP);
    return 0;
  }
  const [first, ...rest] = positionals;
  if (first === 'tag' || first === 'untag') return changeTags(first, rest);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest[0]}; name one results directory`);

  const dir = first ?? 'results';
  const { runs, warnings } = await listRuns(dir);
  warnings.forEach((w) => console.error(`txbench results: warning: ${w}`));
  const wanted = values.tag ?? [];
  const shown = runs.filter((r) => wanted.every((t) => r.tags.includes(t)));
  if (values.json) {
    console.log(JSON.stringify(runListJson(shown), null, 2));
  } else if (shown.length === 0) {
    console.log(wanted.length > 0 ? `no runs tagged ${wanted.join(' and ')} in ${dir}` : `no runs in ${dir}`);
  } else {
    console.log(formatRunList(shown));
  }
  return 0;
}

async function changeTags(action: 'tag' | 'untag', args: string[]): Promise<number> {
  const [run, ...tags] = args;
  if (run === undefined || tags.length === 0) {
    throw new UsageError(`usage: txbench results ${action} RUN TAG...`);
  }
  const dir = await resolveRunDir(run);
  const now = action === 'tag' ? await tagRun(dir, tags) : await untagRun(dir, tags);
  console.log(`${dir}: ${now.length > 0 ? `tags ${now.join(', ')}` : 'no tags'}`);
  return 0;
}

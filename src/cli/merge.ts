import { UsageError } from '../errors.js';
import { formatRunSummary, formatTargetsTable } from '../report/run-summary.js';
import { RunDirectory } from '../api.js';
import { readShardFile } from '../api.js';
import { mergeShardFiles } from '../api.js';
import { parseWithOperands } from './positionals.js';
import { RunSession, withoutHistograms } from '../api.js';
import { printedOutputs } from './run-outputs.js';

export const MERGE_HELP = `txbench merge DIR... --out DIR [--allow-partial]

Merges the run directories of one run's shards (\`txbench run --shard I/N\`, one per load machine)
into one run directory under --out, which results, compare and report read like any other: counts
and errors added, response times from the shards' histograms added together, intervals lined up on
wall-clock time, NOPM and TPM read once from shard 1's database counters (they count every
shard's work), the audit recomputed from every shard's tallies.
  --out DIR        results directory for the merged run directory (default results)
  --allow-partial  merge even with shards missing, whose window does not overlap the others' or
                   whose histograms are missing or do not hold every transaction they counted
                   (their counts added, response times from the other shards); the merged run
                   is marked partial (run.json summary.partial, every report); refused otherwise
  --json FILE      also write the merged report as JSON
DIR is a shard's run directory or its run.json. Shards that drove several --db targets are merged
per target, then added up as \`txbench run\` adds several targets.
Exit codes: 0 ok; 2 bad usage, shards of different runs, a missing or out-of-line shard, a
shard without readable histograms.`;

export const MERGE_FLAGS = {
  out: { type: 'string' },
  'allow-partial': { type: 'boolean' },
  json: { type: 'string' },
} as const;

export async function mergeCommand(argv: string[], commandLine?: string): Promise<number> {
  const { values, positionals } = parseWithOperands('merge', argv, MERGE_FLAGS);
  if (values.help) {
    console.log(MERGE_HELP);
    return 0;
  }
  if (positionals.length === 0)
    throw new UsageError('give the shards’ run directories, e.g. txbench merge shard-*/run-* --out merged');
  const files = await Promise.all(positionals.map(readShardFile));
  const merged = await mergeShardFiles(files, values['allow-partial'] === true);
  if (merged.partial !== undefined)
    console.error(`txbench merge: partial run: ${merged.partial}; merged with --allow-partial`);
  const out = values.out ?? 'results';
  const session = new RunSession(printedOutputs(undefined), commandLine);
  if (merged.kind === 'targets') {
    const runDir = await RunDirectory.create(out, new Date(String(merged.content.startedAt)), 'targets');
    for (const r of merged.reports)
      for (const interval of r.intervals)
        void runDir.appendInterval({ target: r.config.target, ...interval });
    console.log(formatTargetsTable(merged.reports, merged.summary));
    await session.saveResults(runDir, values.json, merged.content);
    return 0;
  }
  const { report } = merged;
  const runDir = await RunDirectory.create(out, new Date(report.startedAt), 'run');
  for (const interval of report.intervals) void runDir.appendInterval(interval);
  console.log(formatRunSummary(report));
  await session.saveResults(runDir, values.json, withoutHistograms(report), report.histograms);
  return 0;
}

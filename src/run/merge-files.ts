/**
 * Reads shards' run directories for `txbench merge` (run.json and histograms.json).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { RUN_SCHEMA_VERSION } from '../results/run-dir.js';
import { NewerRunError } from '../results/store.js';
import type { ShardRun, TargetsShardFile } from './shard-merge.js';
import type { RunReport } from '../results/run-file.js';

/** A shard's run directory or run.json: one target's run, or several targets' (kind `targets`). */
export type ShardFile =
  { kind: 'run'; run: ShardRun } | { kind: 'targets'; dir: string; file: TargetsShardFile };

/** A run directory or its run.json; a single run's histograms from histograms.json beside it. */
export async function readShardFile(given: string): Promise<ShardFile> {
  const isDir = await stat(given).then(
    (s) => s.isDirectory(),
    () => {
      throw new UsageError(`${given} does not exist; give a shard's run directory or its run.json`);
    },
  );
  const file = isDir ? path.join(given, 'run.json') : given;
  const dir = isDir ? given : path.dirname(given);
  const report = await readJson(file, given);
  if (typeof report !== 'object' || report === null || !('schemaVersion' in report)) {
    throw new UsageError(`${file} is not a txbench run.json; give a shard's run directory`);
  }
  const r = report as Omit<RunReport, 'status'> & { status: RunReport['status'] | 'running' };
  if (r.schemaVersion > RUN_SCHEMA_VERSION) throw new NewerRunError(file, r.schemaVersion);
  if (r.status === 'running') {
    throw new UsageError(`${file} is still running or crashed (status running); merge finished shards only`);
  }
  if ((r.kind as string) === 'targets') {
    return { kind: 'targets', dir: path.resolve(dir), file: report as unknown as TargetsShardFile };
  }
  const { histograms, unread } =
    r.histograms !== undefined && Object.keys(r.histograms).length > 0
      ? { histograms: r.histograms, unread: undefined }
      : await readHistograms(path.join(dir, 'histograms.json'));
  return {
    kind: 'run',
    run: {
      dir: path.resolve(dir),
      report: { ...r, status: r.status, histograms } as RunReport,
      ...(unread !== undefined ? { histogramsUnread: unread } : {}),
    },
  };
}

/**
 * A single run's histograms.json; what was wrong with it when it cannot be read, so that the
 * merge names it rather than leave the shard's response times out unsaid.
 */
async function readHistograms(
  file: string,
): Promise<{ histograms: Record<string, string>; unread: string | undefined }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      histograms: {},
      unread: code === 'ENOENT' ? 'no histograms.json' : `histograms.json unreadable (${code})`,
    };
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return { histograms: parsed as Record<string, string>, unread: undefined };
  } catch {
    // Told below, as any other content that is not the histograms' object.
  }
  return { histograms: {}, unread: 'histograms.json is not valid JSON' };
}

async function readJson(file: string, given: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`${given} has no run.json; give a shard's run directory or its run.json`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file} is not valid JSON; give a shard's run directory`);
  }
}

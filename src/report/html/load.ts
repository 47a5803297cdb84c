/**
 * Reads what the HTML report draws from run directories, as much as is there: a run killed
 * mid-way may lack run.json or have a cut-short intervals.ndjson; the report then draws what it
 * can and names what is missing, rather than refusing.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { NewerRunError, readRun, RUN_FILE, type RunRecord } from '../../results/store.js';
import { targetLabel, type IntervalRow } from './model.js';

export const INTERVALS_FILE = 'intervals.ndjson';
export const HISTOGRAMS_FILE = 'histograms.json';

export type { IntervalDevice, IntervalRow } from './model.js';

export interface LoadedRun {
  /** The run directory's name (or the file's name without `.json`). */
  id: string;
  dir: string;
  /** run.json as the store reads it; undefined when missing or unreadable. */
  record: RunRecord | undefined;
  /** run.json as written, for the fields the store does not type (environment, transactions). */
  raw: Record<string, unknown> | undefined;
  intervals: IntervalRow[];
  /** Each type's encoded HDR histogram; undefined when the file is absent. */
  histograms: Record<string, string> | undefined;
  /** One line per file that was missing or damaged, saying what the report lacks because of it. */
  missing: string[];
}

/**
 * The runs named on the command line: a run directory, a run.json, or a results directory (every
 * run directory in it). A path that does not exist or holds no run is a usage error.
 */
export async function loadRuns(args: readonly string[]): Promise<LoadedRun[]> {
  const runs: LoadedRun[] = [];
  for (const arg of args) {
    const info = await stat(arg).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(
        `${arg}: cannot read (${err.code ?? String(err)}); name a run directory, run.json or results directory`,
      );
    });
    if (info.isFile()) {
      runs.push(await loadRunDir(path.dirname(path.resolve(arg)), path.resolve(arg)));
    } else if (await isRunDir(arg)) {
      runs.push(await loadRunDir(path.resolve(arg)));
    } else if (info.isDirectory()) {
      const names = (await readdir(arg, { withFileTypes: true }).catch(() => []))
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
      const dirs: string[] = [];
      for (const name of names) if (await isRunDir(path.join(arg, name))) dirs.push(path.join(arg, name));
      if (dirs.length === 0) {
        throw new UsageError(
          `${arg}: no runs here (no ${RUN_FILE} or ${INTERVALS_FILE} in it or its subdirectories)`,
        );
      }
      for (const dir of dirs) runs.push(await loadRunDir(path.resolve(dir)));
    } else {
      throw new UsageError(`${arg}: not a run directory, run.json or results directory`);
    }
  }
  return runs;
}

/** Reads one run directory (or a run.json with its directory beside it), keeping what it can. */
export async function loadRunDir(dir: string, runFile = path.join(dir, RUN_FILE)): Promise<LoadedRun> {
  const missing: string[] = [];
  let record: RunRecord | undefined;
  let raw: Record<string, unknown> | undefined;
  if (await isFile(runFile)) {
    try {
      record = await readRun(runFile);
      raw = JSON.parse(await readFile(runFile, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof NewerRunError) throw err;
      missing.push(
        `${err instanceof Error ? err.message : String(err)}: no summary, environment or per-type figures`,
      );
    }
  } else {
    missing.push(
      `${runFile}: missing (the run ended before writing it): no summary, environment or per-type figures`,
    );
  }
  const intervals = await readIntervals(path.join(dir, INTERVALS_FILE), missing, raw);
  const histograms = await readHistograms(path.join(dir, HISTOGRAMS_FILE), missing, record);
  const id =
    path.basename(runFile) === RUN_FILE ? path.basename(dir) : path.basename(runFile).replace(/\.json$/i, '');
  return { id, dir, record, raw, intervals, histograms, missing };
}

async function readIntervals(
  file: string,
  missing: string[],
  raw: Record<string, unknown> | undefined,
): Promise<IntervalRow[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    // A run written with --json only, or a loose run.json: its intervals are inside it.
    const inside = raw?.intervals;
    if (Array.isArray(inside)) return inside.filter(isIntervalRow);
    missing.push(`${file}: missing: no figures over time`);
    return [];
  }
  const rows: IntervalRow[] = [];
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  lines.forEach((line, i) => {
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      row = undefined;
    }
    // Several targets' lines carry the progress prefix `[label]` as their target.
    if (isIntervalRow(row))
      rows.push(row.target === undefined ? row : { ...row, target: targetLabel(row.target) });
    else missing.push(`${file}: line ${i + 1} is damaged (cut short?): that interval is not drawn`);
  });
  return rows;
}

async function readHistograms(
  file: string,
  missing: string[],
  record: RunRecord | undefined,
): Promise<Record<string, string> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    // Only single runs write histograms.json.
    if (record === undefined || record.kind === 'run')
      missing.push(`${file}: missing: no percentile distributions`);
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      Object.values(parsed).every((v) => typeof v === 'string')
    ) {
      return parsed as Record<string, string>;
    }
  } catch {
    // reported below
  }
  missing.push(`${file}: damaged: no percentile distributions`);
  return undefined;
}

function isIntervalRow(v: unknown): v is IntervalRow {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.atS === 'number' && typeof r.tps === 'number' && typeof r.phase === 'string';
}

async function isRunDir(dir: string): Promise<boolean> {
  return (await isFile(path.join(dir, RUN_FILE))) || (await isFile(path.join(dir, INTERVALS_FILE)));
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isFile() ?? false;
}

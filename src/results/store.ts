/**
 * The results store: a directory of run directories, each holding the `run.json` that run-dir.ts
 * writes and, once tagged, a small `tags.json` (`{"tags": [...]}`) beside it; run.json is never
 * rewritten. Readers take only the fields they need; schema/run.schema.json documents the rest.
 *
 * Versions: a run.json newer than RUN_SCHEMA_VERSION is refused (NewerRunError, exit 2: upgrade
 * txbench), also inside a results directory, since a listing or comparison without it would be
 * silently incomplete. Version 1 files are read as they are: their fields mean the same, a single
 * run's `kind` (missing in version 1) is taken from the file's shape, and their `completed` may
 * cover a run whose drain gave up (version 1 had no `incomplete-drain`). Versions 1 and 2 have no
 * device figures (`summary.devices`): their reports show n/a there.
 */
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { summaryFromIntervals, type CrashedSummary } from './crashed.js';
import { REPEAT_FILE } from './repeat-file.js';
import { RUN_KINDS, RUN_SCHEMA_VERSION, type RunKind } from './run-dir.js';

const latencySchema = z.object({ avg: z.number(), p90: z.number(), p99: z.number() }).passthrough();
/** One disk over a window (schemaVersion 3): the per-direction figures the comparisons add up. */
const deviceSchema = z
  .object({
    name: z.string(),
    role: z.string(),
    readIops: z.number(),
    writeIops: z.number(),
    readMBps: z.number(),
    writeMBps: z.number(),
    readLatencyMs: z.number().nullable(),
    writeLatencyMs: z.number().nullable(),
  })
  .passthrough();
/** The summary figures the listings and comparisons read; the rest of a summary passes through. */
const summarySchema = z
  .object({
    tps: z.number(),
    tpmC: z.number().nullable().optional(),
    responseMs: latencySchema,
    devices: z.array(deviceSchema).optional(),
    monitor: z.object({ source: z.string() }).passthrough().optional(),
  })
  .passthrough();

/**
 * The conditions a run was measured under, as the reports read them (what its New-Order rate may
 * be called, and whether rows are comparable); a missing field is unknown. The rest passes through.
 */
const configSchema = z
  .object({
    target: z.string().optional(),
    warehouses: z.number().optional(),
    terminals: z.number().optional(),
    thinkScale: z.number().optional(),
    durationS: z.number().optional(),
    mode: z.string().optional(),
    deck: z.array(z.number()).optional(),
    nonstandardMix: z.boolean().optional(),
  })
  .passthrough();

/** The run report nested in each target, step or sweep value: its own status and conditions. */
const entryReportSchema = z
  .object({ status: z.string(), workload: z.string().optional(), config: configSchema.optional() })
  .passthrough();

const runFileSchema = z.object({
  schemaVersion: z.number().int().min(1),
  kind: z.enum(RUN_KINDS).optional(),
  status: z.string(),
  startedAt: z.string(),
  /** Who was writing it while it ran (absent once it finished, and in older files). */
  writer: z.object({ pid: z.number().int(), host: z.string() }).optional(),
  workload: z.string().optional(),
  config: configSchema.optional(),
  summary: summarySchema.optional(),
  targets: z
    .array(z.object({ label: z.string(), summary: summarySchema, report: entryReportSchema.optional() }))
    .optional(),
  steps: z
    .array(z.object({ users: z.number(), summary: summarySchema, report: entryReportSchema.optional() }))
    .optional(),
  sweep: z
    .array(
      z.object({
        setting: z.string(),
        value: z.union([z.string(), z.number(), z.boolean()]),
        summary: summarySchema,
        report: entryReportSchema.optional(),
      }),
    )
    .optional(),
});
type RunFile = z.infer<typeof runFileSchema>;

export type SummaryFigures = z.infer<typeof summarySchema>;
export type StoredConfig = z.infer<typeof configSchema>;
export type StoredEntryReport = z.infer<typeof entryReportSchema>;

/** A run.json written by a newer txbench: its fields may mean what this one does not know. */
export class NewerRunError extends UsageError {
  constructor(file: string, version: number) {
    super(
      `${file}: run.json schemaVersion ${version} is newer than this txbench reads (up to ${RUN_SCHEMA_VERSION}); upgrade txbench`,
    );
    this.name = 'NewerRunError';
  }
}

export interface RunRecord {
  /** The run directory. */
  path: string;
  /** The run.json read. */
  file: string;
  /** The run directory's name (or the file's name without `.json` for a loose file). */
  id: string;
  schemaVersion: number;
  kind: RunKind;
  startedAt: string;
  status: string;
  /** The workload's name (`tpcc`); undefined in files that do not say. */
  workload: string | undefined;
  /** The top-level config: a single run's conditions; for the other kinds, see each entry's report. */
  config: StoredConfig | undefined;
  /** The target's label (config.target); for several targets, their labels joined by ` + `. */
  label: string;
  tags: string[];
  /** Why tags.json could not be read (the run is still listed, without tags). */
  tagsError?: string | undefined;
  summary: SummaryFigures | undefined;
  targets: RunFile['targets'];
  steps: RunFile['steps'];
  sweep: RunFile['sweep'];
}

export interface RunListing {
  runs: RunRecord[];
  /** One line per run directory that could not be read, naming it and why. */
  warnings: string[];
}

export const RUN_FILE = 'run.json';
export const TAGS_FILE = 'tags.json';

/** Reads one run.json (any file name); a usage error naming the file if it is not a readable run. */
export async function readRun(file: string): Promise<RunRecord> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file}: not valid JSON (a run cut short, or not a run.json)`);
  }
  const version =
    typeof json === 'object' && json !== null ? (json as Record<string, unknown>).schemaVersion : undefined;
  if (typeof version === 'number' && Number.isInteger(version) && version > RUN_SCHEMA_VERSION) {
    throw new NewerRunError(file, version);
  }
  const parsed = runFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'top level';
    throw new UsageError(`${file}: not a txbench run (${where}: ${issue?.message ?? 'invalid'})`);
  }
  const run = parsed.data;
  if (run.schemaVersion >= 2 && run.kind === undefined) {
    throw new UsageError(`${file}: not a txbench run (kind: Required from schemaVersion 2)`);
  }
  const dir = path.dirname(path.resolve(file));
  const isRunJson = path.basename(file) === RUN_FILE;
  let tags: string[] = [];
  let tagsError: string | undefined;
  if (isRunJson) {
    try {
      tags = await readTags(dir);
    } catch (err) {
      tagsError = err instanceof Error ? err.message : String(err);
    }
  }
  const status = statusOf(run);
  const kind = run.kind ?? kindFromShape(run);
  // A run killed (or quit) before it finished has no summary: its flushed intervals stand in for one.
  const cutShort = status === 'crashed' || status === 'interrupted';
  const summary: SummaryFigures | undefined =
    run.summary ??
    (cutShort && isRunJson && kind === 'run' ? summaryFigures(await summaryFromIntervals(dir)) : undefined);
  return {
    path: dir,
    file: path.resolve(file),
    id: isRunJson ? path.basename(dir) : path.basename(file).replace(/\.json$/i, ''),
    schemaVersion: run.schemaVersion,
    kind,
    startedAt: run.startedAt,
    status,
    workload: run.workload,
    config: run.config,
    label: run.config?.target ?? run.targets?.map((t) => t.label).join(' + ') ?? '',
    tags,
    tagsError,
    summary,
    targets: run.targets,
    steps: run.steps,
    sweep: run.sweep,
  };
}

function summaryFigures(s: CrashedSummary | undefined): SummaryFigures | undefined {
  return s === undefined ? undefined : { ...s };
}

/**
 * A run.json still marked running by a process of this host that no longer exists was killed
 * before it could finish (SIGKILL, a power cut): crashed. Its intervals.ndjson holds what it measured.
 */
function statusOf(run: RunFile): string {
  if (run.status !== 'running' || run.writer === undefined || run.writer.host !== os.hostname())
    return run.status;
  try {
    process.kill(run.writer.pid, 0);
    return 'running';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'running' : 'crashed';
  }
}

/** Every run directly under `dir`, newest first; unreadable runs become warnings, never errors. */
export async function listRuns(dir: string): Promise<RunListing> {
  if (!(await isDirectory(dir))) {
    throw new UsageError(`no results directory "${dir}"; \`txbench run --out ${dir}\` writes runs there`);
  }
  const runs: RunRecord[] = [];
  const warnings: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const runDir = path.join(dir, entry.name);
    const file = path.join(runDir, RUN_FILE);
    if (!(await isFile(file))) {
      const names = await readdir(runDir).catch(() => [] as string[]);
      // A repeated run (--repeat): its repetitions are runs of this results directory too.
      if (names.includes(REPEAT_FILE)) {
        const repetitions = await listRuns(runDir);
        runs.push(...repetitions.runs);
        warnings.push(...repetitions.warnings);
        continue;
      }
      if (names.includes('intervals.ndjson')) {
        warnings.push(`${runDir}: no ${RUN_FILE} (the run ended before writing it); skipped`);
      }
      continue;
    }
    try {
      const run = await readRun(file);
      if (run.tagsError !== undefined) warnings.push(`${run.tagsError}; listed without tags`);
      runs.push(run);
    } catch (err) {
      if (err instanceof NewerRunError) throw err;
      warnings.push(`${err instanceof Error ? err.message : String(err)}; skipped`);
    }
  }
  return { runs: newestFirst(runs), warnings };
}

/**
 * The runs named on a command line: a run directory, a run.json (any name), or a results
 * directory (all its runs). A named run that cannot be read is a usage error; inside a results
 * directory it is a warning. A run named twice is read once.
 */
export async function collectRuns(args: readonly string[]): Promise<RunListing> {
  const runs: RunRecord[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  const add = (run: RunRecord): void => {
    if (seen.has(run.file)) return;
    seen.add(run.file);
    runs.push(run);
  };
  for (const arg of args) {
    if (await isFile(arg)) {
      add(await readRun(arg));
    } else if (await isFile(path.join(arg, RUN_FILE))) {
      add(await readRun(path.join(arg, RUN_FILE)));
    } else if (await isDirectory(arg)) {
      const listing = await listRuns(arg);
      if (listing.runs.length === 0 && listing.warnings.length === 0) {
        throw new UsageError(`${arg}: no runs here (no ${RUN_FILE} in it or its subdirectories)`);
      }
      listing.runs.forEach(add);
      warnings.push(...listing.warnings);
    } else {
      throw new UsageError(`${arg}: no such run directory, run.json or results directory`);
    }
  }
  return { runs, warnings };
}

/**
 * The run directory a user names: a path to it or to its run.json, or a run id inside the
 * default results directory.
 */
export async function resolveRunDir(arg: string, resultsDir = 'results'): Promise<string> {
  const candidates = [arg, path.join(resultsDir, arg)];
  for (const candidate of candidates) {
    if (path.basename(candidate) === RUN_FILE && (await isFile(candidate))) return path.dirname(candidate);
    if (await isFile(path.join(candidate, RUN_FILE))) return candidate;
  }
  throw new UsageError(`${arg}: not a run directory (no ${RUN_FILE} there or in ${resultsDir}/${arg})`);
}

/** Adds tags to a run (tags.json beside run.json); returns the run's tags. */
export function tagRun(runDir: string, tags: readonly string[]): Promise<string[]> {
  return updateTags(runDir, tags, (current) => [...new Set([...current, ...tags])]);
}

/** Removes tags from a run; returns the run's tags. */
export function untagRun(runDir: string, tags: readonly string[]): Promise<string[]> {
  return updateTags(runDir, tags, (current) => current.filter((t) => !tags.includes(t)));
}

/** A tag is one word: no spaces or commas, at most 100 characters. */
export function validateTag(tag: string): void {
  if (!/^[^\s,]{1,100}$/.test(tag)) {
    throw new UsageError(`tag "${tag}" must be one word (no spaces or commas), at most 100 characters`);
  }
}

export async function readTags(runDir: string): Promise<string[]> {
  const file = path.join(runDir, TAGS_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  try {
    const parsed = z.object({ tags: z.array(z.string()) }).safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.tags;
  } catch {
    // reported below
  }
  throw new UsageError(`${file}: not a tags file ({"tags": [...]}); fix or delete it`);
}

async function updateTags(
  runDir: string,
  tags: readonly string[],
  change: (current: string[]) => string[],
): Promise<string[]> {
  tags.forEach(validateTag);
  if (!(await isFile(path.join(runDir, RUN_FILE)))) {
    throw new UsageError(`${runDir}: not a run directory (no ${RUN_FILE})`);
  }
  const next = change(await readTags(runDir));
  const file = path.join(runDir, TAGS_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify({ tags: next }, null, 2) + '\n');
  await rename(temp, file);
  return next;
}

/** Version 1 named the kind of every file but a single run's. */
function kindFromShape(run: RunFile): RunKind {
  if (run.targets) return 'targets';
  if (run.steps) return 'steps';
  if (run.sweep) return 'sweep';
  return 'run';
}

function newestFirst(runs: RunRecord[]): RunRecord[] {
  const time = (r: RunRecord): number => {
    const t = Date.parse(r.startedAt);
    return Number.isNaN(t) ? -Infinity : t;
  };
  return runs.sort((a, b) => time(b) - time(a) || b.id.localeCompare(a.id));
}

async function isFile(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isFile() ?? false;
}

async function isDirectory(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

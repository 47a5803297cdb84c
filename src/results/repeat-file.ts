/**
 * A repeated measurement (`--repeat N`): a parent directory holding `repeat.json` (the aggregate,
 * documented in schema/repeat.schema.json) and one complete run directory per repetition,
 * `rep-1`, `rep-2`, …, each with its own run.json of the command's kind (run, steps or sweep).
 * Every figure of repeat.json is the mean of its repetitions' values with Student's t 95% interval
 * over them, their minimum and maximum, and each value in repetition order.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../errors.js';

export const REPEAT_FILE = 'repeat.json';

/** The version of repeat.json's shape; readers refuse newer ones. */
export const REPEAT_SCHEMA_VERSION = 1;

/** A repetition's run directory inside the parent: `rep-1` for the first. */
export const repetitionDirName = (index: number): string => `rep-${index}`;

/** One figure over the repetitions. */
export interface RepeatedFigure {
  /** Stable key: `tps`, `figure:tpmC`, `avgMs`, `p99Ms`, `type:newOrder:avgMs`. */
  key: string;
  /** What the reports call it (`TPS`, `New-Order avg ms`). */
  label: string;
  unit: string;
  /**
   * The workload's headline figure is called by its spec name only for paced runs with a standard
   * mix (results/new-order-rate.ts); the readers decide the words.
   */
  pacedSpec?: boolean | undefined;
  mean: number;
  /** Half width of the 95% interval of the mean (Student's t over the repetitions); null below 2. */
  halfWidth: number | null;
  min: number;
  max: number;
  /** Each repetition's value, in order; null where a repetition did not have the figure. */
  values: (number | null)[];
}

/** The figures of one measurement over the repetitions: the run, one step, or one sweep value. */
export interface RepeatedGroup {
  /** The target (run), `N users` (steps) or `setting=value` (sweep). */
  label: string;
  users?: number | undefined;
  setting?: string | undefined;
  value?: string | undefined;
  figures: RepeatedFigure[];
}

export interface RepetitionEntry {
  index: number;
  /** Its run directory, relative to the parent. */
  dir: string;
  status: string;
}

export interface RepeatFile {
  schemaVersion: number;
  kind: 'repeat';
  /** Which command was repeated: its repetitions' run.json are of this kind. */
  of: 'run' | 'steps' | 'sweep';
  /** completed when every repetition asked for completed; else the first other status. */
  status: string;
  startedAt: string;
  endedAt: string;
  workload?: string | undefined;
  /** Repetitions asked for (`--repeat N`); `repetitions` holds those measured. */
  requested: number;
  /** The database was loaded again before each repetition (`--reload`). */
  reload: boolean;
  /** The conditions the reports need (think-scale, mix), from the first repetition. */
  config?:
    { target?: string | undefined; thinkScale?: number | undefined; nonstandardMix?: boolean } | undefined;
  repetitions: RepetitionEntry[];
  groups: RepeatedGroup[];
  commandLine?: string | undefined;
}

const figureSchema = z
  .object({
    key: z.string(),
    label: z.string(),
    unit: z.string(),
    pacedSpec: z.boolean().optional(),
    mean: z.number(),
    halfWidth: z.number().nullable(),
    min: z.number(),
    max: z.number(),
    values: z.array(z.number().nullable()),
  })
  .passthrough();

const repeatFileSchema = z
  .object({
    schemaVersion: z.number().int().min(1),
    kind: z.literal('repeat'),
    of: z.enum(['run', 'steps', 'sweep']),
    status: z.string(),
    startedAt: z.string(),
    endedAt: z.string(),
    workload: z.string().optional(),
    requested: z.number().int().min(1),
    reload: z.boolean(),
    config: z
      .object({
        target: z.string().optional(),
        thinkScale: z.number().optional(),
        nonstandardMix: z.boolean().optional(),
      })
      .passthrough()
      .optional(),
    repetitions: z.array(z.object({ index: z.number().int(), dir: z.string(), status: z.string() })),
    groups: z.array(
      z
        .object({
          label: z.string(),
          users: z.number().optional(),
          setting: z.string().optional(),
          value: z.string().optional(),
          figures: z.array(figureSchema),
        })
        .passthrough(),
    ),
    commandLine: z.string().optional(),
  })
  .passthrough();

/** The repeat.json of a parent directory, or undefined when `dir` holds none. */
export async function readRepeatFile(dir: string): Promise<RepeatFile | undefined> {
  const file = path.join(dir, REPEAT_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file}: not valid JSON (a repeated run cut short?)`);
  }
  const version = (json as { schemaVersion?: unknown }).schemaVersion;
  if (typeof version === 'number' && version > REPEAT_SCHEMA_VERSION) {
    throw new UsageError(
      `${file}: repeat.json schemaVersion ${version} is newer than this txbench reads (up to ${REPEAT_SCHEMA_VERSION}); upgrade txbench`,
    );
  }
  const parsed = repeatFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `${file}: not a repeat.json (${issue?.path.join('.') ?? ''} ${issue?.message ?? ''})`,
    );
  }
  return parsed.data as RepeatFile;
}

/**
 * A run directory: `run.json` (schema-versioned, the single source for every report),
 * `intervals.ndjson` appended while the run goes (so a crash or Ctrl-C keeps what was measured),
 * and `histograms.json` with each type's encoded HDR histogram.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The version of run.json's shape, documented in schema/run.schema.json; readers refuse newer ones.
 * 2: every file names its `kind` (run, targets, steps, sweep); a single run's encoded histograms are
 * only in histograms.json; a run whose drain gave up is `incomplete-drain`, not `completed`.
 * 3: monitoring figures, all optional: each interval's `devices`, `host`, `database` and `missing`,
 * each summary's `devices` (per disk over the window), `host`, `database` and `monitor`.
 */
export const RUN_SCHEMA_VERSION = 3;

/** What a run.json holds: one measurement, several targets at once, user-count steps, or a sweep. */
export const RUN_KINDS = ['run', 'targets', 'steps', 'sweep'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export class RunDirectory {
  private constructor(readonly dir: string) {}

  /** Creates `parent/run-YYYYMMDD-HHMMSS` (with a suffix if that exists). */
  static async create(parent: string, startedAt: Date): Promise<RunDirectory> {
    const stamp = startedAt.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    for (let n = 0; ; n++) {
      const dir = path.resolve(parent, `run-${stamp}${n ? `-${n}` : ''}`);
      try {
        await mkdir(path.dirname(dir), { recursive: true });
        await mkdir(dir);
        return new RunDirectory(dir);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
  }

  writeRun(run: unknown): Promise<void> {
    return writeJson(path.join(this.dir, 'run.json'), run);
  }

  appendInterval(interval: unknown): Promise<void> {
    return appendFile(path.join(this.dir, 'intervals.ndjson'), JSON.stringify(interval) + '\n');
  }

  writeHistograms(histograms: Record<string, string>): Promise<void> {
    return writeJson(path.join(this.dir, 'histograms.json'), histograms);
  }
}

export function writeJson(file: string, value: unknown): Promise<void> {
  return writeFile(file, JSON.stringify(value, null, 2) + '\n');
}

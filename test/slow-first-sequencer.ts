/**
 * Orders the integration files so that the slowest start first. Two files run side by side: a
 * slow file started last keeps one worker busy long after the other has run out of files. Vitest
 * orders by the durations it cached from earlier runs, but CI runs on a fresh clone with no cache,
 * where vitest falls back to file size, which puts e.g. repeat (63 s, 144 lines) near the end.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files measured slowest in CI (seconds, fresh clone, 2026-12-04), slowest first. A file not
 * listed keeps vitest's own order after these; a renamed one simply loses its head start.
 */
const SLOWEST_FIRST = [
  'shards.test.ts',
  'workers.test.ts',
  'report-browser.test.ts',
  'repeat.test.ts',
  'faults-disk-db.test.ts',
  'window-edges.test.ts',
  'faults-disk-mariadb.test.ts',
  'compare-verdict.test.ts',
];

const rank = (spec: TestSpecification): number => {
  const i = SLOWEST_FIRST.indexOf(path.basename(spec.moduleId));
  return i === -1 ? SLOWEST_FIRST.length : i;
};

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Within each project's run of files only: groups and projects keep vitest's order, and
    // (the sort being stable) so do the files not listed.
    const runs: TestSpecification[][] = [];
    for (const spec of await super.sort(files)) {
      const last = runs.at(-1);
      if (last !== undefined && last[0]!.project.name === spec.project.name) last.push(spec);
      else runs.push([spec]);
    }
    return runs.flatMap((run) => run.sort((a, b) => rank(a) - rank(b)));
  }
}

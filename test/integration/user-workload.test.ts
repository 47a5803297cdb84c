/**
 * The example user workload (examples/kv.ts, TypeScript loaded through jiti, importing `txbench`)
 * loaded and run through the CLI on the embedded PostgreSQL, MariaDB and SQLite, as docs/workloads.md shows.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialectFor } from '../../dist/dialects/for-url.js';
import { makeTempDir, removeDir, REPO_ROOT, runCli } from './helpers.js';
import { dialectsUnderTest, startTestTarget, type TestTarget } from './targets/index.js';

const KV = path.join(REPO_ROOT, 'examples', 'kv.ts');

for (const name of dialectsUnderTest()) {
  describe(`examples/kv.ts on ${name}`, () => {
    let target: TestTarget;
    let dir: string;

    beforeAll(async () => {
      target = await startTestTarget(name);
      dir = await makeTempDir();
    });
    afterAll(async () => {
      await target?.stop();
      await removeDir(dir);
    });

    it('loads, then runs its weighted Get and Put for 5 s', async () => {
      const load = await runCli(
        dir,
        ['load', '--db', target.url, '--workload', KV, '--keys', '20000'],
        120_000,
      );
      expect(load.code, load.stderr).toBe(0);
      expect(load.stdout).toMatch(/loaded 20,000 keys/);
      const run = await runCli(
        dir,
        ['run', '--db', target.url, '--workload', KV, '--duration', '5s', '--warmup', '1s', '--no-monitor'],
        120_000,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^\s*Get\s+[\d,]+\s+\d/m);
      expect(run.stdout).toMatch(/^\s*Put\s+[\d,]+\s+\d/m);
      const dialect = await dialectFor(target.url);
      const db = await dialect.connect(target.url, { max: 1 });
      try {
        const [row] = await db.query<{ n: unknown; puts: unknown }>(
          'select count(*) as n, sum(version) as puts from kv',
        );
        expect(Number(row?.n)).toBe(20_000);
        expect(Number(row?.puts)).toBeGreaterThan(0);
      } finally {
        await db.close();
      }
    });
  });
}

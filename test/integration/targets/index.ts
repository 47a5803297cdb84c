/**
 * A fresh, empty database of each kind for the shared dialect suite. An environment variable
 * (TXBENCH_<DIALECT>_URL) points a dialect at an existing server instead.
 */
import path from 'node:path';
import { makeTempDir, removeDir, startTempServer } from '../helpers.js';

import type { TestTarget } from './test-target.js';

export type { TestTarget } from './test-target.js';

export type DialectName = 'postgres' | 'mysql' | 'sqlite';

export const ALL_DIALECTS: readonly DialectName[] = ['postgres', 'mysql', 'sqlite'];

/** TXBENCH_DIALECTS=postgres,sqlite narrows the suite; all of them by default. */
export function dialectsUnderTest(): DialectName[] {
  const wanted = process.env.TXBENCH_DIALECTS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!wanted || wanted.length === 0) return [...ALL_DIALECTS];
  const unknown = wanted.filter((w) => !ALL_DIALECTS.includes(w as DialectName));
  if (unknown.length > 0)
    throw new Error(`TXBENCH_DIALECTS: unknown ${unknown.join(', ')}; use ${ALL_DIALECTS.join(',')}`);
  return wanted as DialectName[];
}

export async function startTestTarget(name: DialectName): Promise<TestTarget> {
  const override = process.env[`TXBENCH_${name.toUpperCase()}_URL`];
  if (override) return { url: override, stop: async () => undefined };
  switch (name) {
    case 'postgres': {
      const pg = await startTempServer();
      return { url: pg.url, stop: () => pg.stop() };
    }
    case 'sqlite': {
      const dir = await makeTempDir('txbench-sqlite-');
      return { url: `sqlite:${path.join(dir, 'tpcc.db')}`, stop: () => removeDir(dir) };
    }
    case 'mysql':
      return (await import('./mariadb.js')).startMariaDb();
  }
}

import type { TestTarget } from './index.js';

/** Placeholder until the MariaDB test server lands. */
export async function startMariaDb(): Promise<TestTarget> {
  throw new Error('the MariaDB test server is not built yet');
}

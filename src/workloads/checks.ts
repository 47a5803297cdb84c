/** `txbench check` for any workload: its consistency checks on what is loaded. */
import { dialectFor } from '../dialects/for-url.js';
import { UsageError } from '../errors.js';
import { loadState } from './load-record.js';
import { checkDialect } from './loader.js';
import { loadCommandHint } from './presence.js';
import type { CheckResult, Workload } from './workload.js';

/** The workload's checks; `afterLoad` adds those that hold only right after a load. */
export async function checkWorkload(
  workload: Workload,
  url: string,
  afterLoad: boolean,
): Promise<CheckResult[]> {
  if (workload.check === undefined)
    throw new UsageError(`the ${workload.name} workload has no consistency checks`);
  const dialect = await dialectFor(url);
  checkDialect(workload, dialect);
  const db = await dialect.connect(url, { max: dialect.capabilities.concurrentWriters ? 2 : 1 });
  try {
    const state = await loadState(workload, dialect, db);
    if (state.kind === 'empty')
      throw new UsageError(`nothing is loaded here; run \`${loadCommandHint(workload)}\` first`);
    if (state.kind === 'interrupted') {
      throw new UsageError(
        `the last load was interrupted; run \`${loadCommandHint(workload)} --replace\` to start again`,
      );
    }
    return await workload.check(db, dialect, state, afterLoad);
  } finally {
    await db.close();
  }
}

import { UsageError } from '../../errors.js';
import {
  consistencyConditions,
  LOAD_ONLY_CONDITION,
  populationChecks,
  runChecks,
  type CheckResult,
} from './check.js';
import { schemaState } from './meta.js';
import { tpccDialectFor } from './tpcc-dialect.js';

/** The consistency conditions, plus condition 11 and the population checks right after a load. */
export async function checkDatabase(url: string, afterLoad: boolean): Promise<CheckResult[]> {
  const { dialect } = await tpccDialectFor(url);
  const db = await dialect.connect(url, { max: dialect.capabilities.concurrentWriters ? 2 : 1 });
  try {
    const state = await schemaState(dialect, db);
    if (state.kind === 'empty')
      throw new UsageError('nothing is loaded here; run `txbench load --warehouses N` first');
    if (state.kind === 'interrupted') {
      throw new UsageError(
        'the last load was interrupted; run `txbench load --replace --warehouses N` to start again',
      );
    }
    const checks = consistencyConditions(dialect.sql);
    if (afterLoad) {
      // The population checks need the loaded scale, which only a valid load record gives.
      if (state.kind === 'corrupt') throw new UsageError(state.message);
      if (state.kind !== 'loaded') throw new UsageError('--after-load needs a database that txbench loaded');
      checks.push(LOAD_ONLY_CONDITION, ...populationChecks(dialect.sql, state.meta.warehouses));
    }
    return await runChecks(db, checks);
  } finally {
    await db.close();
  }
}

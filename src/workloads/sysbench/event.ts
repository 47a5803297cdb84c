/**
 * One sysbench event (transaction) through the portable Session, statement for statement as
 * oltp_common.lua's `execute_*` functions issue them: each kind of statement picks its table
 * uniformly once, then draws its ids from `--rand-type`; ranges run from id to id + range-size - 1;
 * `c` and `pad` values are fresh random digit strings.
 */
import type { Session } from '../../dialects/connections.js';
import type { Rng } from '../../random/rng.js';
import { C_TEMPLATE, PAD_TEMPLATE, randString, uniform, type RandFn } from './rand.js';
import type { Plan, TableStatements } from './scripts.js';

export interface EventSetup {
  readonly plan: Plan;
  /** Statements of sbtest1..N, index 0 for sbtest1. */
  readonly tables: readonly TableStatements[];
  readonly tableSize: number;
  readonly rangeSize: number;
  /** `sysbench.rand.default`: the `--rand-type` distribution. */
  readonly rand: RandFn;
}

// One buffer each for the random strings: filled and read without an await between, so the
// slots' interleaved events never see each other's bytes.
const cBuf = Buffer.alloc(C_TEMPLATE.length);
const padBuf = Buffer.alloc(PAD_TEMPLATE.length);

const cValue = (rng: Rng): string => randString(rng, C_TEMPLATE, cBuf);
const padValue = (rng: Rng): string => randString(rng, PAD_TEMPLATE, padBuf);

export async function runEvent(s: Session, rng: Rng, e: EventSetup): Promise<void> {
  const plan = e.plan;

  if (plan.trx) await s.begin();
  if (plan.pointSelects > 0) {
    const t = table(rng, e);
    for (let i = 0; i < plan.pointSelects; i++) await s.query(t.pointSelect, [id(rng, e)]);
  }
  if (plan.simpleRanges > 0) await ranges(s, rng, e, table(rng, e).simpleRange, plan.simpleRanges);
  if (plan.sumRanges > 0) await ranges(s, rng, e, table(rng, e).sumRange, plan.sumRanges);
  if (plan.orderRanges > 0) await ranges(s, rng, e, table(rng, e).orderRange, plan.orderRanges);
  if (plan.distinctRanges > 0) await ranges(s, rng, e, table(rng, e).distinctRange, plan.distinctRanges);
  if (plan.indexUpdates > 0) {
    const t = table(rng, e);
    for (let i = 0; i < plan.indexUpdates; i++) await s.execute(t.indexUpdate, [id(rng, e)]);
  }
  if (plan.nonIndexUpdates > 0) {
    const t = table(rng, e);
    for (let i = 0; i < plan.nonIndexUpdates; i++)
      await s.execute(t.nonIndexUpdate, [cValue(rng), id(rng, e)]);
  }
  if (plan.deleteInserts > 0) {
    const t = table(rng, e);
    for (let i = 0; i < plan.deleteInserts; i++) {
      const row = id(rng, e);
      const k = id(rng, e);
      await s.execute(t.delete, [row]);
      await s.execute(t.insert, [row, k, cValue(rng), padValue(rng)]);
    }
  }
  if (plan.deletes > 0) {
    const t = table(rng, e);
    await s.execute(t.delete, [id(rng, e)]);
  }
  if (plan.inserts > 0) {
    const t = table(rng, e);
    await s.execute(t.insertNew, [id(rng, e), cValue(rng), padValue(rng)]);
  }
  if (plan.trx) await s.commit();
}

/** `get_table_num()`: sbtest1..N uniformly. */
function table(rng: Rng, e: EventSetup): TableStatements {
  return e.tables[uniform(rng, 1, e.tables.length) - 1]!;
}

/** `get_id()`: 1..table-size from `--rand-type`. */
function id(rng: Rng, e: EventSetup): number {
  return e.rand(rng, 1, e.tableSize);
}

async function ranges(s: Session, rng: Rng, e: EventSetup, sql: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const from = id(rng, e);
    await s.query(sql, [from, from + e.rangeSize - 1]);
  }
}

/**
 * sysbench 1.0.20's OLTP scripts (/usr/share/sysbench/oltp_*.lua) as plans: how many statements of
 * each kind one event (transaction) issues, in oltp_common.lua's order, and whether it runs inside
 * BEGIN/COMMIT. The SQL text is oltp_common.lua's `stmt_defs`, with this database's placeholders.
 */

export const SCRIPTS = [
  'oltp_read_write',
  'oltp_read_only',
  'oltp_write_only',
  'oltp_point_select',
  'oltp_update_index',
  'oltp_update_non_index',
  'oltp_insert',
  'oltp_delete',
] as const;
export type ScriptName = (typeof SCRIPTS)[number];

/** The statement-count options every script reads (oltp_common.lua's defaults). */
export interface CountOptions {
  pointSelects: number;
  simpleRanges: number;
  sumRanges: number;
  orderRanges: number;
  distinctRanges: number;
  indexUpdates: number;
  nonIndexUpdates: number;
  deleteInserts: number;
  skipTrx: boolean;
}

/** One event's statements, by kind, in the order they run. */
export interface Plan {
  /** BEGIN first and COMMIT last. */
  trx: boolean;
  pointSelects: number;
  simpleRanges: number;
  sumRanges: number;
  orderRanges: number;
  distinctRanges: number;
  indexUpdates: number;
  nonIndexUpdates: number;
  /** DELETE then INSERT of the same id, this many times (oltp_read_write, oltp_write_only). */
  deleteInserts: number;
  /** oltp_delete's lone DELETE. */
  deletes: number;
  /** oltp_insert's lone INSERT of a new row. */
  inserts: number;
}

const NONE: Plan = {
  trx: false,
  pointSelects: 0,
  simpleRanges: 0,
  sumRanges: 0,
  orderRanges: 0,
  distinctRanges: 0,
  indexUpdates: 0,
  nonIndexUpdates: 0,
  deleteInserts: 0,
  deletes: 0,
  inserts: 0,
};

export function planOf(script: ScriptName, o: CountOptions): Plan {
  const reads = {
    pointSelects: o.pointSelects,
    simpleRanges: o.simpleRanges,
    sumRanges: o.sumRanges,
    orderRanges: o.orderRanges,
    distinctRanges: o.distinctRanges,
  };
  const writes = {
    indexUpdates: o.indexUpdates,
    nonIndexUpdates: o.nonIndexUpdates,
    deleteInserts: o.deleteInserts,
  };
  const trx = !o.skipTrx;
  switch (script) {
    case 'oltp_read_write':
      return { ...NONE, trx, ...reads, ...writes };
    case 'oltp_read_only':
      return { ...NONE, trx, ...reads };
    case 'oltp_write_only':
      return { ...NONE, trx, ...writes };
    // oltp_point_select.lua sets point_selects=1 whatever was given; the single-statement
    // scripts never begin a transaction.
    case 'oltp_point_select':
      return { ...NONE, pointSelects: 1 };
    case 'oltp_update_index':
      return { ...NONE, indexUpdates: o.indexUpdates };
    case 'oltp_update_non_index':
      return { ...NONE, nonIndexUpdates: o.nonIndexUpdates };
    case 'oltp_delete':
      return { ...NONE, deletes: 1 };
    case 'oltp_insert':
      return { ...NONE, inserts: 1 };
  }
}

/** Statements per event as sysbench counts them: reads (SELECT), writes (UPDATE, DELETE, INSERT), other (BEGIN, COMMIT). */
export interface StatementCounts {
  reads: number;
  writes: number;
  other: number;
}

export function countsOf(plan: Plan): StatementCounts {
  return {
    reads: plan.pointSelects + plan.simpleRanges + plan.sumRanges + plan.orderRanges + plan.distinctRanges,
    writes: plan.indexUpdates + plan.nonIndexUpdates + 2 * plan.deleteInserts + plan.deletes + plan.inserts,
    other: plan.trx ? 2 : 0,
  };
}

/** One table's statements, as oltp_common.lua's `stmt_defs` spell them. */
export interface TableStatements {
  pointSelect: string;
  simpleRange: string;
  sumRange: string;
  orderRange: string;
  distinctRange: string;
  indexUpdate: string;
  nonIndexUpdate: string;
  delete: string;
  insert: string;
  /** oltp_insert's: the database numbers the row (sysbench's auto_inc default). */
  insertNew: string;
}

/** `p(i)` spells the i-th placeholder (`$1` on PostgreSQL, `?` elsewhere). */
export function tableStatements(table: number, p: (i: number) => string): TableStatements {
  const t = `sbtest${table}`;
  return {
    pointSelect: `SELECT c FROM ${t} WHERE id=${p(1)}`,
    simpleRange: `SELECT c FROM ${t} WHERE id BETWEEN ${p(1)} AND ${p(2)}`,
    sumRange: `SELECT SUM(k) FROM ${t} WHERE id BETWEEN ${p(1)} AND ${p(2)}`,
    orderRange: `SELECT c FROM ${t} WHERE id BETWEEN ${p(1)} AND ${p(2)} ORDER BY c`,
    distinctRange: `SELECT DISTINCT c FROM ${t} WHERE id BETWEEN ${p(1)} AND ${p(2)} ORDER BY c`,
    indexUpdate: `UPDATE ${t} SET k=k+1 WHERE id=${p(1)}`,
    nonIndexUpdate: `UPDATE ${t} SET c=${p(1)} WHERE id=${p(2)}`,
    delete: `DELETE FROM ${t} WHERE id=${p(1)}`,
    insert: `INSERT INTO ${t} (id, k, c, pad) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`,
    insertNew: `INSERT INTO ${t} (k, c, pad) VALUES (${p(1)}, ${p(2)}, ${p(3)})`,
  };
}

/** oltp_common.lua's default `--range-size`: a range select's rows. */
export const DEFAULT_RANGE_SIZE = 100;

/** oltp_common.lua's defaults for the statement counts (what sysbench runs without options). */
export const DEFAULT_COUNTS: CountOptions = {
  pointSelects: 10,
  simpleRanges: 1,
  sumRanges: 1,
  orderRanges: 1,
  distinctRanges: 1,
  indexUpdates: 1,
  nonIndexUpdates: 1,
  deleteInserts: 1,
  skipTrx: false,
};

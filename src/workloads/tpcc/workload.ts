/**
 * TPC-C as a workload (workloads/workload.ts): the five transactions of clause 2 with the spec's
 * deck, keying and think times; warehouses as the scale; the load of clause 4.3; the consistency
 * conditions of clause 3.3.2; tpmC (paced runs only), NOPM and the audit of clause 5.5.1.5.
 */
import { z } from 'zod';
import type { Db } from '../../dialects/dialect.js';
import { UsageError } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import { defineWorkload, type HeadlineFigure, type LoadContext, type LoadState } from '../workload.js';
import { tpccHome, type TpccRunState, type TpccTerminal } from './bodies.js';
import { consistencyConditions, LOAD_ONLY_CONDITION, populationChecks, runChecks } from './check.js';
import { loadPools } from './copy-buffer.js';
import { TASK_TABLES, taskStreams, type GenerateContext, type LoadTask as TpccTask } from './generate.js';
import { schemaState } from './meta.js';
import {
  MIX_MINIMUMS,
  NEW_ORDER,
  newTpccCounters,
  P90_LIMITS_MS,
  TPCC_DECK,
  TPCC_TRANSACTIONS,
  type TpccCounters,
} from './profile.js';
import { randomLoadConstants, runConstants, type NurandConstants } from './random.js';
import { TPCC_TABLES } from './schema.js';
import { auditChecks, measurementFigures } from './summary.js';
import { mergeTpccShards, nextOrderIdsBasis, SHARD_AUDIT_NOTE, wholeRunAudit } from './shards.js';
import { tpccDialectFor } from './tpcc-dialect.js';

export const DISCLAIMER =
  'Workload derived from TPC-C; not a TPC-C implementation and not comparable with published TPC-C results.';

/** Warehouses loaded when `txbench run` finds txbench's own server empty. */
export const DEFAULT_RUN_WAREHOUSES = 2;

export interface TpccOptions {
  readonly [key: string]: number | string | boolean | undefined;
  /** Active warehouses at run time (default: all loaded); the scale to load. */
  warehouses?: number | undefined;
  procedures?: boolean | undefined;
}

/** What the load record keeps beside its status, seed and times (as txbench has always written it). */
export interface TpccRecord {
  warehouses: number;
  /** The NURand constants used at load; C_LAST's constrains the run-time one. */
  loadConstants: NurandConstants;
}

const whole = (min: number, max: number) => z.number().int().min(min).max(max);
const recordSchema = z.object({
  warehouses: whole(1, Number.MAX_SAFE_INTEGER),
  // The ranges of clause 2.1.6: a constant outside them would skew every NURand draw.
  loadConstants: z.object({ cLast: whole(0, 255), cId: whole(0, 1023), olIId: whole(0, 8191) }),
});

type Task = TpccTask & { unit?: number };

/** Approximate COPY text bytes per warehouse and for ITEM, for progress and ETA only. */
const BYTES_PER_WAREHOUSE = 69_000_000;
const ITEM_BYTES = 5_400_000;
/** Binary COPY bytes ÷ text ones, measured over ITEM and one warehouse's tables. */
const BINARY_TO_TEXT_BYTES = 1.32;

/** Committed New-Orders so far, as the spec's NOPM counts them: sum(D_NEXT_O_ID) over active warehouses. */
async function sumNextOrderIds(db: Db, warehouses: number): Promise<number | undefined> {
  try {
    const [row] = await db.query<{ s: unknown }>(
      `select sum(d_next_o_id) as s from district where d_w_id <= ${warehouses}`,
    );
    return row ? Number(row.s) : undefined;
  } catch {
    return undefined;
  }
}

/** What the generators need of a loader worker's context. */
function generateContext(ctx: LoadContext<TpccRecord>): GenerateContext {
  return {
    seed: ctx.seed,
    loadTime: ctx.loadTime,
    constants: ctx.record.loadConstants,
    format: ctx.copyFormat,
  };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export const workload = defineWorkload<TpccOptions, TpccRecord, TpccTerminal, TpccCounters, Task>({
  name: 'tpcc',
  title: 'TPC-C-derived order entry: five transactions over warehouses',
  disclaimer: DISCLAIMER,
  dialects: ['postgres', 'mysql', 'sqlite', 'mssql'],
  options: [
    {
      name: 'warehouses',
      type: 'integer',
      min: 1,
      max: 1_000_000,
      short: 'w',
      requiredToLoad: true,
      help: `warehouses: the scale to load; at run time the active ones (default: all loaded; ${DEFAULT_RUN_WAREHOUSES} when run loads an empty embedded server)`,
    },
    {
      name: 'procedures',
      type: 'boolean',
      default: false,
      help: 'run the transactions as server-side procedures (one round trip each; installed when missing) instead of client-side SQL',
    },
  ],
  profiles: TPCC_TRANSACTIONS.map((t, i) => ({
    ...t,
    weight: TPCC_DECK[i]!,
    minimumSharePct: MIX_MINIMUMS[i]! > 0 ? MIX_MINIMUMS[i] : undefined,
    p90LimitMs: P90_LIMITS_MS[i],
  })),
  tables: () => TPCC_TABLES,
  metaKey: 'load',
  parseRecord(json) {
    const parsed = recordSchema.safeParse(json);
    if (parsed.success) return { record: parsed.data };
    const issue = parsed.error.issues[0];
    return {
      problem: `has a bad ${issue?.path.join('.') ?? 'field'} (${issue?.message.toLowerCase() ?? 'invalid'})`,
    };
  },
  async inspect(db, dialect): Promise<LoadState<TpccRecord>> {
    const state = await schemaState(dialect, db);
    switch (state.kind) {
      case 'loaded':
        return {
          kind: 'loaded',
          record: { warehouses: state.meta.warehouses, loadConstants: state.meta.loadConstants },
        };
      case 'interrupted':
        return { kind: 'interrupted', startedAt: state.meta.startedAt };
      default:
        return state;
    }
  },
  async detect(db, dialect) {
    return (await dialect.tableExists(db, 'warehouse')) ? 'TPC-C tables (warehouse, district, …)' : undefined;
  },
  describeRecord: (r) => plural(r.warehouses, 'warehouse'),
  loader: {
    plan: (options, seed) => ({
      warehouses: options.warehouses ?? DEFAULT_RUN_WAREHOUSES,
      loadConstants: randomLoadConstants(new Rng(seed)),
    }),
    *tasks(record) {
      // Warehouse by warehouse, biggest first within one, so the last warehouse does not leave one
      // worker alone with its stock. Table by table (order lines first, so that their keys build
      // while the rest loads) was measured slower on 2 cores: 10 warehouses into PostgreSQL 15 in
      // 18.4 and 18.3 s against 15.7 and 17.5 s, its data phase a third longer with every stream
      // writing the same table. The keys of a table still start as soon as its last task is done.
      yield { kind: 'item' };
      for (let w = 1; w <= record.warehouses; w++) {
        yield { kind: 'stock', w, unit: w };
        yield { kind: 'orders', w, unit: w };
        yield { kind: 'customer', w, unit: w };
        yield { kind: 'warehouse', w, unit: w };
      }
    },
    tablesOf: (task) => TASK_TABLES[task.kind],
    generate: (task, ctx, onProgress) => taskStreams(task, generateContext(ctx), onProgress),
    threadGenerator(ctx) {
      const shared = { ...generateContext(ctx), pools: loadPools(ctx.seed) };
      return (task, onProgress) => taskStreams(task, shared, onProgress);
    },
    expectedBytes: (record, format) =>
      (ITEM_BYTES + BYTES_PER_WAREHOUSE * record.warehouses) *
      (format === 'binary' ? BINARY_TO_TEXT_BYTES : 1),
    units: (record) => ({ name: 'warehouses', count: record.warehouses }),
  },

  async prepareRun({ options, record, dialect, seed }) {
    if (options.procedures && !dialect.capabilities.procedures) {
      throw new UsageError(`--procedures is not available for ${dialect.name}; run without it`);
    }
    const loaded = record.warehouses;
    const warehouses = options.warehouses ?? loaded;
    if (warehouses > loaded) {
      throw new UsageError(
        `--warehouses ${warehouses} is more than the ${loaded} loaded; load more or use fewer`,
      );
    }
    const constants = runConstants(new Rng(seed ^ 0x5bd1e995), record.loadConstants);
    const state: TpccRunState = { ctx: { warehouses, constants }, committedNewOrders: 0 };
    const procedures = options.procedures === true;
    let idsAtStart: number | undefined;
    let readAtStart: { ids: number | undefined; at: Date } | undefined;
    let readAtEnd: { ids: number | undefined; at: Date } | undefined;
    return {
      config: {
        warehouses,
        loadedWarehouses: loaded,
        constants: { load: record.loadConstants, run: constants },
        mode: procedures ? 'procedures' : 'client-sql',
      },
      defaultTerminals: 10 * warehouses,
      scale: plural(warehouses, 'warehouse'),
      terminal: (id) => tpccHome(id, warehouses),
      newCounters: newTpccCounters,
      async open(target, slots) {
        const tpcc = await tpccDialectFor(target);
        return tpcc.openTransactions(target, slots, state, { procedures });
      },
      async windowCounters(db) {
        const ids = await sumNextOrderIds(db, warehouses);
        return ids === undefined ? undefined : { nextOrderIds: ids };
      },
      summary: (m) => measurementFigures(m),
      figures(m): HeadlineFigure[] {
        const f = measurementFigures(m);
        return [
          { key: 'tpmC', label: 'tpmC', value: f.tpmC, unit: 'New-Orders/min', pacedSpec: true },
          { key: 'nopm', label: 'NOPM', value: f.nopm, unit: 'committed New-Orders/min' },
        ];
      },
      typeSummary: (type, counters): Record<string, number> =>
        type === NEW_ORDER ? { rollbacks: counters.newOrderRollbacks } : {},
      intervalFigures: (counts, seconds) => [
        {
          key: 'tpmC',
          label: 'New-Orders/min',
          value: Math.floor(((counts[NEW_ORDER] ?? 0) * 60) / seconds),
        },
      ],
      async beforeRun(db) {
        idsAtStart = await sumNextOrderIds(db, loaded);
        readAtStart = { ids: idsAtStart, at: new Date() };
      },
      auditBasis: () => nextOrderIdsBasis(readAtStart, readAtEnd),
      runTallies: () => ({
        committedNewOrders: state.committedNewOrders,
        newOrdersInDoubt: state.newOrdersInDoubt ?? 0,
      }),
      addRunTallies(t) {
        state.committedNewOrders += t.committedNewOrders ?? 0;
        if ((t.newOrdersInDoubt ?? 0) > 0)
          state.newOrdersInDoubt = (state.newOrdersInDoubt ?? 0) + (t.newOrdersInDoubt ?? 0);
      },
      async audit(m, db, scope) {
        const idsAtEnd = await sumNextOrderIds(db, loaded);
        readAtEnd = { ids: idsAtEnd, at: new Date() };
        const added = idsAtStart !== undefined && idsAtEnd !== undefined ? idsAtEnd - idsAtStart : null;
        const checks = auditChecks(
          { counters: m.counters, perType: m.counts.map((count) => ({ count })) },
          warehouses,
        );
        const inDoubt = state.newOrdersInDoubt ?? 0;
        return {
          counters: m.counters,
          checks,
          pass: checks.every((c) => c.pass !== false),
          /** Whole run (warm-up and drain included): New-Orders txbench saw commit against orders the database gained. */
          wholeRun:
            scope?.shard === true
              ? { ...wholeRunAudit(state.committedNewOrders, null, inDoubt), note: SHARD_AUDIT_NOTE }
              : wholeRunAudit(state.committedNewOrders, added, inDoubt),
        };
      },
    };
  },

  mergeShards: mergeTpccShards,

  async check(db, dialect, state, afterLoad) {
    const checks = consistencyConditions(dialect.sql);
    if (afterLoad) {
      if (state.kind === 'corrupt') throw new UsageError(state.message);
      if (state.kind !== 'loaded') throw new UsageError('--after-load needs a database that txbench loaded');
      checks.push(LOAD_ONLY_CONDITION, ...populationChecks(dialect.sql, state.record.warehouses));
    }
    return runChecks(db, checks);
  },
});

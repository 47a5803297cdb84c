/**
 * sysbench OLTP (`--workload sysbench`), compatible with sysbench 1.0.20's oltp_common.lua and its
 * oltp_* scripts: tables sbtest1..N (`id` numbered by the database, `k`, `c`, `pad`, index `k_N`
 * on k built after the data), rows as `prepare` makes them, and each script's statements, with
 * sysbench's SQL text, prepared, on PostgreSQL, MySQL/MariaDB and SQLite. Headline figures are
 * sysbench's: transactions and queries (reads, writes, other) per second.
 */
import { z } from 'zod';
import { UsageError } from '../../errors.js';
import { deriveSeed, Rng } from '../../random/rng.js';
import type { TableSpec } from '../schema.js';
import { defineWorkload, type HeadlineFigure, type Measurement } from '../workload.js';
import type { CallbackRoute, Session } from '../../dialects/connections.js';
import { callbackEvents, stepsOf } from './callback-event.js';
import { runEvent, type EventSetup } from './event.js';
import { C_TEMPLATE, PAD_TEMPLATE, RAND_TYPES, randFunction, randString, type RandType } from './rand.js';
import {
  DEFAULT_COUNTS,
  DEFAULT_RANGE_SIZE,
  SCRIPTS,
  countsOf,
  planOf,
  tableStatements,
  type ScriptName,
} from './scripts.js';

export interface SysbenchOptions {
  readonly [key: string]: number | string | boolean | undefined;
  tables?: number | undefined;
  tableSize?: number | undefined;
  rangeSize?: number | undefined;
  pointSelects?: number | undefined;
  simpleRanges?: number | undefined;
  sumRanges?: number | undefined;
  orderRanges?: number | undefined;
  distinctRanges?: number | undefined;
  indexUpdates?: number | undefined;
  nonIndexUpdates?: number | undefined;
  deleteInserts?: number | undefined;
  skipTrx?: boolean | undefined;
  randType?: string | undefined;
  script?: string | undefined;
}

export interface SysbenchRecord {
  tables: number;
  tableSize: number;
  /** The distribution `k` was drawn from at load (sysbench's `prepare` uses `--rand-type` too). */
  randType?: RandType | undefined;
}

type Counters = { reads: number; writes: number; other: number };

/** sysbench's defaults when loading (oltp_common.lua: 1 table of 10,000 rows). */
const LOAD_TABLES = 1;
const LOAD_TABLE_SIZE = 10_000;
/** Rows per load task: big tables load in parallel chunks. */
const ROWS_PER_TASK = 100_000;
/** How many sbtestN tables `detect` looks for at most. */
const MAX_TABLES = 10_000;

type Task = { readonly unit: number; readonly table: number; readonly first: number; readonly rows: number };

export function sysbenchTables(count: number): TableSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `sbtest${i + 1}`,
    columns: [
      ['id', { kind: 'serial' }],
      ['k', { kind: 'int', default: 0, notNull: true }],
      ['c', { kind: 'char', size: 120, default: '', notNull: true }],
      ['pad', { kind: 'char', size: 60, default: '', notNull: true }],
    ],
    primaryKey: ['id'],
    indexes: [{ name: `k_${i + 1}`, columns: ['k'], unique: false }],
  }));
}

const count = (name: string, help: string, dflt: number) =>
  ({ name, type: 'integer', min: 0, max: 1_000_000, default: dflt, help }) as const;

export const workload = defineWorkload<SysbenchOptions, SysbenchRecord, null, Counters, Task>({
  name: 'sysbench',
  title: "sysbench OLTP, as sysbench 1.0.20's oltp_* scripts",
  disclaimer:
    "Workload compatible with sysbench 1.0.20's OLTP scripts; its figures are txbench's measurements, not sysbench's.",
  dialects: ['postgres', 'mysql', 'sqlite'],
  options: [
    {
      name: 'tables',
      type: 'integer',
      min: 1,
      max: MAX_TABLES,
      help: 'tables sbtest1..N (load: 1; run: all loaded)',
    },
    {
      name: 'table-size',
      type: 'integer',
      min: 1,
      max: 2_000_000_000,
      help: 'rows per table (load: 10000; run: as loaded)',
    },
    {
      name: 'range-size',
      type: 'integer',
      min: 1,
      max: 1_000_000,
      default: 100,
      help: 'rows per range SELECT',
    },
    count('point-selects', 'point SELECTs per transaction', 10),
    count('simple-ranges', 'simple range SELECTs per transaction', 1),
    count('sum-ranges', 'SELECT SUM() ranges per transaction', 1),
    count('order-ranges', 'SELECT ... ORDER BY ranges per transaction', 1),
    count('distinct-ranges', 'SELECT DISTINCT ranges per transaction', 1),
    count('index-updates', 'UPDATEs of the indexed k per transaction', 1),
    count('non-index-updates', 'UPDATEs of the unindexed c per transaction', 1),
    count('delete-inserts', 'DELETE + INSERT pairs per transaction', 1),
    {
      name: 'skip-trx',
      type: 'boolean',
      default: false,
      help: 'no BEGIN/COMMIT: every statement in autocommit',
    },
    {
      name: 'rand-type',
      type: 'choice',
      choices: RAND_TYPES,
      default: 'special',
      help: "ids' distribution, as sysbench's --rand-type (sysbench 1.0.20's default: special)",
    },
    {
      name: 'script',
      type: 'choice',
      choices: SCRIPTS,
      default: 'oltp_read_write',
      help: 'the sysbench script',
    },
  ],
  profiles: [{ key: 'event', name: 'transaction', weight: 1 }],
  tables: (options, record) => sysbenchTables(record?.tables ?? options.tables ?? LOAD_TABLES),
  parseRecord(json) {
    const parsed = z
      .object({
        tables: z.number().int().min(1),
        tableSize: z.number().int().min(1),
        randType: z.enum(RAND_TYPES).optional(),
      })
      .safeParse(json);
    return parsed.success ? { record: parsed.data } : { problem: 'has bad sysbench tables or table size' };
  },
  async detect(db, dialect) {
    const n = await countTables(db, dialect);
    return n === 0 ? undefined : `sysbench tables ${n === 1 ? 'sbtest1' : `sbtest1..sbtest${n}`}`;
  },
  async adoptForeign(db, dialect, options) {
    // Tables `sysbench prepare` made: as many as there are, their size from the first's rows.
    const tables = await countTables(db, dialect);
    if (tables === 0) return undefined;
    const [row] = await db.query<{ n: unknown }>('select count(*) as n from sbtest1');
    const tableSize = options.tableSize ?? Number(row?.n ?? 0);
    return tableSize > 0 ? { tables, tableSize } : undefined;
  },
  describeRecord: (r) =>
    `${r.tables} table${r.tables === 1 ? '' : 's'} x ${r.tableSize.toLocaleString('en-US')} rows`,
  loader: {
    plan: (options) => ({
      tables: options.tables ?? LOAD_TABLES,
      tableSize: options.tableSize ?? LOAD_TABLE_SIZE,
      randType: (options.randType ?? 'special') as RandType,
    }),
    *tasks(record) {
      // Chunk by chunk across the tables, so parallel streams write to different tables.
      for (let first = 1; first <= record.tableSize; first += ROWS_PER_TASK) {
        for (let table = 1; table <= record.tables; table++) {
          yield { unit: table, table, first, rows: Math.min(ROWS_PER_TASK, record.tableSize - first + 1) };
        }
      }
    },
    tablesOf: (task) => [`sbtest${task.table}`],
    *generate(task, ctx, onProgress) {
      const rng = new Rng(deriveSeed(ctx.seed, task.table, task.first));
      const rand = randFunction(ctx.record.randType ?? 'special');
      const size = ctx.record.tableSize;
      const c = Buffer.alloc(C_TEMPLATE.length);
      const pad = Buffer.alloc(PAD_TEMPLATE.length);
      yield {
        table: `sbtest${task.table}`,
        chunks: (function* () {
          const end = task.first + task.rows;
          let lines: string[] = [];
          let bytes = 0;
          for (let id = task.first; id < end; id++) {
            // prepare's row: k from sysbench.rand.default(1, table-size), then c, then pad.
            const k = rand(rng, 1, size);
            const line = `${id}\t${k}\t${randString(rng, C_TEMPLATE, c)}\t${randString(rng, PAD_TEMPLATE, pad)}\n`;
            lines.push(line);
            bytes += line.length;
            if (bytes >= 256 * 1024) {
              onProgress(lines.length, bytes);
              yield Buffer.from(lines.join(''), 'latin1');
              lines = [];
              bytes = 0;
            }
          }
          if (lines.length > 0) {
            onProgress(lines.length, bytes);
            yield Buffer.from(lines.join(''), 'latin1');
          }
        })(),
      };
    },
    expectedBytes: (record) => record.tables * record.tableSize * 200,
    units: (record) => ({ name: 'tables', count: record.tables }),
    async afterData(db, dialect, record) {
      // The loader wrote the ids; PostgreSQL's serial sequences do not follow explicit values, so
      // move them past the loaded rows (as sysbench's own inserts would have left them).
      if (dialect.name !== 'postgres') return;
      for (let t = 1; t <= record.tables; t++) {
        await db.query(
          `select setval(pg_get_serial_sequence('sbtest${t}', 'id'), (select max(id) from sbtest${t}))`,
        );
      }
    },
  },

  async prepareRun({ options, record }) {
    const tables = options.tables ?? record.tables;
    if (tables > record.tables) {
      throw new UsageError(
        `--tables ${tables} but only ${record.tables} sysbench tables are loaded; run with --tables ${record.tables} or fewer`,
      );
    }
    const tableSize = options.tableSize ?? record.tableSize;
    const script = (options.script ?? 'oltp_read_write') as ScriptName;
    const randType = (options.randType ?? 'special') as RandType;
    const rangeSize = options.rangeSize ?? DEFAULT_RANGE_SIZE;
    const plan = planOf(script, {
      pointSelects: options.pointSelects ?? DEFAULT_COUNTS.pointSelects,
      simpleRanges: options.simpleRanges ?? DEFAULT_COUNTS.simpleRanges,
      sumRanges: options.sumRanges ?? DEFAULT_COUNTS.sumRanges,
      orderRanges: options.orderRanges ?? DEFAULT_COUNTS.orderRanges,
      distinctRanges: options.distinctRanges ?? DEFAULT_COUNTS.distinctRanges,
      indexUpdates: options.indexUpdates ?? DEFAULT_COUNTS.indexUpdates,
      nonIndexUpdates: options.nonIndexUpdates ?? DEFAULT_COUNTS.nonIndexUpdates,
      deleteInserts: options.deleteInserts ?? DEFAULT_COUNTS.deleteInserts,
      skipTrx: options.skipTrx === true,
    });
    const perEvent = countsOf(plan);
    return {
      config: { script, tables, tableSize, rangeSize, randType, plan, statementsPerTransaction: perEvent },
      defaultTerminals: 1,
      scale: `${tables} table${tables === 1 ? '' : 's'} x ${tableSize.toLocaleString('en-US')} rows, ${script}`,
      terminal: () => null,
      newCounters: () => ({ reads: 0, writes: 0, other: 0 }),
      async open(url, slots) {
        const { dialectFor } = await import('../../dialects/for-url.js');
        const dialect = await dialectFor(url);
        const connections = await (dialect.openSessionConnections ?? dialect.openConnections)(url, slots);
        // The statements' text depends only on the database's placeholders: one set for all slots.
        const s0 = connections.session(0);
        const setup: EventSetup = {
          plan,
          tables: Array.from({ length: tables }, (_, i) => tableStatements(i + 1, (p) => s0.param(p))),
          tableSize,
          rangeSize,
          rand: randFunction(randType),
        };
        if (s0.callbacks === undefined) {
          return {
            connections,
            async run(_type, tx) {
              await runEvent(tx.session, tx.rng, setup);
              tx.counters.reads += perEvent.reads;
              tx.counters.writes += perEvent.writes;
              tx.counters.other += perEvent.other;
            },
          };
        }
        // The connection's callback route: the executor's fast path for first attempts, and the
        // same runner behind a promise for retries.
        const runnerOf = callbackEvents({ ...setup, steps: stepsOf(plan), perEvent });
        const routeOf = (session: Session): CallbackRoute => {
          if (session.callbacks === undefined) throw new Error('a slot without the callback route');
          return session.callbacks;
        };
        return {
          connections,
          run: (_type, tx) =>
            new Promise<void>((resolve, reject) =>
              runnerOf(routeOf(tx.session)).start(tx.rng, tx.counters, (err) =>
                err === undefined ? resolve() : reject(err),
              ),
            ),
          runWithCallback(_type, tx, done) {
            runnerOf(routeOf(tx.session)).start(tx.rng, tx.counters, done);
          },
        };
      },
      summary: (m) => rates(m),
      figures(m): HeadlineFigure[] {
        const r = rates(m);
        const figure = (key: keyof typeof r, label: string, unit: string): HeadlineFigure => ({
          key,
          label,
          value: r[key],
          unit,
        });
        return [
          figure('qps', 'QPS', 'queries/s'),
          figure('readsPerSecond', 'reads/s', 'queries/s'),
          figure('writesPerSecond', 'writes/s', 'queries/s'),
          figure('otherPerSecond', 'other/s', 'queries/s'),
        ];
      },
    };
  },
});

/** sysbench's "queries performed" per second: reads, writes, other (BEGIN/COMMIT) and their total. */
function rates(m: Measurement<Counters>): {
  qps: number;
  readsPerSecond: number;
  writesPerSecond: number;
  otherPerSecond: number;
} {
  const per = (n: number): number =>
    m.windowSeconds > 0 ? Math.round((n / m.windowSeconds) * 100) / 100 : 0;
  const { reads, writes, other } = m.counters;
  return {
    qps: per(reads + writes + other),
    readsPerSecond: per(reads),
    writesPerSecond: per(writes),
    otherPerSecond: per(other),
  };
}

/** How many of sbtest1, sbtest2, … exist, counting up to the first missing one. */
async function countTables(
  db: Parameters<typeof workload.detect>[0],
  dialect: Parameters<typeof workload.detect>[1],
): Promise<number> {
  let n = 0;
  while (n < MAX_TABLES && (await dialect.tableExists(db, `sbtest${n + 1}`))) n++;
  return n;
}

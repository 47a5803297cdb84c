/**
 * TPC-B as pgbench runs it (`pgbench -b tpcb-like`): pgbench's four tables with 100,000 accounts,
 * 10 tellers and one branch per scale unit, and its built-in script: update an account's balance,
 * read it, update its teller and branch, log the change in history, in one transaction. Derived
 * from TPC-B; not comparable with published TPC-B results. PostgreSQL, MySQL/MariaDB and SQLite.
 */
import { z } from 'zod';
import type { Session } from '../../dialects/connections.js';
import { defineWorkload, type TransactionContext } from '../workload.js';
import type { TableSpec } from '../schema.js';

export const ACCOUNTS_PER_SCALE = 100_000;
export const TELLERS_PER_SCALE = 10;

export interface TpcbOptions {
  readonly [key: string]: number | string | boolean | undefined;
  scale?: number | undefined;
}

export interface TpcbRecord {
  scale: number;
}

const int = { kind: 'int' } as const;
const filler = (size: number) => ({ kind: 'char', size }) as const;

/** pgbench's tables (pgbench -i), keys as its `-i` adds them after the data. */
export const TPCB_TABLES: readonly TableSpec[] = [
  {
    name: 'pgbench_accounts',
    columns: [
      ['aid', int],
      ['bid', int],
      ['abalance', int],
      ['filler', filler(84)],
    ],
    primaryKey: ['aid'],
  },
  {
    name: 'pgbench_tellers',
    columns: [
      ['tid', int],
      ['bid', int],
      ['tbalance', int],
      ['filler', filler(84)],
    ],
    primaryKey: ['tid'],
  },
  {
    name: 'pgbench_branches',
    columns: [
      ['bid', int],
      ['bbalance', int],
      ['filler', filler(88)],
    ],
    primaryKey: ['bid'],
  },
  {
    name: 'pgbench_history',
    columns: [
      ['tid', int],
      ['bid', int],
      ['aid', int],
      ['delta', int],
      ['mtime', { kind: 'timestamp' }],
      ['filler', filler(22)],
    ],
  },
];

/** Rows of accounts per load task: a scale unit in two halves, so a small scale still loads in parallel. */
const ACCOUNTS_PER_TASK = ACCOUNTS_PER_SCALE / 2;

type Task = { kind: 'branch'; unit: number } | { kind: 'accounts'; unit: number; first: number };

/** The tpcb-like script's statements, spelled with this database's placeholders. */
function statements(s: Session): string[] {
  const p = (i: number): string => s.param(i);
  const now = s.dialect === 'sqlite' ? "strftime('%Y-%m-%d %H:%M:%f', 'now')" : 'current_timestamp';
  return [
    `update pgbench_accounts set abalance = abalance + ${p(1)} where aid = ${p(2)}`,
    `select abalance from pgbench_accounts where aid = ${p(1)}`,
    `update pgbench_tellers set tbalance = tbalance + ${p(1)} where tid = ${p(2)}`,
    `update pgbench_branches set bbalance = bbalance + ${p(1)} where bid = ${p(2)}`,
    `insert into pgbench_history (tid, bid, aid, delta, mtime) values (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${now})`,
  ];
}

export const workload = defineWorkload<TpcbOptions, TpcbRecord, null, { updates: number }, Task>({
  name: 'tpcb',
  title: "TPC-B-like, as pgbench's built-in tpcb-like script",
  disclaimer:
    "Workload derived from TPC-B as pgbench's tpcb-like script runs it; not a TPC-B implementation and not comparable with published TPC-B results.",
  dialects: ['postgres', 'mysql', 'sqlite'],
  options: [
    {
      name: 'scale',
      type: 'integer',
      min: 1,
      max: 100_000,
      default: 1,
      help: "pgbench's scale factor: 100,000 accounts, 10 tellers and 1 branch per unit",
    },
  ],
  profiles: [{ key: 'tpcbLike', name: 'tpcb-like', weight: 1 }],
  tables: () => TPCB_TABLES,
  parseRecord(json) {
    const parsed = z.object({ scale: z.number().int().min(1) }).safeParse(json);
    return parsed.success ? { record: parsed.data } : { problem: 'has a bad scale' };
  },
  async detect(db, dialect) {
    return (await dialect.tableExists(db, 'pgbench_accounts'))
      ? "pgbench's tables (pgbench_accounts, …)"
      : undefined;
  },
  async adoptForeign(db) {
    // As pgbench does: the scale is the number of branches.
    const [row] = await db.query<{ n: unknown }>('select count(*) as n from pgbench_branches');
    const scale = Number(row?.n ?? 0);
    return scale > 0 ? { scale } : undefined;
  },
  describeRecord: (r) =>
    `scale ${r.scale} (${(r.scale * ACCOUNTS_PER_SCALE).toLocaleString('en-US')} accounts)`,
  loader: {
    plan: (options) => ({ scale: options.scale ?? 1 }),
    *tasks(record) {
      for (let b = 1; b <= record.scale; b++) {
        for (let first = 1; first <= ACCOUNTS_PER_SCALE; first += ACCOUNTS_PER_TASK) {
          yield { kind: 'accounts', unit: b, first: (b - 1) * ACCOUNTS_PER_SCALE + first };
        }
        yield { kind: 'branch', unit: b };
      }
    },
    tablesOf: (task) =>
      task.kind === 'branch' ? ['pgbench_branches', 'pgbench_tellers'] : ['pgbench_accounts'],
    *generate(task) {
      const b = task.unit;
      if (task.kind === 'branch') {
        yield { table: 'pgbench_branches', rows: [[b, 0, null]] };
        yield {
          table: 'pgbench_tellers',
          rows: Array.from({ length: TELLERS_PER_SCALE }, (_, i) => [
            (b - 1) * TELLERS_PER_SCALE + i + 1,
            b,
            0,
            null,
          ]),
        };
        return;
      }
      const first = task.first;
      yield {
        table: 'pgbench_accounts',
        rows: (function* () {
          for (let aid = first; aid < first + ACCOUNTS_PER_TASK; aid++) yield [aid, b, 0, ''];
        })(),
      };
    },
    expectedBytes: (record) => record.scale * ACCOUNTS_PER_SCALE * 20,
    units: (record) => ({ name: 'scale units', count: record.scale }),
  },

  async prepareRun({ record }) {
    const scale = record.scale;
    return {
      // Not `scale`: run.json's config.scale is the run's description ("scale 2"), for every workload.
      config: { scalingFactor: scale },
      defaultTerminals: 1,
      scale: `scale ${scale}`,
      terminal: () => null,
      newCounters: () => ({ updates: 0 }),
      async open(url, slots) {
        const { dialectFor } = await import('../../dialects/for-url.js');
        const dialect = await dialectFor(url);
        const connections = await (dialect.openSessionConnections ?? dialect.openConnections)(url, slots);
        const prepared = Array.from({ length: connections.slots }, (_, slot) =>
          statements(connections.session(slot)),
        );
        return {
          connections,
          async run(_type, tx: TransactionContext<null, { updates: number }>) {
            // pgbench's tpcb-like draws: aid, bid, tid uniformly, delta in [-5000, 5000].
            const aid = tx.rng.int(1, ACCOUNTS_PER_SCALE * scale);
            const bid = tx.rng.int(1, scale);
            const tid = tx.rng.int(1, TELLERS_PER_SCALE * scale);
            const delta = tx.rng.int(-5000, 5000);
            const s = tx.session;
            const q = prepared[0]!;
            await s.begin();
            await s.execute(q[0]!, [delta, aid]);
            await s.query(q[1]!, [aid]);
            await s.execute(q[2]!, [delta, tid]);
            await s.execute(q[3]!, [delta, bid]);
            await s.execute(q[4]!, [tid, bid, aid, delta]);
            await s.commit();
            tx.counters.updates += 3;
          },
        };
      },
      // Its headline figure is the TPS every run reports.
      figures: () => [],
    };
  },

  async check(db) {
    // pgbench keeps the balances consistent: each table's balances add up to the history's deltas.
    const sum = async (sql: string): Promise<number> =>
      Number((await db.query<{ s: unknown }>(sql))[0]?.s ?? 0);
    const history = await sum('select coalesce(sum(delta), 0) as s from pgbench_history');
    const checks = [
      [
        'accounts',
        'sum(abalance) = sum(history delta)',
        'select coalesce(sum(abalance), 0) as s from pgbench_accounts',
      ],
      [
        'tellers',
        'sum(tbalance) = sum(history delta)',
        'select coalesce(sum(tbalance), 0) as s from pgbench_tellers',
      ],
      [
        'branches',
        'sum(bbalance) = sum(history delta)',
        'select coalesce(sum(bbalance), 0) as s from pgbench_branches',
      ],
    ] as const;
    const out = [];
    for (const [id, title, sql] of checks) {
      const total = await sum(sql);
      out.push({ id, title, violations: total === history ? 0 : 1, pass: total === history });
    }
    return out;
  },
});

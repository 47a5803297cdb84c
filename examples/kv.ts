/**
 * A key-value workload, as a user writes one: `txbench load --workload ./examples/kv.ts --keys 10000`
 * then `txbench run --workload ./examples/kv.ts --duration 1m`. One table of keys and values, a
 * parallel loader, and two weighted transactions (8 reads to 2 read-modify-writes) through the
 * portable Session, so the same file runs on PostgreSQL, MySQL/MariaDB and SQLite.
 */
import { defineWorkload, openConnections, type Session, type TableSpec } from 'txbench';

interface KvOptions {
  readonly [key: string]: number | string | boolean | undefined;
  keys?: number | undefined;
}

interface KvRecord {
  keys: number;
}

const TABLES: readonly TableSpec[] = [
  {
    name: 'kv',
    columns: [
      ['k', { kind: 'int' }],
      ['v', { kind: 'varchar', size: 100 }],
      ['version', { kind: 'int', default: 0, notNull: true }],
    ],
    primaryKey: ['k'],
  },
];

/** Keys per load task: a big table loads in parallel pieces. */
const KEYS_PER_TASK = 5_000;

const value = (k: number, version: number): string => `value of ${k}, version ${version}`;

/** The transactions' statements in this database's placeholders. */
function statements(s: Session) {
  return {
    get: `select v, version from kv where k = ${s.param(1)}`,
    put: `update kv set v = ${s.param(1)}, version = version + 1 where k = ${s.param(2)}`,
  };
}

export default defineWorkload<
  KvOptions,
  KvRecord,
  null,
  { changed: number },
  { first: number; count: number }
>({
  name: 'kv',
  title: 'key-value reads and read-modify-writes (txbench example)',
  dialects: ['postgres', 'mysql', 'sqlite'],
  options: [
    { name: 'keys', type: 'integer', min: 1, max: 100_000_000, default: 10_000, help: 'keys to load' },
  ],
  // Weights are cards in each terminal's deck: 8 gets for every 2 puts.
  profiles: [
    { key: 'get', name: 'Get', weight: 8 },
    { key: 'put', name: 'Put', weight: 2 },
  ],
  tables: () => TABLES,
  parseRecord(json) {
    const keys = json.keys;
    return typeof keys === 'number' && Number.isInteger(keys) && keys > 0
      ? { record: { keys } }
      : { problem: 'has no key count' };
  },
  async detect(db, dialect) {
    return (await dialect.tableExists(db, 'kv')) ? 'a kv table' : undefined;
  },
  describeRecord: (r) => `${r.keys.toLocaleString('en-US')} keys`,
  loader: {
    plan: (options) => ({ keys: options.keys ?? 10_000 }),
    *tasks(record) {
      for (let first = 1; first <= record.keys; first += KEYS_PER_TASK)
        yield { first, count: Math.min(KEYS_PER_TASK, record.keys - first + 1) };
    },
    *generate(task) {
      const rows: (readonly unknown[])[] = [];
      for (let k = task.first; k < task.first + task.count; k++) rows.push([k, value(k, 0), 0]);
      yield { table: 'kv', rows };
    },
  },
  async prepareRun({ record }) {
    const keys = record.keys;
    return {
      config: { keys },
      scale: `${keys.toLocaleString('en-US')} keys`,
      terminal: () => null,
      newCounters: () => ({ changed: 0 }),
      async open(url, slots) {
        const connections = await openConnections(url, slots);
        const sql = statements(connections.session(0));
        return {
          connections,
          async run(type, tx) {
            const k = tx.rng.int(1, keys);
            const s = tx.session;
            if (type === 0) {
              await s.query(sql.get, [k]);
              return;
            }
            await s.begin();
            const [row] = await s.query<{ version: unknown }>(sql.get, [k]);
            tx.counters.changed += await s.execute(sql.put, [value(k, Number(row?.version ?? 0) + 1), k]);
            await s.commit();
          },
        };
      },
      // TPS and response times per transaction come with every run; nothing of its own to add.
      figures: () => [],
    };
  },
});

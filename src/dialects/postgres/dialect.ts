import path from 'node:path';
import type postgres from 'postgres';
import { UsageError } from '../../errors.js';
import { realpathOrAsGiven } from '../../util/paths.js';
import { joinedTransaction, type Db, type Dialect, type Row } from '../dialect.js';
import { openPostgresBulkLoader, postgresCopyFormat } from './bulk.js';
import { connectChecked, type Sql } from './connect.js';
import { classifyPostgresError } from './errors.js';
import { postgresIoCounterReader } from './io-counters.js';
import { postgresDdl } from './ddl.js';
import { openPostgresSessionConnections } from './session-connections.js';
import { openPostgresConnections } from './connections.js';

/** A Db over a postgres.js pool; a transaction holds one of its connections (`sql.begin`). */
export function postgresDb(sql: Sql): Db {
  return {
    query: queryOn(sql),
    transaction: <T>(work: (tx: Db) => Promise<T>) =>
      sql.begin((tx) => work(joinedTransaction(queryOn(tx)))) as Promise<T>,
    close: () => sql.end({ timeout: 5 }),
  };
}

function queryOn(sql: Sql | postgres.TransactionSql): Db['query'] {
  return <T extends Row = Row>(text: string, params: readonly unknown[] = []) =>
    sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: false }) as unknown as Promise<
      T[]
    >;
}

const SETTINGS_THAT_MATTER: readonly string[] = [
  'shared_buffers',
  'effective_cache_size',
  'work_mem',
  'max_connections',
  'synchronous_commit',
  'fsync',
  'full_page_writes',
  'wal_level',
  'wal_buffers',
  'max_wal_size',
  'checkpoint_timeout',
  'checkpoint_completion_target',
  'random_page_cost',
  'huge_pages',
];

export const postgresDialect: Dialect = {
  name: 'postgres',
  capabilities: { procedures: true, concurrentWriters: true },
  ddl: postgresDdl,
  analyze: (table) => [`analyze ${table}`],
  openConnections: openPostgresConnections,
  openSessionConnections: openPostgresSessionConnections,
  sql: {
    distinct: (a, b) => `${a} is distinct from ${b}`,
    length: (e) => `length(${e})`,
    intDiv: (a, b) => `(${a}) / (${b})`,
    concat: (...parts) => parts.join(' || '),
    param: (i) => `$${i}`,
    money: (e) => e,
  },
  async connect(url, { max }) {
    return postgresDb(await connectChecked(url, { max }));
  },
  openBulkLoader: openPostgresBulkLoader,
  bulkCopyFormat: postgresCopyFormat,
  classify: classifyPostgresError,
  async tableExists(db, table) {
    const [row] = await db.query<{ t: string | null }>('select to_regclass($1)::text as t', [table]);
    return row?.t !== null && row?.t !== undefined;
  },
  async serverInfo(db) {
    const [row] = await db.query<{ v: string }>('select version() as v');
    return {
      product: 'PostgreSQL',
      version: /PostgreSQL ([\d.]+)/.exec(row?.v ?? '')?.[1] ?? row?.v ?? 'unknown',
    };
  },
  async settings(db) {
    const rows = await db.query<{ name: string; setting: string; unit: string | null }>(
      `select name, setting, unit from pg_settings where name = any($1)`,
      [SETTINGS_THAT_MATTER],
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.unit ? `${r.setting} ${r.unit}` : r.setting]));
  },
  async dataDirectory(db) {
    const [row] = await db.query<{ d: string }>('select current_setting($1) as d', ['data_directory']);
    return row?.d;
  },
  async logDirectory(db) {
    const [row] = await db.query<{ d: string; v: string }>(
      'select current_setting($1) as d, current_setting($2) as v',
      ['data_directory', 'server_version_num'],
    );
    if (row === undefined) return undefined;
    // PostgreSQL 10 renamed pg_xlog to pg_wal.
    return realpathOrAsGiven(path.join(row.d, Number(row.v) >= 100000 ? 'pg_wal' : 'pg_xlog'));
  },
  async applySetting(db, name, value) {
    const [row] = await db.query<{ context: string }>('select context from pg_settings where name = $1', [
      name,
    ]);
    if (row === undefined) throw new UsageError(`PostgreSQL has no setting "${name}"; check the name`);
    // ALTER SYSTEM takes no parameters: quote the value as a literal.
    await db.query(`alter system set ${name.replace(/[^a-z0-9_.]/gi, '')} = '${value.replace(/'/g, "''")}'`);
    if (row.context === 'postmaster') return 'restart';
    await db.query('select pg_reload_conf()');
    return 'applied';
  },
  ioCounterReader: postgresIoCounterReader,
  async serverTimeMs(db) {
    const [row] = await db.query<{ ms: string }>(
      'select (extract(epoch from clock_timestamp()) * 1000)::text as ms',
    );
    return row ? Number(row.ms) : undefined;
  },
  transactionCounter: {
    // pg_stat_database counts per database: its scope is the cluster (its system identifier, or
    // where pg_control_system() is not granted, its data directory and port) and the database.
    async scope(db) {
      const cluster = await db
        .query<{ id: string }>('select system_identifier::text as id from pg_control_system()')
        .then(([row]) => row?.id)
        .catch(() => undefined);
      const [row] = await db.query<{ dir: string | null; port: string | null; datname: string }>(
        `select current_setting('data_directory', true) as dir, current_setting('port') as port,
                current_database() as datname`,
      );
      if (row === undefined) return undefined;
      if (cluster === undefined && !row.dir) return undefined;
      return `postgres ${cluster ?? ''} ${row.dir ?? ''}:${row.port ?? ''} ${row.datname}`;
    },
    countsEachStatement: true,
  },
  async serverTransactions(db) {
    try {
      const [row] = await db.query<{ n: string }>(
        'select (xact_commit + xact_rollback)::text as n from pg_stat_database where datname = current_database()',
      );
      return row ? Number(row.n) : undefined;
    } catch {
      return undefined;
    }
  },
};

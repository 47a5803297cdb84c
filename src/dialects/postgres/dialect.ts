import { Readable } from 'node:stream';
import type postgres from 'postgres';
import { pipeline } from 'node:stream/promises';
import type { BulkLoader, Db, Dialect, Row } from '../dialect.js';
import { connect, connectChecked, type Sql } from './connect.js';
import { classifyPostgresError } from './errors.js';

/** A Db over a postgres.js pool. */
export function postgresDb(sql: Sql): Db {
  return {
    query: <T extends Row = Row>(text: string, params: readonly unknown[] = []) =>
      sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: false }) as unknown as Promise<
        T[]
      >,
    close: () => sql.end({ timeout: 5 }),
  };
}

export const postgresDialect: Dialect = {
  name: 'postgres',
  capabilities: { procedures: true, concurrentWriters: true },
  sql: {
    distinct: (a, b) => `${a} is distinct from ${b}`,
    length: (e) => `length(${e})`,
    intDiv: (a, b) => `(${a}) / (${b})`,
    concat: (...parts) => parts.join(' || '),
    param: (i) => `$${i}`,
  },
  async connect(url, { max }) {
    return postgresDb(await connectChecked(url, { max }));
  },
  async openBulkLoader(url): Promise<BulkLoader> {
    const sql = connect(url, { max: 1 });
    return {
      async load(table, columns, chunks) {
        const copy = await sql.unsafe(`copy ${table} (${columns.join(', ')}) from stdin`).writable();
        await pipeline(Readable.from(chunks), copy);
      },
      close: () => sql.end({ timeout: 5 }),
    };
  },
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

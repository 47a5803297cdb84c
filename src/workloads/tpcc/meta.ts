import type { Sql } from '../../dialects/postgres/connect.js';
import type { NurandConstants } from './random.js';
import { META_TABLE } from './schema.js';

/** What txbench records about a loaded database, so later commands can rely on it. */
export interface LoadMeta {
  status: 'loading' | 'complete';
  warehouses: number;
  seed: number;
  /** The NURand constants used at load; C_LAST's constrains the run-time one. */
  loadConstants: NurandConstants;
  startedAt: string;
  completedAt?: string | undefined;
  loadSeconds?: number | undefined;
}

export type SchemaState =
  | { kind: 'empty' }
  | { kind: 'foreign' }
  | { kind: 'loaded'; meta: LoadMeta }
  | { kind: 'interrupted'; meta: LoadMeta };

/** Whether the TPC-C tables exist, and if so whether txbench finished loading them. */
export async function schemaState(sql: Sql): Promise<SchemaState> {
  const [row] = await sql<{ meta: string | null; warehouse: string | null }[]>`
    select to_regclass(${META_TABLE})::text as meta, to_regclass('warehouse')::text as warehouse`;
  if (!row?.meta) return row?.warehouse ? { kind: 'foreign' } : { kind: 'empty' };
  const meta = await readMeta(sql);
  if (meta === undefined) return { kind: 'foreign' };
  return meta.status === 'complete' ? { kind: 'loaded', meta } : { kind: 'interrupted', meta };
}

export async function readMeta(sql: Sql): Promise<LoadMeta | undefined> {
  const rows = await sql<{ value: string }[]>`select value from ${sql(META_TABLE)} where key = 'load'`;
  const value = rows[0]?.value;
  return value === undefined ? undefined : (JSON.parse(value) as LoadMeta);
}

export async function writeMeta(sql: Sql, meta: LoadMeta): Promise<void> {
  await sql`create table if not exists ${sql(META_TABLE)} (key text primary key, value text not null)`;
  await sql`insert into ${sql(META_TABLE)} (key, value) values ('load', ${JSON.stringify(meta)})
    on conflict (key) do update set value = excluded.value`;
}

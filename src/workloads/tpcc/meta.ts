import type { Db, Dialect } from '../../dialects/dialect.js';
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
export async function schemaState(dialect: Dialect, db: Db): Promise<SchemaState> {
  const [hasMeta, hasWarehouse] = await Promise.all([
    dialect.tableExists(db, META_TABLE),
    dialect.tableExists(db, 'warehouse'),
  ]);
  if (!hasMeta) return hasWarehouse ? { kind: 'foreign' } : { kind: 'empty' };
  const meta = await readMeta(dialect, db);
  if (meta === undefined) return { kind: 'foreign' };
  return meta.status === 'complete' ? { kind: 'loaded', meta } : { kind: 'interrupted', meta };
}

export async function readMeta(dialect: Dialect, db: Db): Promise<LoadMeta | undefined> {
  // A metadata table of another shape (an older txbench) reads as no metadata: "not ours".
  const rows = await db
    .query<{ meta_value: string }>(
      `select meta_value from ${META_TABLE} where meta_key = ${dialect.sql.param(1)}`,
      ['load'],
    )
    .catch(() => []);
  const value = rows[0]?.meta_value;
  return value === undefined ? undefined : (JSON.parse(value) as LoadMeta);
}

/** Creates the metadata table if needed and stores `meta` (delete + insert: every database has both). */
export async function writeMeta(dialect: Dialect, db: Db, meta: LoadMeta): Promise<void> {
  if (!(await dialect.tableExists(db, META_TABLE))) {
    await db.query(
      `create table ${META_TABLE} (meta_key varchar(64) not null primary key, meta_value varchar(4000))`,
    );
  }
  await db.query(`delete from ${META_TABLE} where meta_key = ${dialect.sql.param(1)}`, ['load']);
  await db.query(
    `insert into ${META_TABLE} (meta_key, meta_value) values (${dialect.sql.param(1)}, ${dialect.sql.param(2)})`,
    ['load', JSON.stringify(meta)],
  );
}

/** The schema state of the database a URL names, on a short-lived connection. */
export async function schemaStateAt(url: string): Promise<SchemaState> {
  const { tpccDialectFor } = await import('./tpcc-dialect.js');
  const { dialect } = await tpccDialectFor(url);
  const db = await dialect.connect(url, { max: 1 });
  try {
    return await schemaState(dialect, db);
  } finally {
    await db.close();
  }
}

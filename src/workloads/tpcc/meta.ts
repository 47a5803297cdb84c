import { z } from 'zod';
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

const whole = (min: number, max: number) => z.number().int().min(min).max(max);

/** The load record as written; anything else in the row is not trusted. */
const loadMetaSchema: z.ZodType<LoadMeta> = z.object({
  status: z.enum(['loading', 'complete']),
  warehouses: whole(1, Number.MAX_SAFE_INTEGER),
  seed: z.number().int(),
  // The ranges of clause 2.1.6: a constant outside them would skew every NURand draw.
  loadConstants: z.object({ cLast: whole(0, 255), cId: whole(0, 1023), olIId: whole(0, 8191) }),
  startedAt: z.string().min(1),
  completedAt: z.string().optional(),
  loadSeconds: z.number().nonnegative().optional(),
});

export type SchemaState =
  | { kind: 'empty' }
  | { kind: 'foreign' }
  /** txbench's metadata table is there but its load record is missing or malformed. */
  | { kind: 'corrupt'; message: string }
  | { kind: 'loaded'; meta: LoadMeta }
  | { kind: 'interrupted'; meta: LoadMeta };

/** What reading the load record found. */
export type MetaRecord =
  | { kind: 'unreadable' }
  | { kind: 'missing' }
  | { kind: 'invalid'; problem: string }
  | { kind: 'valid'; meta: LoadMeta };

/** Whether the TPC-C tables exist, and if so whether txbench finished loading them. */
export async function schemaState(dialect: Dialect, db: Db): Promise<SchemaState> {
  const [hasMeta, hasWarehouse] = await Promise.all([
    dialect.tableExists(db, META_TABLE),
    dialect.tableExists(db, 'warehouse'),
  ]);
  if (!hasMeta) return hasWarehouse ? { kind: 'foreign' } : { kind: 'empty' };
  const record = await readMeta(dialect, db);
  switch (record.kind) {
    case 'unreadable':
      return { kind: 'foreign' };
    case 'missing':
      // txbench_meta may hold only another workload's record: without TPC-C tables, nothing of TPC-C is here.
      return hasWarehouse
        ? { kind: 'corrupt', message: corruptMetaMessage('holds no load record') }
        : { kind: 'empty' };
    case 'invalid':
      return { kind: 'corrupt', message: corruptMetaMessage(record.problem) };
    case 'valid':
      return record.meta.status === 'complete'
        ? { kind: 'loaded', meta: record.meta }
        : { kind: 'interrupted', meta: record.meta };
  }
}

/** One line: what is wrong with the load record, and how to start again. */
export function corruptMetaMessage(problem: string): string {
  return `txbench's load record (table ${META_TABLE}) ${problem}, so what is loaded here is unknown; run \`txbench load --replace --warehouses N\` to load again`;
}

export async function readMeta(dialect: Dialect, db: Db): Promise<MetaRecord> {
  let rows: { meta_value: unknown }[];
  try {
    rows = await db.query<{ meta_value: unknown }>(
      `select meta_value from ${META_TABLE} where meta_key = ${dialect.sql.param(1)}`,
      ['load'],
    );
  } catch {
    // A metadata table of another shape (an older txbench) reads as no metadata: "not ours".
    return { kind: 'unreadable' };
  }
  if (rows.length === 0) return { kind: 'missing' };
  return parseMeta(rows[0]!.meta_value);
}

/** The stored text of a load record, checked against what txbench writes. */
export function parseMeta(value: unknown): MetaRecord {
  if (typeof value !== 'string') return { kind: 'invalid', problem: 'has an empty value' };
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return { kind: 'invalid', problem: 'is not valid JSON' };
  }
  const parsed = loadMetaSchema.safeParse(json);
  if (parsed.success) return { kind: 'valid', meta: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  const why = issue?.message.toLowerCase() ?? 'invalid';
  return {
    kind: 'invalid',
    problem: field === '' ? `is not a load record (${why})` : `has a bad ${field} (${why})`,
  };
}

/**
 * Creates the metadata table if needed and stores `meta`: the delete and the insert in one
 * transaction, so a failure between them leaves the old record, never none.
 */
export async function writeMeta(dialect: Dialect, db: Db, meta: LoadMeta): Promise<void> {
  if (!(await dialect.tableExists(db, META_TABLE))) {
    await db.query(
      `create table ${META_TABLE} (meta_key varchar(64) not null primary key, meta_value varchar(4000))`,
    );
  }
  const p = dialect.sql.param;
  await db.transaction(async (tx) => {
    await tx.query(`delete from ${META_TABLE} where meta_key = ${p(1)}`, ['load']);
    await tx.query(`insert into ${META_TABLE} (meta_key, meta_value) values (${p(1)}, ${p(2)})`, [
      'load',
      JSON.stringify(meta),
    ]);
  });
}

/**
 * txbench's record of a load, in the `txbench_meta` table (key `load:NAME`, TPC-C's `load`): the
 * workload's own fields (its `plan`) beside the load's status, seed and times, as one JSON value.
 * It is validated on every read, never trusted: a malformed record reads as `corrupt`, with one
 * line that says how to start again.
 */
import { z } from 'zod';
import type { Db, Dialect } from '../dialects/dialect.js';
import type { LoadState, Workload } from './workload.js';

export const META_TABLE = 'txbench_meta';

/** The fields every load record has, beside the workload's own. */
export interface LoadRecordHeader {
  status: 'loading' | 'complete';
  seed: number;
  startedAt: string;
  completedAt?: string | undefined;
  loadSeconds?: number | undefined;
}

const headerSchema = z.object({
  status: z.enum(['loading', 'complete']),
  seed: z.number().int(),
  startedAt: z.string().min(1),
  completedAt: z.string().optional(),
  loadSeconds: z.number().nonnegative().optional(),
});

export function metaKeyOf(workload: Pick<Workload, 'name' | 'metaKey'>): string {
  return workload.metaKey ?? `load:${workload.name}`;
}

/** One line: what is wrong with the load record, and how to start again. */
export function corruptRecordMessage(workload: Pick<Workload, 'name'>, problem: string): string {
  return `txbench's load record (table ${META_TABLE}) ${problem}, so what is loaded here is unknown; run \`txbench load --workload ${workload.name} --replace\` to load again`;
}

type Parsed<L> =
  { kind: 'valid'; header: LoadRecordHeader; record: L } | { kind: 'invalid'; problem: string };

/** The stored text of a load record, checked against what txbench writes. */
export function parseLoadRecord<L>(
  workload: Pick<Workload<never, L>, 'parseRecord'>,
  value: unknown,
): Parsed<L> {
  if (typeof value !== 'string') return { kind: 'invalid', problem: 'has an empty value' };
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return { kind: 'invalid', problem: 'is not valid JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { kind: 'invalid', problem: 'is not a load record' };
  const header = headerSchema.safeParse(json);
  if (!header.success) {
    const issue = header.error.issues[0];
    return {
      kind: 'invalid',
      problem: `has a bad ${issue?.path.join('.') ?? 'field'} (${issue?.message.toLowerCase() ?? 'invalid'})`,
    };
  }
  const fields = workload.parseRecord(json as Record<string, unknown>);
  if ('problem' in fields) return { kind: 'invalid', problem: fields.problem };
  return { kind: 'valid', header: header.data, record: fields.record };
}

/** What of `workload` the database holds: its record, or what `detect` finds without one. */
export async function loadState<L>(
  workload: Workload<never, L>,
  dialect: Dialect,
  db: Db,
): Promise<LoadState<L>> {
  if (workload.inspect) return workload.inspect(db, dialect);
  const found = await workload.detect(db, dialect);
  let rows: { meta_value: unknown }[] = [];
  if (await dialect.tableExists(db, META_TABLE)) {
    try {
      rows = await db.query<{ meta_value: unknown }>(
        `select meta_value from ${META_TABLE} where meta_key = ${dialect.sql.param(1)}`,
        [metaKeyOf(workload)],
      );
    } catch {
      rows = [];
    }
  }
  if (rows.length === 0) return found === undefined ? { kind: 'empty' } : { kind: 'foreign' };
  const parsed = parseLoadRecord(workload, rows[0]!.meta_value);
  if (parsed.kind === 'invalid')
    return { kind: 'corrupt', message: corruptRecordMessage(workload, parsed.problem) };
  if (parsed.header.status !== 'complete') return { kind: 'interrupted', startedAt: parsed.header.startedAt };
  return { kind: 'loaded', record: parsed.record };
}

/**
 * Creates the metadata table if needed and stores the record: the delete and the insert in one
 * transaction, so a failure between them leaves the old record, never none.
 */
export async function writeLoadRecord(
  dialect: Dialect,
  db: Db,
  key: string,
  record: LoadRecordHeader & Readonly<Record<string, unknown>>,
): Promise<void> {
  if (!(await dialect.tableExists(db, META_TABLE))) {
    await db.query(
      `create table ${META_TABLE} (meta_key varchar(64) not null primary key, meta_value varchar(4000))`,
    );
  }
  const p = dialect.sql.param;
  await db.transaction(async (tx) => {
    await tx.query(`delete from ${META_TABLE} where meta_key = ${p(1)}`, [key]);
    await tx.query(`insert into ${META_TABLE} (meta_key, meta_value) values (${p(1)}, ${p(2)})`, [
      key,
      JSON.stringify(record),
    ]);
  });
}

/** Removes a workload's load record (its tables are the caller's). */
export async function deleteLoadRecord(dialect: Dialect, db: Db, key: string): Promise<void> {
  if (!(await dialect.tableExists(db, META_TABLE))) return;
  await db.query(`delete from ${META_TABLE} where meta_key = ${dialect.sql.param(1)}`, [key]);
  const [row] = await db.query<{ n: unknown }>(`select count(*) as n from ${META_TABLE}`);
  if (Number(row?.n ?? 0) === 0) await db.query(`drop table ${META_TABLE}`);
}

/**
 * `--reload`: puts back the population a repetition starts from, as `txbench load --replace` would
 * with the options and seed of the load that is there (read from txbench's load record), so that
 * every repetition meets the same freshly loaded database, not one its predecessors grew and
 * fragmented. Works for any target txbench loaded, the embedded server or a --db URL.
 */
import { dialectFor } from '../dialects/for-url.js';
import { UsageError } from '../errors.js';
import { META_TABLE, metaKeyOf, parseLoadRecord } from '../workloads/load-record.js';
import { loadWorkload, type LoadProgress, type LoadResult } from '../workloads/loader.js';
import { defaultOptions, optionKey } from '../workloads/options.js';
import type { OptionValues, Workload } from '../workloads/workload.js';

/** The load's record and seed, as txbench wrote them into the database at `url`. */
async function loadedPopulation(
  workload: Workload,
  url: string,
  label: string,
): Promise<{ seed: number; record: unknown }> {
  const dialect = await dialectFor(url);
  const db = await dialect.connect(url, { max: 1 });
  let value: unknown;
  try {
    if (await dialect.tableExists(db, META_TABLE)) {
      const rows = await db.query<{ meta_value: unknown }>(
        `select meta_value from ${META_TABLE} where meta_key = ${dialect.sql.param(1)}`,
        [metaKeyOf(workload)],
      );
      value = rows[0]?.meta_value;
    }
  } finally {
    await db.close();
  }
  const parsed = parseLoadRecord(workload, value);
  if (parsed.kind !== 'valid' || parsed.header.status !== 'complete') {
    throw new UsageError(
      `--reload loads again what txbench loaded, and ${label} has no complete txbench load of ${workload.name}; run \`txbench load\` first or drop --reload`,
    );
  }
  return { seed: parsed.header.seed, record: parsed.record };
}

/**
 * The workload options that give `record` again with `seed`: the defaults, with each option the
 * record names (TPC-C's warehouses, sysbench's tables and table size) set as recorded. Undefined
 * when the plan they give differs from the record (a workload that records what no option sets).
 */
export function optionsOfRecord(workload: Workload, record: unknown, seed: number): OptionValues | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const recorded = record as Record<string, unknown>;
  const options: Record<string, unknown> = { ...defaultOptions(workload) };
  for (const spec of workload.options) {
    const key = optionKey(spec.name);
    if (key in recorded) options[key] = recorded[key];
  }
  const values = options as OptionValues;
  const planned = workload.loader.plan(values, seed) as Record<string, unknown>;
  const same = Object.keys(planned).every((k) => JSON.stringify(planned[k]) === JSON.stringify(recorded[k]));
  return same ? values : undefined;
}

/** Drops the workload's tables and loads the same population again (same scale, same seed). */
export async function reloadWorkload(
  workload: Workload,
  ref: string,
  url: string,
  label: string,
  onProgress?: (p: LoadProgress) => void,
): Promise<LoadResult> {
  const { seed, record } = await loadedPopulation(workload, url, label);
  const options = optionsOfRecord(workload, record, seed);
  if (options === undefined) {
    throw new UsageError(
      `--reload cannot tell which options loaded the ${workload.name} tables in ${label}; load them again by hand with \`txbench load --replace\` between runs`,
    );
  }
  return loadWorkload(workload, ref, url, { options, seed, replace: true }, onProgress);
}

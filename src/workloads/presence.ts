/**
 * What else a database holds: another workload's tables, found by asking each built-in workload
 * to `detect` its own, so that running one workload on another's tables says what was found.
 */
import type { Db, Dialect } from '../dialects/dialect.js';
import { UsageError } from '../errors.js';
import { loadState } from './load-record.js';
import { BUILT_IN_WORKLOADS, DEFAULT_WORKLOAD, findWorkload } from './registry.js';
import type { LoadState, OptionValues, Workload } from './workload.js';

/** The `txbench load` command line that loads this workload (its required options as placeholders). */
export function loadCommandHint(workload: Pick<Workload, 'name' | 'options'>): string {
  const named = workload.name === DEFAULT_WORKLOAD ? '' : ` --workload ${workload.name}`;
  const required = workload.options.filter((o) => o.requiredToLoad).map((o) => ` --${o.name} N`);
  return `txbench load${named}${required.join('')}`;
}

/** What `workload` holds here, in a few words. */
export function describeState(workload: Workload, record: unknown, _options?: OptionValues): string {
  return workload.describeRecord?.(record) ?? workload.name;
}

/** Another built-in workload's tables in the database, described; undefined when there are none. */
export async function foreignTables(
  workload: Workload,
  dialect: Dialect,
  db: Db,
): Promise<string | undefined> {
  for (const name of BUILT_IN_WORKLOADS) {
    if (name === workload.name) continue;
    const other = await findWorkload(name);
    if (!other.dialects.includes(dialect.name)) continue;
    const found = await other.detect(db, dialect).catch(() => undefined);
    if (found !== undefined) return `${found} (the ${name} workload)`;
  }
  return undefined;
}

/**
 * The loaded state a run or check needs, or the one line that says what to do: nothing loaded
 * (naming another workload's tables when they are there), an interrupted load, a corrupt record,
 * tables another tool loaded that this workload cannot adopt.
 */
export async function requireLoaded<L>(
  workload: Workload<OptionValues, L>,
  dialect: Dialect,
  db: Db,
  options: OptionValues,
): Promise<{ record: L; state: LoadState<L> }> {
  const state = await loadState(workload, dialect, db);
  const load = loadCommandHint(workload);
  switch (state.kind) {
    case 'loaded':
      return { record: state.record, state };
    case 'empty': {
      const other = await foreignTables(workload, dialect, db);
      if (other !== undefined) {
        throw new UsageError(
          `no ${workload.name} tables here, but ${other}; run with --workload ${other.match(/the (\S+) workload/)?.[1] ?? 'NAME'}, or \`${load}\` into another database`,
        );
      }
      throw new UsageError(`nothing is loaded here; run \`${load}\` first`);
    }
    case 'interrupted':
      throw new UsageError(`the last load was interrupted; run \`${load} --replace\` first`);
    case 'corrupt':
      throw new UsageError(state.message);
    case 'foreign': {
      const adopted = await workload.adoptForeign?.(db, dialect, options);
      if (adopted === undefined) {
        throw new UsageError(
          `these ${workload.name} tables were not loaded by txbench; load them with \`${load}\``,
        );
      }
      return { record: adopted, state };
    }
  }
}

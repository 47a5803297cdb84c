/**
 * The conditions a run was measured under, as the reports read them from run.json: what its
 * New-Order rate may be called, and whether two rows are comparable.
 */
import type { RunRecord, StoredConfig } from '../results/store.js';
import type { RateConditions } from '../results/new-order-rate.js';

/** What a row was measured under; a field is undefined when its run.json does not say. */
export interface RowConditions extends RateConditions {
  workload?: string | undefined;
  warehouses?: number | undefined;
  terminals?: number | undefined;
  mode?: string | undefined;
  /** The measured window as configured, seconds. */
  durationS?: number | undefined;
  deck?: readonly number[] | undefined;
}

/** One measurement's conditions from its config (and the workload named beside it). */
export function conditionsOf(config: StoredConfig | undefined, workload: string | undefined): RowConditions {
  return {
    workload,
    warehouses: config?.warehouses,
    terminals: config?.terminals,
    thinkScale: config?.thinkScale,
    mode: config?.mode,
    durationS: config?.durationS,
    deck: config?.deck,
    nonstandardMix: config?.nonstandardMix,
  };
}

/** Targets driven at once, added up: their warehouses and terminals add; the rest they share. */
export function sumConditions(parts: readonly RowConditions[]): RowConditions {
  const total = (pick: (c: RowConditions) => number | undefined): number | undefined =>
    parts.every((c) => pick(c) !== undefined) ? parts.reduce((a, c) => a + pick(c)!, 0) : undefined;
  const shared = <T>(pick: (c: RowConditions) => T | undefined): T | undefined => {
    const values = new Set(parts.map((c) => JSON.stringify(pick(c))));
    return values.size === 1 ? pick(parts[0]!) : undefined;
  };
  return {
    workload: shared((c) => c.workload),
    warehouses: total((c) => c.warehouses),
    terminals: total((c) => c.terminals),
    thinkScale: shared((c) => c.thinkScale),
    mode: shared((c) => c.mode),
    durationS: shared((c) => c.durationS),
    deck: shared((c) => c.deck),
    nonstandardMix: parts.some((c) => c.nonstandardMix === true),
  };
}

/**
 * A whole run's conditions, for the one line a listing gives it: a single run's own; for several
 * targets, steps or values, theirs combined (non-standard if any entry's mix was).
 */
export function runConditions(run: RunRecord): RowConditions {
  const entries = [...(run.targets ?? []), ...(run.steps ?? []), ...(run.sweep ?? [])].map((e) =>
    conditionsOf(e.report?.config, e.report?.workload ?? run.workload),
  );
  return entries.length > 0 ? sumConditions(entries) : conditionsOf(run.config, run.workload);
}

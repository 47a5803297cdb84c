/**
 * run.json's `config` for a run: the terminals and connections this process drives (a shard's
 * slice, split over its workers), the deck, the phases and what the database is.
 */
import { checkMixMinimums } from '../config/mix.js';
import type { Db, Dialect } from '../dialects/dialect.js';
import { deckFromPercentages } from '../engine/deck.js';
import type { TransactionSpec } from '../engine/types.js';
import type { OptionValues, PreparedRun, Workload } from '../workloads/workload.js';
import { shardConfig } from './shard.js';
import { chooseWorkers } from './workers.js';
import type { RunConfig } from '../results/run-file.js';
import type { RunOptions } from './run-options.js';

const DEFAULT_MAX_CONNECTIONS = 100;

/** What resolving a run's config needs to know of the run. */
export interface ConfigInput {
  label: string;
  workload: Workload;
  transactions: readonly TransactionSpec[];
  options: RunOptions;
  /** Hears the one-line warning about the workers chosen. */
  onWarning: (message: string) => void;
}

export async function resolveConfig(
  run: ConfigInput,
  dialect: Dialect,
  monitor: Db,
  prepared: PreparedRun,
  workloadOptions: OptionValues,
  seed: number,
): Promise<RunConfig> {
  const { options } = run;
  const profiles = run.workload.profiles;
  const terminals = options.terminals ?? prepared.defaultTerminals ?? 1;
  const maxConnections = dialect.capabilities.concurrentWriters ? DEFAULT_MAX_CONNECTIONS : 1;
  const allConnections = Math.min(terminals, options.connections ?? maxConnections);
  const shard = options.shard
    ? await shardConfig(options.shard, { terminals, connections: allConnections }, dialect, monitor)
    : undefined;
  const driven = shard?.config.terminals ?? terminals;
  // Workers split what this process drives: the whole run, or this shard's slice of it.
  const choice = chooseWorkers(options.workers, driven, dialect.capabilities.concurrentWriters);
  if (choice.warning !== undefined) run.onWarning(choice.warning);
  const deck = options.mix ? deckFromPercentages(options.mix) : profiles.map((p) => p.weight);
  // The CLI refuses such a mix up front; this guards callers of the API as well.
  const nonstandardMix = checkMixMinimums(
    options.mix ?? deck,
    { minimums: profiles.map((p) => p.minimumSharePct ?? 0), names: profiles.map((p) => p.name) },
    options.allowNonstandardMix === true,
  );
  const labels =
    prepared.intervalFigures?.(
      profiles.map(() => 0),
      1,
    ) ?? [];
  return {
    target: run.label,
    workload: options.workloadRef ?? run.workload.name,
    workloadOptions,
    scale: prepared.scale,
    ...prepared.config,
    terminals: driven,
    connections: shard?.connections ?? allConnections,
    workers: choice.workers,
    thinkScale: options.thinkScale,
    warmupS: options.warmupMs / 1000,
    ...(options.steadyState?.warmup === true ? { warmupAuto: true } : {}),
    durationS: options.durationMs / 1000,
    rampS: options.rampMs / 1000,
    intervalS: options.intervalMs / 1000,
    deck,
    nonstandardMix,
    seed,
    ...(labels.length > 0 ? { intervalLabels: Object.fromEntries(labels.map((f) => [f.key, f.label])) } : {}),
    typeNames: Object.fromEntries(run.transactions.map((t) => [t.key, t.name])),
    database: await dialect.serverInfo(monitor),
    ...(shard ? { shard: shard.config } : {}),
  };
}

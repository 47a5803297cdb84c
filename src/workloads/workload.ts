/**
 * The one interface every workload implements (DESIGN.md layer 5): TPC-C, TPC-B, sysbench OLTP,
 * replayed captures and the workloads users write in TypeScript. The CLI, the run path, the
 * results store and the reports reach a workload only through this interface and the registry
 * (registry.ts); nothing outside workloads/ imports a particular workload.
 *
 * What the generic code does with a workload:
 * - `txbench load`: validates the options, asks the workload which tables to create (`tables`),
 *   records the load (`loader.plan`), generates the rows of `loader.tasks` in worker threads
 *   (`loader.generate`) streamed into the dialect's bulk path, then builds keys and indexes and
 *   analyzes (workloads/loader.ts).
 * - `txbench run`: reads what is loaded (`inspect`), refuses another workload's tables (`detect`),
 *   prepares the run (`prepareRun`: configuration, per-terminal state, the transactions for this
 *   database), drives the engine with the profiles' deck, keying and think times through the
 *   generic executor (run/executor.ts: slots, dispatch, retries, lost connections), and asks the
 *   workload for its headline figures and audit at the end.
 * - `txbench check` and `txbench drop`: `check` and `tables`.
 *
 * Everything a workload returns that lands in run.json is plain JSON. Members are methods so that
 * a workload with its own option, record and state types is a `Workload` as the registry sees it.
 */
import type { Connections, DialectName, Session } from '../dialects/connections.js';
import type { CopyFormat, Db, Dialect } from '../dialects/dialect.js';
import type { TerminalScript } from '../engine/engine-config.js';
import type { IntervalStats } from '../engine/engine-result.js';
import type { Counters } from '../engine/types.js';
import type { Rng } from '../random/rng.js';
import type { TableSpec } from './schema.js';

// ---------------------------------------------------------------------------------------------
// Options

export type OptionValue = number | string | boolean;
/** Parsed option values by camelCase key (`table-size` → `tableSize`); undefined when not given and without default. */
export type OptionValues = Readonly<Record<string, OptionValue | undefined>>;

/**
 * One workload option. It becomes a command-line flag (`--NAME VALUE`, or `--NAME` for a
 * boolean) on every command that takes `--workload` once the workload is known, and a key of the
 * parsed options. Values are checked against the declaration before anything starts; an unknown
 * flag is refused with the list of the workload's options.
 */
export interface OptionSpec {
  /** kebab-case flag name without dashes: `table-size`. Its parsed value is under `tableSize`. */
  name: string;
  /** `integer` and `number` check `min`/`max`; `choice` checks `choices`. */
  type: 'integer' | 'number' | 'string' | 'boolean' | 'choice';
  /** The value when the flag is not given; without one the value is undefined (e.g. "all loaded"). */
  default?: OptionValue | undefined;
  /** One line for `--help`: what it does and its default. */
  help: string;
  min?: number | undefined;
  max?: number | undefined;
  choices?: readonly string[] | undefined;
  /** A one-letter alias (`-w`). */
  short?: string | undefined;
  /** `txbench load` refuses to start without it (e.g. TPC-C's `--warehouses`). */
  requiredToLoad?: boolean | undefined;
}

// ---------------------------------------------------------------------------------------------
// Transactions

/** One transaction type as the engine paces it and the reports name it. */
export interface TransactionProfile {
  /** Field name in results, camelCase: `newOrder`, `tpcbLike`. */
  key: string;
  /** Display name: `New-Order`. */
  name: string;
  /** Cards in each terminal's deck (its share of the mix); `--mix` overrides the shares. */
  weight: number;
  /** Keying time before submitting, seconds at think-scale 1 (default 0). */
  keyingS?: number | undefined;
  /** Mean of the negative-exponential think time after the response, seconds at think-scale 1 (default 0). */
  thinkMeanS?: number | undefined;
  /** The spec's minimum share, percent: a mix below it is refused unless marked non-standard. */
  minimumSharePct?: number | undefined;
  /** The spec's 90th-percentile response-time limit, ms, reported PASS/FAIL. */
  p90LimitMs?: number | undefined;
}

/**
 * What a transaction body gets. The executor reuses one per slot (no allocation per
 * transaction): read it during the call, do not keep it.
 *
 * Retries: when an attempt fails with a retryable error (conflict, deadlock, lock timeout), the
 * executor recovers the slot, resets `counters` to zero and `rng` to where it was before the
 * first attempt, and calls the body again, so every attempt draws the same inputs and the
 * tallies count the successful attempt only. Do not time anything: the engine measures.
 */
export interface TransactionContext<S = unknown, C extends Counters = Counters, H = unknown> {
  /** The terminal's own random stream. */
  readonly rng: Rng;
  /** The terminal's state, as `PreparedRun.terminal` made it (TPC-C: home warehouse and district). */
  readonly state: S;
  /** The terminal's number, 0-based. */
  readonly terminal: number;
  /** The portable connection. */
  readonly session: Session;
  /** The driver's own handle (postgres.js ReservedSql, mysql2 Connection, better-sqlite3 Database, mssql pool). */
  readonly conn: H;
  /** The workload's tallies for this transaction, zero at the start of each attempt. */
  readonly counters: C;
  /** 0 for the first attempt, then 1, 2, … */
  readonly attempt: number;
}

/**
 * The transactions of one run on one database: the connection slots they run on and one body
 * per profile (in profile order). A body resolves when the transaction is complete (an intended
 * rollback included) and throws the database's error, or its own, otherwise. Bodies on a
 * synchronous driver (better-sqlite3) may return without a promise.
 */
export interface TransactionSet<S = unknown, C extends Counters = Counters, H = unknown> {
  readonly connections: Connections<H>;
  run(type: number, tx: TransactionContext<S, C, H>): void | Promise<void>;
  /**
   * Optional: the same bodies on callbacks, for the executor's fast path (a transaction that
   * passes no promise from the engine to the socket). `done` is called exactly once, with
   * undefined when the transaction is complete, or its error. Only a first attempt comes here:
   * retries, and any slot that is reconnecting, go through `run`, so the two must do the same.
   */
  runWithCallback?(type: number, tx: TransactionContext<S, C, H>, done: (err: unknown) => void): void;
  /** Extra clean-up beyond closing the connections (the executor closes those). */
  close?(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Loading

/** One independent piece of the initial population: plain JSON, sent to a loader worker. */
export type LoadTask = Readonly<Record<string, unknown>> & {
  /**
   * The progress unit the task belongs to (TPC-C: its warehouse); a unit counts as loaded once
   * all of its tasks are. Tasks without one count towards no unit.
   */
  readonly unit?: number | undefined;
};

/**
 * One table's rows from a task: PostgreSQL COPY chunks (text unless `format` says binary, which
 * only a loader context with `copyFormat: 'binary'` may be given), or rows of values the loader
 * encodes.
 */
export type TableRows =
  | { table: string; chunks: Iterable<Buffer>; format?: CopyFormat | undefined }
  | { table: string; rows: Iterable<readonly unknown[]> };

/** What every loader worker knows of the load. */
export interface LoadContext<L = unknown> {
  /** The load's seed: a task's rows depend only on it, the record and the task. */
  readonly seed: number;
  /** The load's time as `YYYY-MM-DD HH:MM:SS.mmm` (local), for timestamp columns. */
  readonly loadTime: string;
  /** What `plan` recorded. */
  readonly record: L;
  /**
   * The COPY format the database's bulk path reads fastest (`Dialect.bulkCopyFormat`): binary on
   * PostgreSQL, where a workload may give its chunks in it; text everywhere else.
   */
  readonly copyFormat?: CopyFormat | undefined;
}

export interface WorkloadLoader<
  O extends OptionValues = OptionValues,
  L = unknown,
  T extends LoadTask = LoadTask,
> {
  /**
   * What txbench records about this population in `txbench_meta` (plain JSON), from the load's
   * options and seed: the scale, and anything the run must agree with (TPC-C: its NURand
   * constants). `run`, `check` and `drop` get it back from `inspect`.
   */
  plan(options: O, seed: number): L;
  /** The tasks, in the order they are handed out (biggest first). */
  tasks(record: L): Iterable<T>;
  /**
   * Generates one task's rows; runs in a loader worker thread, which finds the workload again
   * through the registry (so a user workload file is loaded there too).
   */
  generate(
    task: T,
    ctx: LoadContext<L>,
    onProgress: (rows: number, bytes: number) => void,
  ): Iterable<TableRows>;
  /**
   * Optional: `generate` for one loader worker thread, made once there before its first task, for
   * a workload whose generation has set-up every task shares and that costs to redo per task
   * (TPC-C's character pools). The thread owns what it holds; without it, `generate` is called.
   */
  threadGenerator?(
    ctx: LoadContext<L>,
  ): (task: T, onProgress: (rows: number, bytes: number) => void) => Iterable<TableRows>;
  /**
   * The tables a task writes rows into. With it, a table's keys, indexes and ANALYZE start as
   * soon as the last task writing it is done, while other tables still load; without it, every
   * table waits for all tasks. A task that writes a table it does not name fails the load.
   */
  tablesOf?(task: T): readonly string[];
  /** Roughly how many COPY bytes all tasks produce in `format`, for progress and ETA. */
  expectedBytes?(record: L, format: CopyFormat): number;
  /** What a progress unit is called, plural (`warehouses`), and how many there are. */
  units?(record: L): { name: string; count: number };
  /**
   * Runs once the data, keys and indexes of every table are in, before any analyze: what the bulk
   * path cannot do (sysbench on PostgreSQL: move each `serial` sequence past the ids the loader
   * wrote). A workload with it gets its ANALYZEs after it, not table by table.
   */
  afterData?(db: Db, dialect: Dialect, record: L): Promise<void>;
}

/** What of a workload the database holds. */
export type LoadState<L = unknown> =
  | { kind: 'empty' }
  /** Loaded by txbench, to the end. */
  | { kind: 'loaded'; record: L }
  /** txbench's load started and never finished. */
  | { kind: 'interrupted'; startedAt: string }
  /** The workload's tables are there, but txbench did not load them (another tool did, or an older txbench). */
  | { kind: 'foreign'; record?: L | undefined }
  /** txbench's load record is missing or malformed: one line saying so and what to do. */
  | { kind: 'corrupt'; message: string };

// ---------------------------------------------------------------------------------------------
// Running

export interface RunSetup<O extends OptionValues = OptionValues, L = unknown> {
  /** The workload's options as parsed (defaults applied). */
  readonly options: O;
  /** What was loaded (a `loaded` state's record, or what `inspect` read from foreign tables). */
  readonly record: L;
  readonly dialect: Dialect;
  /** An administrative connection (checks, counters, procedure installation). */
  readonly db: Db;
  readonly url: string;
  /** The run's seed; derive further streams with random/rng.ts `deriveSeed`. */
  readonly seed: number;
}

/** One figure read from the database at the measured window's edges (TPC-C: sum(D_NEXT_O_ID)). */
export type WindowCounters = Readonly<Record<string, number>>;

/** What the run measured, as the workload sees it when asked for its figures and audit. */
export interface Measurement<C extends Counters = Counters> {
  readonly windowSeconds: number;
  /** Completed transactions per profile in the window (in profile order). */
  readonly counts: readonly number[];
  readonly errors: readonly number[];
  /** The workload's tallies, summed over the window's completed transactions. */
  readonly counters: C;
  readonly terminals: number;
  /** Cards per profile in each terminal's deck, as run. */
  readonly deck: readonly number[];
  readonly thinkScale: number;
  /** `windowCounters` at the window's start and end; undefined when either could not be read. */
  readonly windowCounters?: { start: WindowCounters; end: WindowCounters } | undefined;
}

/**
 * A headline figure, labelled for what it is. Reports show `label` and `unit`; a figure with
 * `pacedSpec` is a benchmark specification's figure (tpmC) that means what its label says only
 * when the run kept the spec's keying and think times (think-scale 1) and a mix meeting its
 * minimums: otherwise reports call it by `unit` and say why (`New-Orders/min (paced ×0.25)`,
 * `New-Orders/min (unpaced)`).
 */
export interface HeadlineFigure {
  /** Where it is stored in run.json's summary (`tpmC`, `nopm`, `tps`). */
  key: string;
  label: string;
  /** null when it could not be measured (a counter the database did not give). */
  value: number | null;
  /** What is counted per what: `New-Orders/min`, `transactions/s`. */
  unit: string;
  pacedSpec?: boolean | undefined;
  /**
   * What the reports call a `pacedSpec` figure under the run's conditions (`tpmC`, `New-Orders/min
   * (paced ×0.25)`), written into run.json beside `label` for the scripts that read it.
   */
  shownAs?: string | undefined;
}

/** One after-run audit figure against what is allowed. */
export interface AuditCheck {
  name: string;
  value: number | null;
  /** The allowed range, as text. */
  allowed: string;
  /** null when the rule cannot apply (e.g. remote rates with one warehouse). */
  pass: boolean | null;
}

/** The audit section of a run report: the checks, and any workload-specific detail beside them. */
export interface Audit {
  checks: AuditCheck[];
  /** Extra JSON fields (TPC-C: its counters and the whole-run New-Order reconciliation). */
  [detail: string]: unknown;
}

/** A figure over one progress interval (TPC-C: New-Orders/min), stored under `key` in the interval record. */
export interface IntervalFigure {
  key: string;
  /** How the progress line names it. */
  label: string;
  value: number;
}

/** One run of a workload on one target, as `prepareRun` makes it. */
export interface PreparedRun<S = unknown, C extends Counters = Counters> {
  /**
   * This run's settings, merged into run.json's `config` (TPC-C: warehouses, loadedWarehouses,
   * NURand constants, mode). Plain JSON.
   */
  readonly config: Readonly<Record<string, unknown>>;
  /** Terminals when `--terminals` is not given (TPC-C: 10 per warehouse; default 1). */
  readonly defaultTerminals?: number | undefined;
  /** A short description for the run's header line (`2 warehouses`, `4 tables x 10,000 rows`). */
  readonly scale: string;
  /** Terminal `id`'s own state, made once per terminal before the run starts. */
  terminal(id: number, terminals: number): S;
  /** Fresh zero tallies. Every key present from the start (the engine sums them by key). */
  newCounters(): C;
  /** Opens the connection slots on the target and binds the transactions to them. */
  open(url: string, slots: number): Promise<TransactionSet<S, C>>;
  /** Figures read from the database at the window's edges; undefined when they cannot be read. */
  windowCounters?(db: Db): Promise<WindowCounters | undefined>;
  /** Summary fields beside the generic ones (TPC-C: tpmC, nopm, ceilingTpmC, efficiencyPct). */
  summary?(m: Measurement<C>): Record<string, number | null>;
  /** The headline figures, best first; the generic TPS and response times are always reported too. */
  figures(m: Measurement<C>): HeadlineFigure[];
  /** Extra per-type summary fields (TPC-C: New-Order's intended rollbacks). */
  typeSummary?(type: number, counters: C): Record<string, number>;
  /** Figures per progress interval from its counts per profile. */
  intervalFigures?(counts: readonly number[], seconds: number): IntervalFigure[];
  /** Called once the connections are open and before the terminals start (whole-run baselines). */
  beforeRun?(db: Db): Promise<void>;
  /**
   * The after-run audit, once the run has drained. With `scope.shard` the run is one shard of a
   * run on several machines: the database holds the other shards' work too, so what the audit
   * reconciles with the database is left to `txbench merge` (Workload.mergeShards).
   */
  audit?(m: Measurement<C>, db: Db, scope?: AuditScope): Promise<Audit>;
  /**
   * The database readings a shard's merge needs, read by `beforeRun` and `audit` (TPC-C:
   * sum(D_NEXT_O_ID) before the run and after the drain, with their wall-clock times). Plain JSON.
   */
  auditBasis?(): AuditBasis;
  /**
   * Whole-run tallies kept outside the window's counters (TPC-C: New-Orders committed, and in
   * doubt, over the run's whole life, for its audit). A run split into parts (worker threads,
   * shards) adds every part's into the one that audits, with `addRunTallies`, before `audit`.
   */
  runTallies?(): Record<string, number>;
  addRunTallies?(tallies: Readonly<Record<string, number>>): void;
  /**
   * Scripted terminals (a replayed capture's sessions): each terminal's next transaction and when
   * it is due come from the script, not the deck and the pacing. Over worker threads each drives
   * its slice of the terminals with its own run's script, which knows them by their ids in the run.
   */
  readonly script?: TerminalScript | undefined;
  /** Sees every interval as the engine reports it (warm-up and drain included), for whole-run figures. */
  observeInterval?(stats: IntervalStats): void;
}

/** What an audit covers: a whole run, or one shard of a run driven from several machines. */
export interface AuditScope {
  shard: boolean;
}

/** A shard's database readings for its run's merge (PreparedRun.auditBasis). */
export type AuditBasis = Readonly<Record<string, number | string | null>>;

/** What `txbench merge` hands a workload: its shards' figures added up (Workload.mergeShards). */
export interface ShardMergeInput<C extends Counters = Counters> {
  /** The merged run's config: the workload's settings, the whole run's terminals. */
  readonly config: Readonly<Record<string, unknown>>;
  /**
   * The shards' windows added up: counts, errors and counters summed, terminals the whole run's.
   * windowSeconds and windowCounters are the reference shard's (shard 1): its database readings
   * at its window's edges count every shard's work, so they are read once, never summed.
   */
  readonly measurement: Measurement<C>;
  /** Every shard's runTallies() summed. */
  readonly tallies: Readonly<Record<string, number>>;
  /** Every shard's auditBasis(), in shard order. */
  readonly bases: readonly AuditBasis[];
  /** Every shard's own summary, in shard order (figures a sum of the shards' is made from). */
  readonly summaries: readonly Readonly<Record<string, unknown>>[];
}

/** A merged run's workload figures, as a single run's PreparedRun gives them. */
export interface MergedShardFigures {
  summary: Record<string, number | null>;
  figures: HeadlineFigure[];
  audit: Audit;
}

/** A consistency check's result (`txbench check`). */
export interface CheckResult {
  id: string;
  title: string;
  violations: number;
  pass: boolean;
}

// ---------------------------------------------------------------------------------------------
// The workload

export interface Workload<
  O extends OptionValues = OptionValues,
  L = unknown,
  S = unknown,
  C extends Counters = Counters,
  T extends LoadTask = LoadTask,
> {
  /** What `--workload` calls it, and what run.json records: `tpcc`, `tpcb`, `sysbench`. */
  readonly name: string;
  /**
   * What a worker thread finds it again by in the registry (registry.ts `findWorkload`), for a
   * workload made at run time from a file of its own (a replayed capture: `replay:…`). Default:
   * how the user named it, or its name.
   */
  readonly ref?: string | undefined;
  /** One line for listings and headers: `TPC-C-derived order entry`. */
  readonly title: string;
  /** What every report of it says about comparability with the original (TPC-C's disclaimer). */
  readonly disclaimer?: string | undefined;
  /** The databases it has SQL for. */
  readonly dialects: readonly DialectName[];
  readonly options: readonly OptionSpec[];
  /** The transaction types, in the order results list them. */
  readonly profiles: readonly TransactionProfile[];
  /** Checks option combinations beyond each option's own declaration; throws a UsageError (one line). */
  validate?(options: O): void;
  /** The tables for these options (or, for a loaded database, the record's). */
  tables(options: O, record?: L): readonly TableSpec[];
  /** The load record's key in txbench_meta (default `load:NAME`; TPC-C keeps `load`). */
  readonly metaKey?: string | undefined;
  /**
   * What of this workload the database holds. Optional: by default txbench reads its load record
   * (`metaKey`, checked by `parseRecord`) and, without one, asks `detect` (workloads/load-record.ts).
   */
  inspect?(db: Db, dialect: Dialect): Promise<LoadState<L>>;
  /** Checks a stored load record's workload fields; returns the problem in a few words, or the record. */
  parseRecord(json: Readonly<Record<string, unknown>>): { record: L } | { problem: string };
  /**
   * Whether this workload's tables are in the database whatever loaded them: a few words naming
   * what was found (`sysbench tables sbtest1..sbtest4`), or undefined. Used to say what a
   * database holds when another workload is asked to run on it.
   */
  detect(db: Db, dialect: Dialect): Promise<string | undefined>;
  /**
   * A record for tables another tool loaded (sysbench's `prepare`, pgbench `-i`), read from the
   * tables themselves; undefined when the workload cannot run on foreign tables.
   */
  adoptForeign?(db: Db, dialect: Dialect, options: O): Promise<L | undefined>;
  readonly loader: WorkloadLoader<O, L, T>;
  /** What is loaded, in a few words for messages (`2 warehouses`); default: the workload's name. */
  describeRecord?(record: L): string;
  prepareRun(setup: RunSetup<O, L>): Promise<PreparedRun<S, C>>;
  /**
   * A run's figures and audit from its shards' (pure: no database). Without it, `txbench merge`
   * sums the shards' headline figures (rates add up) and leaves the audit's checks empty.
   */
  mergeShards?(input: ShardMergeInput<C>): MergedShardFigures;
  /** Consistency checks (`txbench check`); `afterLoad` adds those that hold only right after a load. */
  check?(db: Db, dialect: Dialect, state: LoadState<L>, afterLoad: boolean): Promise<CheckResult[]>;
}

/** Declares a workload with its types inferred (user workloads: `export default defineWorkload({...})`). */
export function defineWorkload<
  O extends OptionValues,
  L,
  S,
  C extends Counters,
  T extends LoadTask = LoadTask,
>(workload: Workload<O, L, S, C, T>): Workload<O, L, S, C, T> {
  return workload;
}

/** `TransactionSet.run` from one body per profile, in profile order. */
export function dispatch<S, C extends Counters, H>(
  bodies: readonly ((tx: TransactionContext<S, C, H>) => void | Promise<void>)[],
): (type: number, tx: TransactionContext<S, C, H>) => void | Promise<void> {
  return (type, tx) => {
    const body = bodies[type];
    if (body === undefined) throw new RangeError(`unknown transaction type ${type}`);
    return body(tx);
  };
}

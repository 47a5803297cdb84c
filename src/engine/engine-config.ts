/** What an engine is asked to run: its terminals, their transactions and pacing, and its phases. */
import type { TransactionSpec } from './types.js';

export interface EngineConfig {
  /** Terminals this engine drives: global ids firstTerminal … firstTerminal + terminals - 1. */
  terminals: number;
  /**
   * The first of them, when this engine drives one slice of a larger run (a worker thread, a
   * shard; see slice.ts). A terminal's random stream and ramp start depend on its global id and
   * the run's total, so a slice behaves exactly as the same terminals do in one engine. Default 0.
   */
  firstTerminal?: number | undefined;
  /** Terminals in the whole run, all slices together (the ramp spreads over them). Default `terminals`. */
  totalTerminals?: number | undefined;
  transactions: readonly TransactionSpec[];
  /** Cards per type in each terminal's deck. */
  deck: readonly number[];
  /** Multiplies keying and think times: 1 = spec, 0 = none. */
  thinkScale: number;
  warmupMs: number;
  durationMs: number;
  /** Terminal starts are spread evenly over this time. */
  rampMs: number;
  intervalMs: number;
  /** How long in-flight transactions may take to finish once the window closes. */
  drainMs: number;
  seed: number;
  /**
   * Scripted terminals (a replayed capture's sessions): each terminal's next submission and when
   * it is due come from the script instead of the deck, keying and think times. A terminal whose
   * script is done submits nothing more; the window closes when every terminal is done and idle
   * (or at `durationMs`, whichever comes first; `durationMs` may be Infinity). With
   * `externalPhases` the engine emits `scriptsDone` instead, and its coordinator closes the window
   * once every slice's scripts are done.
   */
  script?: TerminalScript | undefined;
  /**
   * End the run at the first lost connection (--on-error stop, and the default here). With
   * false (--on-error continue) the executor replaces the connection and the run carries on;
   * failures and outages are counted.
   */
  stopOnLostConnection?: boolean | undefined;
  /**
   * The window's edges and the intervals are driven from outside (a worker thread under the
   * coordinator that lines up every worker's phases, threaded-engine.ts): no timers of its own for
   * them; `beginWindow`, `endWindow` and `takeInterval` do their jobs. A warm-up of 0 still opens
   * the window at once. Default false: the engine keeps its own time.
   */
  externalPhases?: boolean | undefined;
}

/**
 * Where scripted terminals' submissions come from. Called once per submission, in order per
 * terminal: `nextType` advances the terminal's script, then `dueAtMs` says when that submission is
 * due (ms after the run started; 0 for "as soon as the previous one is done").
 */
export interface TerminalScript {
  /**
   * The type of terminal `id`'s next submission, or -1 when its script is done; `id` is the
   * terminal's id in the whole run (firstTerminal + its index in this engine).
   */
  nextType(id: number): number;
  /** When that submission is due, ms after the run started. */
  dueAtMs(id: number): number;
}

/**
 * The closed-loop driver: terminals are state machines (menu → keying → transaction → think),
 * scheduled by one timer heap, sharing a pool of connection slots. It measures response time from
 * the moment a transaction was due, so time spent waiting for a slot is never hidden, and it
 * reports how late the scheduler itself started transactions. It emits events and never prints.
 */
import { EventEmitter } from 'node:events';
import { Rng, deriveSeed } from '../random/rng.js';
import { newHistogram, recordUs, type Histogram } from '../metrics/histogram.js';
import { CardDeck } from './deck.js';
import { thinkTimeMs } from './pacing.js';
import { OutageTracker, type Outage } from './outages.js';
import { TimerHeap } from './timer-heap.js';
import {
  emptyErrorCounts,
  RetriesExhaustedError,
  type Counters,
  type ErrorClass,
  type Executor,
  type TerminalContext,
  type TransactionSpec,
} from './types.js';

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
   * (or at `durationMs`, whichever comes first; `durationMs` may be Infinity).
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
  /** The type of terminal `id`'s next submission, or -1 when its script is done. */
  nextType(id: number): number;
  /** When that submission is due, ms after the run started. */
  dueAtMs(id: number): number;
}

export type Phase = 'warmup' | 'measure' | 'drain' | 'done';
/**
 * `incomplete-drain`: the window ran its course, but transactions were still running when the
 * drain gave up; the figures cover what finished, and `drain` says what did not.
 */
export type RunStatus = 'completed' | 'incomplete-drain' | 'interrupted' | 'failed';

/** What was due when the window closed and never finished. */
export interface DrainReport {
  /** How long the drain was allowed, ms. */
  limitMs: number;
  /**
   * Due but not yet started when the window closed (waiting for a connection slot, or for their
   * turn of the event loop): never run, since they could no longer finish inside the window.
   */
  queued: number;
  /** Still running when the drain gave up; 0 when every one finished within `limitMs`. */
  inFlight: number;
  /** queued + inFlight: transactions that were due and never finished. */
  abandoned: number;
  /** How long the oldest abandoned transaction had been due when the drain ended, ms; null when none. */
  oldestAgeMs: number | null;
  /** The terminals (0-based ids) whose transactions were still running when the drain gave up (at most 50). */
  terminals?: number[] | undefined;
}

/**
 * Transactions that straddle an edge of the measured window. The window counts a transaction due
 * at or after it opened that ended (committed, rolled back or failed) before it closed: response
 * time runs from the due time, so one due in the warm-up has part of its time there, and one still
 * running at the close has no end inside the window. Neither is in the window's figures nor in its
 * intervals; both are counted here so they stay in sight.
 */
export interface WindowEdges {
  /** Due before the window opened (in the warm-up) and ended inside it. */
  dueBefore: number;
  /** Still running when the window closed and ended during the drain. */
  drained: number;
}

/** How many abandoned terminals the drain report names. */
const DRAIN_NAMED_TERMINALS = 50;

export interface TypeStats {
  count: number;
  errors: number;
  retries: number;
  histogram: Histogram;
}

/** One type over one interval; response times in ms, 0 when the type completed nothing. */
export interface IntervalTypeStats {
  count: number;
  errors: number;
  avgMs: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
}

export interface IntervalStats {
  /** Seconds since the run started, at the end of the interval. */
  atS: number;
  phase: Phase;
  seconds: number;
  perType: IntervalTypeStats[];
  /**
   * Each type's response times over the interval (µs). Valid only while the event is being
   * delivered: the engine resets them right after, so a listener that keeps one must copy it.
   */
  histograms: readonly Histogram[];
  /** The interval's failed transactions by class, all types together. */
  errorsByClass: Record<ErrorClass, number>;
}

export interface EngineResult<C extends Counters> {
  status: RunStatus;
  /** The measured window as it actually ran (shorter when interrupted). */
  windowSeconds: number;
  measured: boolean;
  perType: TypeStats[];
  errorsByClass: Record<ErrorClass, number>;
  /** The workload's counters, summed over exactly the transactions the window counts. */
  counters: C;
  /**
   * How late the scheduler handed each transaction to the connection pool (µs), over the measured
   * window: every submission, whether it came off the timer heap or the think-scale-0 ready ring.
   */
  lateness: Histogram;
  drain: DrainReport;
  /** What ended across the window's edges, counted apart from it. */
  edges: WindowEdges;
  /** Each stretch from a transaction failing for a lost or unanswering database to one succeeding again. */
  outages: Outage[];
  failure?: string | undefined;
}

/** One type's interval figures: its counts, and response times read from its histogram (µs). */
export function intervalTypeStats(count: number, errors: number, h: Histogram): IntervalTypeStats {
  const empty = h.totalCount === 0;
  // HDR reports a bucket's upper edge, which can exceed the largest value recorded.
  const at = (p: number): number => (empty ? 0 : Math.min(h.getValueAtPercentile(p), h.maxValue) / 1000);
  return {
    count,
    errors,
    avgMs: empty ? 0 : Math.round(h.mean) / 1000,
    p50Ms: at(50),
    p90Ms: at(90),
    p95Ms: at(95),
    p99Ms: at(99),
  };
}

export interface EngineEvents {
  phase: [phase: Phase];
  interval: [stats: IntervalStats];
}

interface Terminal extends TerminalContext {
  readonly deck: CardDeck;
}

export class Engine<C extends Counters> extends EventEmitter<EngineEvents> {
  private readonly heap: TimerHeap;
  private readonly terminals: Terminal[];
  private readonly typeOf: Uint32Array;
  /** When the terminal's submission became due (response time runs from here). */
  private readonly dueAt: Float64Array;
  /**
   * When it was scheduled to be due: the same as dueAt, except for a scripted terminal still busy
   * with its previous submission at its next one's scheduled time. Lateness runs from here.
   */
  private readonly scheduledAt: Float64Array;
  /** Scripted terminals whose script is done. */
  private finishedTerminals = 0;
  private readonly keyingMs: Float64Array;
  private readonly thinkMs: Float64Array;
  /** Terminals waiting for a free slot, in arrival order (a ring, no Array.shift). */
  private readonly waitRing: Int32Array;
  private waitHead = 0;
  private waitCount = 0;
  /** Terminals with no wait left (think-scale 0), submitted together on the next turn of the event loop. */
  private readonly readyRing: Int32Array;
  private readyHead = 0;
  private readyCount = 0;
  private readyScheduled = false;
  private readonly freeSlots: number[] = [];
  private readonly slotTerminal: Int32Array;
  /** Per-slot scratch counters: merged into the window's only when the transaction is counted. */
  private readonly slotCounters: C[] = [];
  private readonly slotDone: ((retries: number) => void)[] = [];
  private readonly slotFailed: ((err: unknown) => void)[] = [];
  private readonly counterKeys: (keyof C)[];
  private inFlight = 0;

  private phase: Phase = 'warmup';
  private started = false;
  private startedAt = 0;
  private windowStart = Infinity;
  private windowEnd = Infinity;
  private accepting = true;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  private phaseTimer: NodeJS.Timeout | undefined;
  private intervalTimer: NodeJS.Timeout | undefined;
  private lastIntervalAt = 0;

  private window: TypeStats[];
  private readonly intervalStats: TypeStats[];
  private counters: C;
  private errorsByClass: Record<ErrorClass, number> = emptyErrorCounts();
  private intervalErrors: Record<ErrorClass, number> = emptyErrorCounts();
  private outages: OutageTracker | undefined;
  private readonly lateness = newHistogram();
  private status: RunStatus = 'completed';
  private failure: string | undefined;
  private finish: (() => void) | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private drainLimitMs = 0;
  /** Due but never started at the window's close, and the earliest due time among them. */
  private queuedAtClose = 0;
  private oldestQueuedDue = Infinity;
  private drain: DrainReport | undefined;
  private readonly edges: WindowEdges = { dueBefore: 0, drained: 0 };

  constructor(
    private readonly config: EngineConfig,
    private readonly executor: Executor<C>,
    private readonly newCounters: () => C,
  ) {
    super();
    const n = config.terminals;
    this.heap = new TimerHeap(n);
    this.typeOf = new Uint32Array(n);
    this.dueAt = new Float64Array(n);
    this.scheduledAt = new Float64Array(n);
    this.waitRing = new Int32Array(n);
    this.readyRing = new Int32Array(n);
    this.slotTerminal = new Int32Array(executor.connections).fill(-1);
    this.keyingMs = Float64Array.from(config.transactions, (t) => t.keyingS * 1000 * config.thinkScale);
    this.thinkMs = Float64Array.from(config.transactions, (t) => t.thinkMeanS * 1000 * config.thinkScale);
    this.terminals = new Array<Terminal>(n);
    const first = config.firstTerminal ?? 0;
    for (let i = 0; i < n; i++) {
      const rng = new Rng(deriveSeed(config.seed, 0x7e51, first + i));
      this.terminals[i] = { id: first + i, rng, deck: new CardDeck(config.deck, rng) };
    }
    for (let s = executor.connections - 1; s >= 0; s--) {
      this.freeSlots.push(s);
      this.slotCounters[s] = newCounters();
      // One pair of callbacks per slot, made once: no closure per transaction.
      this.slotDone[s] = (retries) => this.complete(s, retries);
      this.slotFailed[s] = (err) => this.fail(s, err);
    }
    this.counters = newCounters();
    this.counterKeys = Object.keys(this.counters) as (keyof C)[];
    this.window = this.newTypeStats();
    this.intervalStats = this.newTypeStats();
  }

  /** Runs warm-up, then the measured window; resolves when in-flight transactions have drained. */
  run(): Promise<EngineResult<C>> {
    if (this.started) throw new Error('an Engine runs once');
    this.started = true;
    return new Promise((resolve) => {
      this.finish = () => resolve(this.result());
      const now = performance.now();
      this.startedAt = now;
      this.lastIntervalAt = now;
      this.outages = new OutageTracker(now, Date.now());
      if (!this.accepting) {
        // Stopped before it started (Ctrl-C during set-up): nothing to run.
        this.done();
        return;
      }
      const { terminals, rampMs, warmupMs } = this.config;
      const first = this.config.firstTerminal ?? 0;
      const total = this.config.totalTerminals ?? terminals;
      this.emit('phase', 'warmup');
      // Open the window before the first transactions are due, so that none of them is lost.
      if (warmupMs > 0 && Number.isFinite(warmupMs)) {
        if (this.config.externalPhases !== true)
          this.phaseTimer = setTimeout(() => this.openWindow(), warmupMs);
      } else this.openWindow();
      const begin = performance.now();
      for (let i = 0; i < terminals; i++) {
        const startAt = begin + (total > 1 ? (rampMs * (first + i)) / total : 0);
        this.scheduleNext(i, startAt, false);
      }
      this.restartIntervals();
      this.armTimer();
    });
  }

  /** Stops early (Ctrl-C, a lost connection): what was measured so far is kept. */
  stop(status: Exclude<RunStatus, 'completed'>, reason?: string): void {
    if (this.phase === 'done') return;
    if (this.phase === 'drain') {
      // Ctrl-C or SIGTERM during the drain: stop waiting; what is still running is reported as such.
      if (status === 'interrupted') {
        this.status = status;
        this.failure ??= reason;
        this.done();
      }
      return;
    }
    this.failure ??= reason;
    if (!this.started) {
      this.accepting = false;
      this.status = status;
      return;
    }
    this.closeWindow(status);
  }

  /** Ends the warm-up now (externalPhases, or a warm-up that ends on steady state). */
  beginWindow(): void {
    if (this.started && this.phase === 'warmup') this.openWindow();
  }

  /** Ends the measured window now, as its duration does (externalPhases, or on steady state). */
  endWindow(): void {
    if (this.started && (this.phase === 'warmup' || this.phase === 'measure')) this.closeWindow('completed');
  }

  /** Ends the current interval now and emits it (externalPhases). */
  takeInterval(): void {
    if (this.started && this.phase !== 'done') this.emitInterval();
  }

  get currentPhase(): Phase {
    return this.phase;
  }

  private newTypeStats(): TypeStats[] {
    return this.config.transactions.map(() => ({
      count: 0,
      errors: 0,
      retries: 0,
      histogram: newHistogram(),
    }));
  }

  private openWindow(): void {
    if (!this.accepting) return;
    // Intervals restart with the window, so none straddles warm-up and measurement.
    // One clock reading for both edges: the measured intervals add up to exactly the window.
    const now = performance.now();
    // Ended early (steady state): the warm-up's own timer must not fire into the window.
    if (this.phaseTimer) clearTimeout(this.phaseTimer);
    if (this.config.warmupMs > 0) this.emitInterval(now, true);
    else this.lastIntervalAt = now;
    this.restartIntervals();
    this.windowStart = now;
    this.window = this.newTypeStats();
    this.counters = this.newCounters();
    this.errorsByClass = emptyErrorCounts();
    this.lateness.reset();
    this.phase = 'measure';
    // The window lasts its full duration however late the warm-up timer fired.
    if (Number.isFinite(this.config.durationMs) && this.config.externalPhases !== true)
      this.phaseTimer = setTimeout(() => this.closeWindow('completed'), this.config.durationMs);
    this.emit('phase', 'measure');
  }

  private closeWindow(status: RunStatus): void {
    if (!this.accepting) return;
    this.accepting = false;
    this.status = status;
    this.windowEnd = performance.now();
    this.emitInterval(this.windowEnd, true);
    this.restartIntervals();
    if (this.phaseTimer) clearTimeout(this.phaseTimer);
    if (this.timer) clearTimeout(this.timer);
    this.countQueued();
    this.heap.clear();
    this.waitCount = 0;
    this.readyCount = 0;
    this.phase = 'drain';
    this.emit('phase', 'drain');
    // After a lost connection, in-flight work on dead connections may never settle: wait less.
    this.drainLimitMs = status === 'failed' ? Math.min(this.config.drainMs, 5000) : this.config.drainMs;
    if (this.inFlight === 0) this.done();
    else {
      this.drainTimer = setTimeout(() => this.done(), this.drainLimitMs);
      this.executor.windowClosed?.();
    }
  }

  /**
   * Terminals that were due but had not started when the window closed: those waiting for a slot,
   * those on the ready ring, and those the timer heap had not yet released. They are dropped, not
   * run (nothing they did could count any more), but they are counted.
   */
  private countQueued(): void {
    let queued = 0;
    let oldest = Infinity;
    const note = (id: number): void => {
      queued++;
      oldest = Math.min(oldest, this.dueAt[id]!);
    };
    for (let k = 0; k < this.waitCount; k++) note(this.waitRing[(this.waitHead + k) % this.waitRing.length]!);
    for (let k = 0; k < this.readyCount; k++)
      note(this.readyRing[(this.readyHead + k) % this.readyRing.length]!);
    const now = this.windowEnd;
    while (this.heap.size > 0 && this.heap.peekDue() <= now) note(this.heap.pop());
    this.queuedAtClose = queued;
    this.oldestQueuedDue = oldest;
  }

  /** What the drain left behind, taken once as it ends (on time or not). */
  private drainReport(): DrainReport {
    const now = performance.now();
    let inFlight = 0;
    let oldest = this.oldestQueuedDue;
    const terminals: number[] = [];
    for (let s = 0; s < this.slotTerminal.length; s++) {
      const id = this.slotTerminal[s]!;
      if (id < 0) continue;
      inFlight++;
      if (terminals.length < DRAIN_NAMED_TERMINALS) terminals.push(this.terminals[id]!.id);
      oldest = Math.min(oldest, this.dueAt[id]!);
    }
    const abandoned = this.queuedAtClose + inFlight;
    return {
      limitMs: this.drainLimitMs,
      queued: this.queuedAtClose,
      inFlight,
      abandoned,
      oldestAgeMs: abandoned > 0 ? Math.max(0, Math.round(now - oldest)) : null,
      ...(terminals.length > 0 ? { terminals: terminals.sort((a, b) => a - b) } : {}),
    };
  }

  private done(): void {
    if (this.phase === 'done') return;
    this.drain = this.drainReport();
    // Only an otherwise complete run is downgraded: interrupted and failed already say why it ended.
    if (this.drain.inFlight > 0 && this.status === 'completed') this.status = 'incomplete-drain';
    if (this.drainTimer) clearTimeout(this.drainTimer);
    if (this.intervalTimer) clearInterval(this.intervalTimer);
    if (this.phaseTimer) clearTimeout(this.phaseTimer);
    if (this.timer) clearTimeout(this.timer);
    this.emitInterval();
    this.phase = 'done';
    this.emit('phase', 'done');
    this.finish?.();
  }

  private result(): EngineResult<C> {
    const measured = this.windowStart !== Infinity;
    const end = this.windowEnd === Infinity ? performance.now() : this.windowEnd;
    return {
      status: this.status,
      windowSeconds: measured ? Math.max(0, (end - this.windowStart) / 1000) : 0,
      measured,
      perType: this.window,
      errorsByClass: this.errorsByClass,
      counters: this.counters,
      lateness: this.lateness,
      drain: this.drain ?? this.drainReport(),
      edges: { ...this.edges },
      outages: this.outages?.outages(performance.now()) ?? [],
      failure: this.failure,
    };
  }

  /** Terminal `id` chooses its next transaction and keys it in, starting at `fromMs`. */
  private scheduleNext(id: number, fromMs: number, withThink: boolean): void {
    const script = this.config.script;
    if (script) {
      this.scheduleScripted(script, id, fromMs);
      return;
    }
    const t = this.terminals[id]!;
    const type = t.deck.draw();
    this.typeOf[id] = type;
    const think = withThink ? thinkTimeMs(t.rng, this.thinkMs[type]!) : 0;
    const due = fromMs + think + this.keyingMs[type]!;
    this.dueAt[id] = due;
    this.scheduledAt[id] = due;
    if (due <= fromMs && withThink) {
      // No pacing at all (think-scale 0): no trip through the heap, but still a turn of the event
      // loop, shared by every terminal that became ready meanwhile, so timers and signals run.
      this.readyRing[(this.readyHead + this.readyCount) % this.readyRing.length] = id;
      this.readyCount++;
      if (!this.readyScheduled) {
        this.readyScheduled = true;
        setImmediate(this.flushReady);
      }
      return;
    }
    this.heap.push(due, id);
    if (due < this.timerDue) this.armTimer();
  }

  /** A scripted terminal's next submission: at its scheduled time, or now if that has passed. */
  private scheduleScripted(script: TerminalScript, id: number, fromMs: number): void {
    const type = script.nextType(id);
    if (type < 0) {
      this.finishedTerminals++;
      this.endIfScriptsDone();
      return;
    }
    this.typeOf[id] = type;
    const scheduled = this.startedAt + script.dueAtMs(id);
    this.scheduledAt[id] = scheduled;
    const due = Math.max(scheduled, fromMs);
    this.dueAt[id] = due;
    if (due <= fromMs) {
      this.readyRing[(this.readyHead + this.readyCount) % this.readyRing.length] = id;
      this.readyCount++;
      if (!this.readyScheduled) {
        this.readyScheduled = true;
        setImmediate(this.flushReady);
      }
      return;
    }
    this.heap.push(due, id);
    if (due < this.timerDue) this.armTimer();
  }

  /** Every scripted terminal is done and nothing runs: the window closes, the run has nothing left. */
  private endIfScriptsDone(): void {
    if (this.finishedTerminals < this.config.terminals || this.inFlight > 0 || !this.accepting) return;
    // Let the warm-up end first if it has not: a script shorter than the warm-up measures nothing.
    setImmediate(() => this.closeWindow('completed'));
  }

  private readonly flushReady = (): void => {
    this.readyScheduled = false;
    let n = this.readyCount;
    while (n-- > 0 && this.readyCount > 0) {
      const id = this.readyRing[this.readyHead]!;
      this.readyHead = (this.readyHead + 1) % this.readyRing.length;
      this.readyCount--;
      this.submit(id);
    }
  };

  private armTimer(): void {
    const next = this.heap.peekDue();
    if (next === this.timerDue && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = next;
    if (next === Infinity) return;
    this.timer = setTimeout(this.onTimer, Math.max(0, next - performance.now()));
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = performance.now();
    // Terminals due within the next half millisecond go now: setTimeout cannot aim finer.
    while (this.heap.size > 0 && this.heap.peekDue() <= now + 0.5) this.submit(this.heap.pop());
    this.armTimer();
  };

  /**
   * Hands a due terminal to the connection pool, recording how late the scheduler got to it: from
   * its due time to now, whichever way it got here (timer heap or ready ring). Waiting for a free
   * slot after this point is not lateness: that is the pool's (the database's) delay, already in
   * the response time, which runs from the due time; lateness is the scheduler's own delay only.
   */
  private submit(id: number): void {
    if (!this.accepting) return;
    // Read per submission, not per batch: a long batch delays its last terminals, and that shows.
    const late = performance.now() - this.scheduledAt[id]!;
    // The heap releases terminals up to half a millisecond early: that is not lateness.
    recordUs(this.lateness, late > 0 ? late * 1000 : 0);
    const slot = this.freeSlots.pop();
    if (slot === undefined) {
      this.waitRing[(this.waitHead + this.waitCount) % this.waitRing.length] = id;
      this.waitCount++;
      return;
    }
    this.start(id, slot);
  }

  private start(id: number, slot: number): void {
    this.slotTerminal[slot] = id;
    this.inFlight++;
    const scratch = this.slotCounters[slot]!;
    for (const k of this.counterKeys) (scratch[k] as number) = 0;
    const executor = this.executor;
    if (executor.start !== undefined)
      executor.start(
        slot,
        this.typeOf[id]!,
        this.terminals[id]!,
        scratch,
        this.slotDone[slot]!,
        this.slotFailed[slot]!,
      );
    else
      executor
        .execute(slot, this.typeOf[id]!, this.terminals[id]!, scratch)
        .then(this.slotDone[slot], this.slotFailed[slot]);
  }

  /**
   * Notes a transaction due at `due` ending now, and says whether the window counts it: due at or
   * after it opened, ending while it is open (the phase says so exactly: the window closes between
   * two callbacks, never during one). One that does not is tallied in `edges` when it straddles an
   * edge; one due in the warm-up and ending in the window stays out of the measured intervals too,
   * so that they add up to the window.
   */
  private noteEnding(due: number): boolean {
    if (this.phase === 'measure') {
      if (due >= this.windowStart) return true;
      this.edges.dueBefore++;
    } else if (this.phase === 'drain' && this.windowStart !== Infinity) this.edges.drained++;
    return false;
  }

  /** An ending outside the window goes in the interval of its phase, except one due before the window. */
  private inInterval(counted: boolean): boolean {
    return counted || this.phase !== 'measure';
  }

  private complete(slot: number, retries: number): void {
    const now = performance.now();
    const id = this.slotTerminal[slot]!;
    const due = this.dueAt[id]!;
    const type = this.typeOf[id]!;
    const us = (now - due) * 1000;
    if (this.outages!.open) this.outages!.success(now);
    const counted = this.noteEnding(due);
    if (this.inInterval(counted)) {
      const iv = this.intervalStats[type]!;
      iv.count++;
      iv.retries += retries;
      recordUs(iv.histogram, us);
    }
    if (counted) {
      const w = this.window[type]!;
      w.count++;
      w.retries += retries;
      recordUs(w.histogram, us);
      const scratch = this.slotCounters[slot]!;
      for (const k of this.counterKeys) (this.counters[k] as number) += scratch[k] as number;
    }
    this.release(slot);
    this.next(id, now);
  }

  private fail(slot: number, err: unknown): void {
    const now = performance.now();
    const id = this.slotTerminal[slot]!;
    const cls = err instanceof RetriesExhaustedError ? err.errorClass : this.executor.classify(err);
    const retries = err instanceof RetriesExhaustedError ? err.retries : 0;
    const type = this.typeOf[id]!;
    const counted = this.noteEnding(this.dueAt[id]!);
    if (this.inInterval(counted)) {
      this.intervalStats[type]!.errors++;
      this.intervalErrors[cls]++;
    }
    const cause = err instanceof RetriesExhaustedError ? err.lastError : err;
    this.outages!.failure(now, cls, cause, this.executor.isServerFault?.(cause) === true);
    if (counted) {
      const w = this.window[type]!;
      w.errors++;
      w.retries += retries;
      this.errorsByClass[cls]++;
    }
    this.release(slot);
    if (cls === 'connection' && this.config.stopOnLostConnection !== false) {
      this.stop(
        'failed',
        `lost the database connection: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
    this.next(id, now);
  }

  /** Frees the slot, handing it to the longest-waiting terminal if there is one. */
  private release(slot: number): void {
    this.inFlight--;
    if (this.waitCount > 0 && this.accepting) {
      const next = this.waitRing[this.waitHead]!;
      this.waitHead = (this.waitHead + 1) % this.waitRing.length;
      this.waitCount--;
      this.start(next, slot);
    } else {
      this.slotTerminal[slot] = -1;
      this.freeSlots.push(slot);
    }
  }

  private next(id: number, now: number): void {
    if (this.accepting) this.scheduleNext(id, now, true);
    else if (this.inFlight === 0 && this.phase === 'drain') this.done();
  }

  private restartIntervals(): void {
    if (this.intervalTimer) clearInterval(this.intervalTimer);
    if (this.config.externalPhases === true) return;
    this.intervalTimer = setInterval(() => this.emitInterval(), this.config.intervalMs);
  }

  /**
   * Ends the current interval at `now`. A sliver under a millisecond with nothing in it is left to
   * the next interval, except at an edge of the window (`edge`): there it is emitted, so that the
   * measured intervals cover exactly the window.
   */
  private emitInterval(now = performance.now(), edge = false): void {
    const seconds = (now - this.lastIntervalAt) / 1000;
    const counted = this.intervalStats.some((s) => s.count > 0 || s.errors > 0);
    if (seconds <= 0 || (seconds < 0.001 && !counted && !edge)) return;
    this.lastIntervalAt = now;
    // A few percentile reads per type per interval, from the histogram the interval keeps anyway.
    const perType = this.intervalStats.map((s) => intervalTypeStats(s.count, s.errors, s.histogram));
    const histograms = this.intervalStats.map((s) => s.histogram);
    const errorsByClass = this.intervalErrors;
    this.intervalErrors = emptyErrorCounts();
    this.emit('interval', {
      atS: (now - this.startedAt) / 1000,
      phase: this.phase,
      seconds,
      perType,
      histograms,
      errorsByClass,
    });
    for (const s of this.intervalStats) {
      s.count = 0;
      s.errors = 0;
      s.retries = 0;
      s.histogram.reset();
    }
  }
}

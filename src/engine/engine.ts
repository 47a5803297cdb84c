/**
 * The closed-loop driver: terminals are state machines (menu → keying → transaction → think),
 * scheduled by one timer heap, sharing a pool of connection slots. It measures response time from
 * the moment a transaction was due, so time spent waiting for a slot is never hidden, and it
 * reports how late the scheduler itself started transactions. It emits events and never prints.
 */
import { EventEmitter } from 'node:events';
import { newHistogram, recordUs } from '../metrics/histogram.js';
import { drainReport } from './drain.js';
import { DueQueue } from './due-queue.js';
import type { EngineConfig } from './engine-config.js';
import {
  intervalTypeStats,
  type DrainReport,
  type EngineEvents,
  type EngineResult,
  type Phase,
  type RunStatus,
  type WindowEdges,
} from './engine-result.js';
import { OutageTracker } from './outages.js';
import { Tally } from './tally.js';
import { Terminals } from './terminals.js';
import { RetriesExhaustedError, type Counters, type Executor } from './types.js';

export class Engine<C extends Counters> extends EventEmitter<EngineEvents> {
  /** When each terminal is due next: hands it to `submit` then. */
  private readonly due: DueQueue;
  private readonly terminals: Terminals;
  /** Scripted terminals whose script is done. */
  private finishedTerminals = 0;
  /** Terminals waiting for a free slot, in arrival order (a ring, no Array.shift). */
  private readonly waitRing: Int32Array;
  private waitHead = 0;
  private waitCount = 0;
  private readonly freeSlots: number[] = [];
  private readonly slotTerminal: Int32Array;
  /** Per-slot scratch counters: merged into the window's only when the transaction is counted. */
  private readonly slotCounters: C[] = [];
  private readonly slotDone: ((retries: number) => void)[] = [];
  private readonly slotFailed: ((err: unknown) => void)[] = [];
  private readonly counterKeys: (keyof C)[];
  private inFlight = 0;
  /** Calls into the executor under way (a callback executor may end a transaction inside one). */
  private executorDepth = 0;

  private phase: Phase = 'warmup';
  private started = false;
  private startedAt = 0;
  private windowStart = Infinity;
  private windowEnd = Infinity;
  private accepting = true;
  private phaseTimer: NodeJS.Timeout | undefined;
  private intervalTimer: NodeJS.Timeout | undefined;
  private lastIntervalAt = 0;

  /** What the measured window counted, and the current interval. */
  private window: Tally;
  private readonly interval: Tally;
  private counters: C;
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
    this.due = new DueQueue(n, (id) => this.submit(id));
    this.terminals = new Terminals(config);
    this.waitRing = new Int32Array(n);
    this.slotTerminal = new Int32Array(executor.connections).fill(-1);
    for (let s = executor.connections - 1; s >= 0; s--) {
      this.freeSlots.push(s);
      this.slotCounters[s] = newCounters();
      // One pair of callbacks per slot, made once: no closure per transaction.
      this.slotDone[s] = (retries) => this.complete(s, retries);
      this.slotFailed[s] = (err) => this.fail(s, err);
    }
    this.counters = newCounters();
    this.counterKeys = Object.keys(this.counters) as (keyof C)[];
    this.window = new Tally(config.transactions.length);
    this.interval = new Tally(config.transactions.length);
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
      this.outages = new OutageTracker(now, Date.now(), (edge, outage) => this.emit('outage', edge, outage));
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
      this.due.armTimer();
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
    this.window = new Tally(this.config.transactions.length);
    this.counters = this.newCounters();
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
    this.countQueued();
    this.waitCount = 0;
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
      oldest = Math.min(oldest, this.terminals.dueAt[id]!);
    };
    for (let k = 0; k < this.waitCount; k++) note(this.waitRing[(this.waitHead + k) % this.waitRing.length]!);
    this.due.close(this.windowEnd, note);
    this.queuedAtClose = queued;
    this.oldestQueuedDue = oldest;
  }

  /** What the drain left behind, taken once as it ends (on time or not). */
  private drainReport(): DrainReport {
    const running: { terminal: number; dueAt: number }[] = [];
    for (const id of this.slotTerminal)
      if (id >= 0)
        running.push({ terminal: this.terminals.context[id]!.id, dueAt: this.terminals.dueAt[id]! });
    const queued = { count: this.queuedAtClose, oldestDue: this.oldestQueuedDue };
    return drainReport(this.drainLimitMs, queued, running, performance.now());
  }

  private done(): void {
    if (this.phase === 'done') return;
    this.drain = this.drainReport();
    // Only an otherwise complete run is downgraded: interrupted and failed already say why it ended.
    if (this.drain.inFlight > 0 && this.status === 'completed') this.status = 'incomplete-drain';
    if (this.drainTimer) clearTimeout(this.drainTimer);
    if (this.intervalTimer) clearInterval(this.intervalTimer);
    if (this.phaseTimer) clearTimeout(this.phaseTimer);
    this.due.stop();
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
      perType: this.window.perType,
      errorsByClass: this.window.errorsByClass,
      counters: this.counters,
      lateness: this.lateness,
      drain: this.drain ?? this.drainReport(),
      edges: { ...this.edges },
      outages: this.outages?.outages(performance.now()) ?? [],
      failure: this.failure,
    };
  }

  /**
   * Terminal `id` chooses its next transaction and keys it in, starting at `fromMs`. `ended`: its
   * last transaction has just ended, outside any call into the executor.
   */
  private scheduleNext(id: number, fromMs: number, withThink: boolean, ended = false): void {
    const next = this.terminals.next(id, fromMs, withThink, this.startedAt);
    if (next === 'done') {
      this.finishedTerminals++;
      this.endIfScriptsDone();
    } else if (next === 'now') {
      // No pacing at all (think-scale 0), or a script behind its time: no trip through the heap.
      // From the end of a transaction it goes at once, within a bound, so that timers and signals
      // still run (DueQueue.atOnce); otherwise on a turn of the event loop shared by every
      // terminal that became ready meanwhile. A transaction the executor ended synchronously,
      // inside the call that started it, always takes the turn: no recursion through the executor.
      if (ended && this.executorDepth === 0) this.due.atOnce(id);
      else this.due.soon(id);
    } else this.due.at(this.terminals.dueAt[id]!, id);
  }

  /** Every scripted terminal is done and nothing runs: the window closes, the run has nothing left. */
  private endIfScriptsDone(): void {
    if (this.finishedTerminals < this.config.terminals || this.inFlight > 0 || !this.accepting) return;
    // One slice of a run (a worker thread): the window closes once every slice is done, as told.
    if (this.config.externalPhases === true) {
      this.emit('scriptsDone');
      return;
    }
    // Let the warm-up end first if it has not: a script shorter than the warm-up measures nothing.
    setImmediate(() => this.closeWindow('completed'));
  }

  /**
   * Hands a due terminal to the connection pool, recording how late the scheduler got to it: from
   * its due time to now, whichever way it got here (timer heap or ready ring). Waiting for a free
   * slot after this point is not lateness: that is the pool's (the database's) delay, already in
   * the response time, which runs from the due time; lateness is the scheduler's own delay only.
   */
  private submit(id: number): void {
    if (!this.accepting) return;
    // Read per submission, not per batch: a long batch delays its last terminals, and that shows.
    const late = performance.now() - this.terminals.scheduledAt[id]!;
    const slot = this.freeSlots.pop();
    if (slot === undefined) {
      this.waitRing[(this.waitHead + this.waitCount) % this.waitRing.length] = id;
      this.waitCount++;
    } else this.start(id, slot);
    // Recorded once the transaction is on its way: at one terminal every answer waits for the
    // client's work between the last answer and the next statement's write, so none is done there
    // that can be done after it. The heap releases terminals up to half a millisecond early: that
    // is not lateness.
    recordUs(this.lateness, late > 0 ? late * 1000 : 0);
  }

  private start(id: number, slot: number): void {
    this.slotTerminal[slot] = id;
    this.inFlight++;
    const scratch = this.slotCounters[slot]!;
    for (const k of this.counterKeys) (scratch[k] as number) = 0;
    const executor = this.executor;
    this.executorDepth++;
    try {
      if (executor.start !== undefined)
        executor.start(
          slot,
          this.terminals.typeOf[id]!,
          this.terminals.context[id]!,
          scratch,
          this.slotDone[slot]!,
          this.slotFailed[slot]!,
        );
      else
        executor
          .execute(slot, this.terminals.typeOf[id]!, this.terminals.context[id]!, scratch)
          .then(this.slotDone[slot], this.slotFailed[slot]);
    } finally {
      this.executorDepth--;
    }
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
    const due = this.terminals.dueAt[id]!;
    const type = this.terminals.typeOf[id]!;
    const us = (now - due) * 1000;
    if (this.outages!.open) this.outages!.success(now);
    const counted = this.noteEnding(due);
    if (this.inInterval(counted)) this.interval.completed(type, retries, us);
    if (counted) {
      this.window.completed(type, retries, us);
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
    const type = this.terminals.typeOf[id]!;
    const counted = this.noteEnding(this.terminals.dueAt[id]!);
    if (this.inInterval(counted)) this.interval.failed(type, cls, retries);
    const cause = err instanceof RetriesExhaustedError ? err.lastError : err;
    this.outages!.failure(now, cls, cause, this.executor.isServerFault?.(cause) === true);
    if (counted) this.window.failed(type, cls, retries);
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
    if (this.accepting) this.scheduleNext(id, now, true, true);
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
    if (seconds <= 0 || (seconds < 0.001 && !this.interval.hasEndings() && !edge)) return;
    this.lastIntervalAt = now;
    // A few percentile reads per type per interval, from the histogram the interval keeps anyway.
    const perType = this.interval.perType.map((s) => intervalTypeStats(s.count, s.errors, s.histogram));
    const histograms = this.interval.perType.map((s) => s.histogram);
    this.emit('interval', {
      atS: (now - this.startedAt) / 1000,
      phase: this.phase,
      seconds,
      perType,
      histograms,
      errorsByClass: this.interval.errorsByClass,
    });
    this.interval.reset();
  }
}

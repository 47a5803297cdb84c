/**
 * A run's terminals driven by several worker threads (--workers), behind the same surface as one
 * Engine: 'phase', 'interval' and 'outage' events, run() → EngineResult, stop(). The main thread
 * runs no transactions: it decides when the warm-up ends, when the window closes and when an
 * interval is cut, tells every worker at once, and merges what they send back exactly (merge.ts),
 * so merged interval i is the sum of every worker's interval i and the result the sum of their
 * results; the run is out while any worker's engine sees an outage. A worker that crashes or
 * fails to set up fails the run with one line; it never hangs.
 */
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { EngineEvents, EngineResult, Phase, RunStatus } from '../engine/engine-result.js';
import {
  LiveOutages,
  mergeIntervalParts,
  mergeResults,
  onRunClock,
  type IntervalPart,
} from '../engine/merge.js';
import { sliceConnections, sliceTerminals, type TerminalSlice } from '../engine/slice.js';
import type { Counters } from '../engine/types.js';
import { decodeInterval, decodeResult } from '../engine/wire.js';
import { ExitCode, TxbenchError } from '../errors.js';
import type { FaultCounts } from '../workloads/fault-policy.js';
import type { WorkerSlice } from '../results/worker-slice.js';
import type { FromRunWorker, StopStatus, ToRunWorker, WorkerEngineConfig } from './run-worker-protocol.js';

/** How a message from worker `index` reaches the engine round it belongs to. */
export interface Round {
  onMessage(index: number, message: FromRunWorker): void;
  abort(err: Error): void;
}

/** What an engine round needs of the workers: RunWorkers, or a test's stand-in. */
export interface WorkerPool {
  readonly size: number;
  attach(round: Round): void;
  detach(round: Round): void;
  send(message: ToRunWorker): void;
}

/** The worker threads of one target, set up once and driven through one or more rounds. */
export class RunWorkers implements WorkerPool {
  private round: Round | undefined;
  private failure: Error | undefined;
  private ending = false;
  private readonly faultCounts: FaultCounts[];
  private readonly tallies: Record<string, number>[];
  private readonly counted: number[];

  private constructor(
    private readonly workers: readonly Worker[],
    readonly slices: readonly WorkerSlice[],
  ) {
    this.faultCounts = slices.map(() => ({
      reconnects: 0,
      reconnectFailures: 0,
      cancelled: 0,
      abandoned: 0,
    }));
    this.tallies = slices.map(() => ({}));
    this.counted = slices.map(() => 0);
  }

  /** Starts `count` workers over slices of the terminals; resolves once every one is set up. */
  static async start<I extends { totalTerminals: number }>(
    init: I,
    count: number,
    connections: number,
    /** The worker entry: a run's (run-worker.js), or the bench's stand-in. */
    workerUrl: URL = new URL('./run-worker.js', import.meta.url),
    /** The terminals this process drives (a shard's slice); default all of them. */
    within: TerminalSlice = { first: 0, count: init.totalTerminals },
  ): Promise<RunWorkers> {
    const slices = Array.from({ length: count }, (_, i): WorkerSlice => {
      // `connections` are this process's: shared in proportion to each worker's part of `within`.
      const part = sliceTerminals(within.count, i, count);
      return {
        first: within.first + part.first,
        count: part.count,
        connections: sliceConnections(connections, part, within.count),
      };
    });
    const workers = slices.map(
      (s) =>
        new Worker(workerUrl, {
          workerData: { ...init, slice: { first: s.first, count: s.count }, connections: s.connections },
        }),
    );
    const pool = new RunWorkers(workers, slices);
    await pool.whenReady();
    return pool;
  }

  private whenReady(): Promise<void> {
    let ready = 0;
    return new Promise((resolve, reject) => {
      this.round = {
        onMessage: (_, message) => {
          if (message.type === 'ready' && ++ready === this.workers.length) {
            this.round = undefined;
            resolve();
          }
        },
        abort: reject,
      };
      this.workers.forEach((w, i) => {
        w.on('message', (message: FromRunWorker) => this.onMessage(i, message));
        w.on('error', (err) => this.crash(i, err.message));
        w.on('exit', (code) => {
          if (!this.ending) this.crash(i, `exited unexpectedly (code ${code})`);
        });
      });
    });
  }

  /** One engine run over every worker's slice; `types` transaction types, `zero` fresh counters. */
  engine<C extends Counters>(config: WorkerEngineConfig, zero: () => C): ThreadedEngine<C> {
    return new ThreadedEngine<C>(this, config, zero);
  }

  /** What the executors did about faults, every worker together, over every round so far. */
  faults(): FaultCounts {
    const out: FaultCounts = { reconnects: 0, reconnectFailures: 0, cancelled: 0, abandoned: 0 };
    for (const f of this.faultCounts)
      for (const k of Object.keys(out) as (keyof FaultCounts)[]) out[k] += f[k];
    return out;
  }

  /** Each worker's whole-run tallies (PreparedRun.runTallies), to add into the auditing run. */
  runTallies(): readonly Record<string, number>[] {
    return this.tallies;
  }

  /** Transactions each worker completed in the last round's measured window. */
  transactions(): readonly number[] {
    return this.counted;
  }

  get size(): number {
    return this.workers.length;
  }

  /** Closes every worker's connections and ends the threads. */
  async close(): Promise<void> {
    this.ending = true;
    if (this.failure !== undefined) {
      await Promise.all(this.workers.map((w) => w.terminate()));
      return;
    }
    await Promise.all(
      this.workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => void w.terminate().then(() => resolve()), 10_000);
            w.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            this.post(w, { type: 'end' });
          }),
      ),
    );
  }

  /** @internal */
  attach(round: Round): void {
    if (this.failure !== undefined) throw this.failure;
    this.round = round;
  }

  /** @internal */
  detach(round: Round): void {
    if (this.round === round) this.round = undefined;
  }

  /** @internal */
  send(message: ToRunWorker): void {
    for (const w of this.workers) this.post(w, message);
  }

  private post(w: Worker, message: ToRunWorker): void {
    try {
      w.postMessage(message);
    } catch {
      // A worker already gone: its 'exit' has failed the run.
    }
  }

  private onMessage(index: number, message: FromRunWorker): void {
    if (message.type === 'error') {
      // The worker's own error as the main thread would have thrown it: the same message, exit code
      // and driver code (main.ts reads a database error's code as exit 3).
      const err =
        message.exitCode !== undefined
          ? new TxbenchError(message.message, message.exitCode as ExitCode)
          : Object.assign(new Error(`worker ${index + 1} of ${this.workers.length}: ${message.message}`), {
              code: message.code,
            });
      this.fail(err);
      return;
    }
    if (message.type === 'ended') {
      // It closed what it opened; a driver's idle socket must not keep the thread alive.
      void this.workers[index]!.terminate();
      return;
    }
    if (message.type === 'result') {
      this.faultCounts[index] = message.faults;
      this.tallies[index] = message.tallies;
      this.counted[index] = message.result.perType.reduce((a, t) => a + t.count, 0);
    }
    try {
      this.round?.onMessage(index, message);
    } catch (err) {
      // What a worker sent could not be merged (merge.ts refuses a slice whose histograms do not
      // hold its transactions): the run fails with that line rather than report figures without it.
      this.fail(err as Error);
    }
  }

  private crash(index: number, reason: string): void {
    this.fail(
      new TxbenchError(
        `worker thread ${index + 1} of ${this.workers.length} crashed (${reason}); the run is abandoned, rerun it (--workers 1 runs in one thread)`,
        ExitCode.database,
      ),
    );
  }

  private fail(err: Error): void {
    if (this.failure !== undefined) return;
    this.failure = err;
    this.ending = true;
    for (const w of this.workers) void w.terminate();
    const round = this.round;
    this.round = undefined;
    round?.abort(err);
  }
}

/** A command sent to every worker, waiting for each one's acknowledgement. */
interface Pending {
  seq: number;
  /** The phase the interval it cuts belongs to. */
  phase: Phase;
  atMs: number;
  /** It opens or closes the window: the interval it cuts is emitted however short. */
  edge: boolean;
  acks: number;
  /** What the workers that acknowledged it so far cut for it. */
  parts: IntervalPart[];
}

const PHASE_ORDER: readonly Phase[] = ['warmup', 'measure', 'drain', 'done'];

export class ThreadedEngine<C extends Counters> extends EventEmitter<EngineEvents> implements Round {
  private phase: Phase = 'warmup';
  private started = false;
  private stopBeforeStart: { status: StopStatus; reason?: string | undefined } | undefined;
  private startedAt = 0;
  private startedAtWallMs = 0;
  private lastIntervalAt = 0;
  private windowStart = Infinity;
  private windowEnd = Infinity;
  private seq = 0;
  private readonly pending: Pending[] = [];
  /**
   * What each worker has sent since its last acknowledgement, with the phase its engine cut it
   * in. A worker's messages arrive in order, but not in step with the others': a quick worker may
   * have cut its drain's interval (its engine drained and ended) before a slower one acknowledges
   * the window's close; that interval must wait for a command of the drain.
   */
  private readonly sent: { phase: Phase; part: IntervalPart }[][];
  /** What goes into the next merged interval (left over from a sliver not emitted). */
  private parts: IntervalPart[] = [];
  private readonly outages = new LiveOutages();
  private readonly results: (FromRunWorker & { type: 'result' })[] = [];
  /** Workers whose scripted terminals are all done (a replay's sessions). */
  private scriptsDone = 0;
  private phaseTimer: NodeJS.Timeout | undefined;
  private intervalTimer: NodeJS.Timeout | undefined;
  private resolve: ((result: EngineResult<C>) => void) | undefined;
  private reject: ((err: Error) => void) | undefined;

  constructor(
    private readonly pool: WorkerPool,
    private readonly config: WorkerEngineConfig,
    private readonly zero: () => C,
  ) {
    super();
    this.sent = Array.from({ length: pool.size }, () => []);
  }

  run(): Promise<EngineResult<C>> {
    if (this.started) throw new Error('an Engine runs once');
    this.started = true;
    return new Promise<EngineResult<C>>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      try {
        this.pool.attach(this);
      } catch (err) {
        reject(err as Error);
        return;
      }
      this.startedAt = performance.now();
      this.startedAtWallMs = Date.now();
      this.lastIntervalAt = this.startedAt;
      this.pool.send({
        type: 'run',
        config: this.config,
        ...(this.stopBeforeStart ? { stop: this.stopBeforeStart } : {}),
      });
      if (this.stopBeforeStart) {
        this.phase = 'drain';
        return;
      }
      this.emit('phase', 'warmup');
      const { warmupMs, durationMs } = this.config;
      if (warmupMs > 0 && Number.isFinite(warmupMs)) {
        this.phaseTimer = setTimeout(() => this.openWindow(), warmupMs);
      } else {
        // The workers' engines open their windows at once too, as one engine does.
        this.windowStart = this.startedAt;
        this.phase = 'measure';
        this.emit('phase', 'measure');
        if (Number.isFinite(durationMs))
          this.phaseTimer = setTimeout(() => this.closeWindow('completed'), durationMs);
      }
      this.restartIntervals();
    });
  }

  /** Stops every worker early (Ctrl-C): what each measured so far is kept. */
  stop(status: StopStatus, reason?: string): void {
    if (!this.started) {
      this.stopBeforeStart ??= { status, reason };
      return;
    }
    this.closeWindow(status, reason);
  }

  get currentPhase(): Phase {
    return this.phase;
  }

  /** Ends the warm-up now (on steady state), as its duration does. */
  beginWindow(): void {
    this.openWindow();
  }

  /** Ends the measured window now (a preconditioning phase on steady state), as its duration does. */
  endWindow(): void {
    this.closeWindow('completed');
  }

  private openWindow(): void {
    if (this.phase !== 'warmup') return;
    if (this.phaseTimer) clearTimeout(this.phaseTimer);
    const now = performance.now();
    this.command({ type: 'open', seq: 0 }, 'warmup', now);
    this.windowStart = now;
    this.phase = 'measure';
    this.restartIntervals();
    if (Number.isFinite(this.config.durationMs))
      this.phaseTimer = setTimeout(() => this.closeWindow('completed'), this.config.durationMs);
    this.emit('phase', 'measure');
  }

  private closeWindow(status: RunStatus, reason?: string): void {
    if (this.phase !== 'warmup' && this.phase !== 'measure') return;
    const now = performance.now();
    if (this.phaseTimer) clearTimeout(this.phaseTimer);
    this.command({ type: 'close', seq: 0, status, reason }, this.phase, now);
    this.windowEnd = now;
    this.phase = 'drain';
    this.restartIntervals();
    this.emit('phase', 'drain');
  }

  private command(message: Extract<ToRunWorker, { seq: number }>, phase: Phase, atMs: number): void {
    message.seq = ++this.seq;
    this.pending.push({ seq: message.seq, phase, atMs, acks: 0, edge: message.type !== 'tick', parts: [] });
    this.pool.send(message);
  }

  private restartIntervals(): void {
    if (this.intervalTimer) clearInterval(this.intervalTimer);
    this.intervalTimer = setInterval(
      () => this.command({ type: 'tick', seq: 0 }, this.phase, performance.now()),
      this.config.intervalMs,
    );
  }

  /** @internal (RunWorkers) */
  onMessage(index: number, message: FromRunWorker): void {
    switch (message.type) {
      case 'interval':
        this.sent[index]!.push({ phase: message.phase, part: decodeInterval(message.interval) });
        break;
      case 'outage': {
        const offsetS = (message.startedAtWallMs - this.startedAtWallMs) / 1000;
        const outage = this.outages.note(index, message.edge, onRunClock(message.outage, offsetS));
        if (outage !== undefined) this.emit('outage', message.edge, outage);
        break;
      }
      case 'ack': {
        const p = this.pending.find((x) => x.seq === message.seq);
        if (p === undefined) break;
        p.parts.push(...this.cutFor(index, p.phase));
        if (++p.acks === this.pool.size) {
          // Each worker acknowledges in order, so commands complete in order: p is the oldest.
          this.pending.splice(this.pending.indexOf(p), 1);
          this.parts.push(...p.parts);
          this.emitMerged(p.atMs, p.phase, p.edge);
        }
        break;
      }
      case 'stopped':
        this.stop(message.status, message.reason);
        break;
      case 'scriptsDone':
        // As one engine's scripts: the window closes when every worker's sessions are done.
        if (++this.scriptsDone === this.pool.size) this.closeWindow('completed');
        break;
      case 'result':
        this.results[index] = message;
        break;
      default:
        break;
    }
    this.finishIfDone();
  }

  /**
   * What worker `index` cut for a command of `phase`: its intervals since its previous
   * acknowledgement up to that phase. One of a later phase (its engine already drained, or closed
   * its window itself on a lost connection) waits for a command of its own phase.
   */
  private cutFor(index: number, phase: Phase): IntervalPart[] {
    const sent = this.sent[index]!;
    const upTo = PHASE_ORDER.indexOf(phase);
    let n = 0;
    while (n < sent.length && PHASE_ORDER.indexOf(sent[n]!.phase) <= upTo) n++;
    return sent.splice(0, n).map((s) => s.part);
  }

  /** @internal (RunWorkers) */
  abort(err: Error): void {
    this.clearTimers();
    this.phase = 'done';
    this.reject?.(err);
  }

  /** As one engine's intervals: a sliver with nothing in it is skipped, except at the window's edges. */
  private emitMerged(atMs: number, phase: Phase, edge = false): void {
    const seconds = (atMs - this.lastIntervalAt) / 1000;
    const counted = this.parts.some((p) => p.perType.some((t) => t.count > 0 || t.errors > 0));
    if (seconds <= 0 || (seconds < 0.001 && !counted && !edge)) return;
    this.lastIntervalAt = atMs;
    const merged = mergeIntervalParts(this.parts, this.config.transactions.length);
    this.parts = [];
    this.emit('interval', { atS: (atMs - this.startedAt) / 1000, phase, seconds, ...merged });
  }

  private finishIfDone(): void {
    if (this.phase === 'done' || this.pending.length > 0) return;
    const results = this.results;
    if (results.filter((r) => r !== undefined).length < this.pool.size) return;
    this.clearTimers();
    for (const sent of this.sent) this.parts.push(...sent.splice(0).map((s) => s.part));
    this.emitMerged(performance.now(), 'drain');
    this.phase = 'done';
    this.pool.detach(this);
    const windowEnd = this.windowEnd === Infinity ? performance.now() : this.windowEnd;
    const merged = mergeResults<C>(
      results.map((r) => decodeResult(r.result) as EngineResult<C>),
      this.config.transactions.length,
      this.zero(),
      this.windowStart === Infinity ? 0 : Math.max(0, (windowEnd - this.windowStart) / 1000),
      results.map((r) => (r.startedAtWallMs - this.startedAtWallMs) / 1000),
    );
    this.emit('phase', 'done');
    this.resolve?.(merged);
  }

  private clearTimers(): void {
    if (this.phaseTimer) clearTimeout(this.phaseTimer);
    if (this.intervalTimer) clearInterval(this.intervalTimer);
  }
}

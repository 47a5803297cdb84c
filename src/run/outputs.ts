/**
 * How a run's events reach its outputs without ever waiting for them: each output has its own
 * bounded queue, handled in order by an asynchronous loop. An output that is idle and handles an
 * event synchronously sees it at once (the progress lines keep their place among the run's
 * messages); one that is busy lets its events wait in its queue while the run goes on. An output
 * that throws, or falls `limit` events behind, is detached and told once; the run never fails of it.
 */
import type { Output, RunEvent } from '../results/run-events.js';

export interface OutputLimits {
  /** Events an output may have waiting before it is detached. */
  limit: number;
  /** How long `stop` waits for an output still behind before detaching it. */
  stopGraceMs: number;
}

/**
 * Four minutes of one-second intervals behind (40 at the default ten): an output that has stopped
 * handling them. The bound is on memory too: an interval may hold each type's histogram copy.
 */
export const DEFAULT_OUTPUT_LIMITS: OutputLimits = { limit: 256, stopGraceMs: 10_000 };

export interface RunOutputs {
  /** Hands the event to every output still attached; returns at once. */
  emit(event: RunEvent): void;
  /** Some output wants each type's histogram with the intervals. */
  readonly wantsHistograms: boolean;
  /**
   * Waits, without a limit, for every output still attached to handle what it has, and stops
   * none: for a command's own events once its runs are over (nothing waits on a run then).
   */
  settled(): Promise<void>;
  /**
   * Waits for every output to handle what it has (at most `stopGraceMs`: one still behind then is
   * detached), then stops each.
   */
  stop(): Promise<void>;
}

/** Starts delivering to `outputs`; `told` hears the one line of an output that failed. */
export function startOutputs(
  outputs: readonly Output[],
  told: (message: string) => void,
  limits: OutputLimits = DEFAULT_OUTPUT_LIMITS,
): RunOutputs {
  const queues = outputs.map((o) => new OutputQueue(o, limits.limit, told));
  return {
    emit: (event) => {
      for (const q of queues) q.push(event);
    },
    wantsHistograms: outputs.some((o) => o.wantsHistograms === true),
    settled: async () => {
      await Promise.all(queues.map((q) => q.settled()));
    },
    stop: async () => {
      await Promise.all(queues.map((q) => q.stop(limits.stopGraceMs)));
    },
  };
}

/** One output's events in order: an index-advancing queue (no Array.shift). */
class OutputQueue {
  private items: (RunEvent | undefined)[] = [];
  private head = 0;
  private busy = false;
  private detached = false;
  /** Resolves whoever waits for the queue to empty. */
  private emptied: (() => void) | undefined;
  private readonly started: Promise<void> | undefined;

  constructor(
    private readonly output: Output,
    private readonly limit: number,
    private readonly told: (message: string) => void,
  ) {
    try {
      const start = output.start?.();
      if (start instanceof Promise) {
        this.busy = true;
        this.started = start.then(
          () => {
            this.busy = false;
            void this.pump();
          },
          (err: unknown) => this.fail(err),
        );
      }
    } catch (err) {
      this.fail(err);
    }
  }

  push(event: RunEvent): void {
    if (this.detached) return;
    if (this.items.length - this.head >= this.limit) {
      this.detach(`fell ${this.limit} events behind`);
      return;
    }
    this.items.push(event);
    if (!this.busy) void this.pump();
  }

  /** Handles what is queued; synchronous handlers run within this call, before any await. */
  private async pump(): Promise<void> {
    this.busy = true;
    while (!this.detached && this.head < this.items.length) {
      const event = this.items[this.head]!;
      this.items[this.head++] = undefined;
      try {
        const handled = this.output.event(event);
        if (handled instanceof Promise) await handled;
      } catch (err) {
        this.fail(err);
        return;
      }
    }
    this.items = [];
    this.head = 0;
    this.busy = false;
    this.emptied?.();
  }

  async settled(): Promise<void> {
    await this.started;
    if (this.detached || !this.busy) return;
    await new Promise<void>((resolve) => (this.emptied = resolve));
    this.emptied = undefined;
  }

  async stop(graceMs: number): Promise<void> {
    await this.started;
    if (!this.detached && this.busy) {
      let timer: NodeJS.Timeout | undefined;
      const drained = new Promise<boolean>((resolve) => (this.emptied = () => resolve(true)));
      const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
      const inTime = await Promise.race([drained, late]);
      clearTimeout(timer);
      this.emptied = undefined;
      if (!inTime) this.detach(`was still ${this.items.length - this.head} events behind at the end`);
    }
    if (this.detached) return;
    this.detached = true;
    try {
      await this.output.stop?.();
    } catch (err) {
      this.told(`output ${this.output.name} failed to stop (${messageOf(err)})`);
    }
  }

  private fail(err: unknown): void {
    this.detach(`failed (${messageOf(err)})`);
  }

  private detach(why: string): void {
    if (this.detached) return;
    this.detached = true;
    this.items = [];
    this.head = 0;
    this.busy = false;
    this.emptied?.();
    this.told(`output ${this.output.name} ${why}; detached, the run goes on`);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

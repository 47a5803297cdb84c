/**
 * `serial` connections (SQLite's one shared connection): transactions run one at a time, each
 * starting in its own turn of the event loop, never inside the engine's callback (the engine
 * starts the next transaction from the completion of the last, which would starve timers).
 */

interface Job {
  slot: number;
  type: number;
  resolve: (retries: number) => void;
  reject: (err: unknown) => void;
}

export class SerialTurns {
  /** Waiting jobs (a ring: no Array.shift on a long queue) and whether one runs. */
  private readonly queue: (Job | undefined)[];
  private queueHead = 0;
  private queueCount = 0;
  private running = false;

  constructor(
    slots: number,
    /** Runs the slot's transaction of `type`; resolves with its retries. */
    private readonly run: (slot: number, type: number) => Promise<number>,
  ) {
    this.queue = new Array<Job | undefined>(slots);
  }

  /** The slot's transaction of `type`, run in its turn. */
  submit(slot: number, type: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue[(this.queueHead + this.queueCount) % this.queue.length] = { slot, type, resolve, reject };
      this.queueCount++;
      if (!this.running) {
        this.running = true;
        setImmediate(this.runNext);
      }
    });
  }

  private readonly runNext = (): void => {
    if (this.queueCount === 0) {
      this.running = false;
      return;
    }
    const job = this.queue[this.queueHead]!;
    this.queue[this.queueHead] = undefined;
    this.queueHead = (this.queueHead + 1) % this.queue.length;
    this.queueCount--;
    this.run(job.slot, job.type).then(
      (retries) => {
        job.resolve(retries);
        setImmediate(this.runNext);
      },
      (err: unknown) => {
        job.reject(err);
        setImmediate(this.runNext);
      },
    );
  };
}

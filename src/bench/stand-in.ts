/**
 * The bench's stand-in executor: completes every transaction after a fixed service time (no
 * database), optionally after spending some CPU first, as a driver encoding and decoding would.
 */
import type { Counters, Executor } from '../engine/types.js';

/** Completes each transaction after `serviceMs`; counts how many are in flight at once. */
export class StandIn implements Executor<Counters> {
  inFlight = 0;
  maxInFlight = 0;
  private readonly done = (resolve: (retries: number) => void): void => {
    this.inFlight--;
    resolve(0);
  };

  constructor(
    readonly connections: number,
    private readonly serviceMs: number,
    /** CPU spent (busy) per transaction before it is handed to the timer, µs. */
    private readonly cpuUs = 0,
  ) {}

  execute(): Promise<number> {
    if (++this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
    if (this.cpuUs > 0) {
      const until = performance.now() + this.cpuUs / 1000;
      while (performance.now() < until);
    }
    return new Promise((resolve) => setTimeout(this.done, this.serviceMs, resolve));
  }

  classify(): 'other' {
    return 'other';
  }
}

/**
 * A queue of async jobs run a few at a time, whose width can change while it runs (the loader:
 * one or two key builds while data loads, more once it is in). The first failure stops it: jobs
 * not yet started are dropped and the failure is reported once.
 */
export interface WorkQueue {
  push(job: () => Promise<void>): void;
  /** How many jobs may run at once from now on. */
  setLanes(lanes: number): void;
  /** Drops the jobs not started yet. */
  cancel(): void;
  /** Resolves when nothing runs or waits; rejects with the first job's error once nothing runs. */
  idle(): Promise<void>;
}

/** Jobs on up to `lanes` at once, in the order pushed; the first failure stops it and is reported. */
export function workQueue(lanes: number, onError: (err: unknown) => void): WorkQueue {
  const waiting: (() => Promise<void>)[] = [];
  let running = 0;
  let failure: { err: unknown } | undefined;
  let idleWaiters: (() => void)[] = [];
  const pump = (): void => {
    while (failure === undefined && running < lanes && waiting.length > 0) {
      const job = waiting.shift()!;
      running++;
      job().then(
        () => {
          running--;
          pump();
        },
        (err: unknown) => {
          running--;
          if (failure === undefined) {
            failure = { err };
            onError(err);
          }
          pump();
        },
      );
    }
    if (running === 0 && (waiting.length === 0 || failure !== undefined)) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };
  return {
    push(job) {
      waiting.push(job);
      pump();
    },
    setLanes(n) {
      lanes = Math.max(1, n);
      pump();
    },
    cancel() {
      waiting.length = 0;
      pump();
    },
    idle() {
      return new Promise((resolve, reject) => {
        const settle = (): void => (failure === undefined ? resolve() : reject(failure.err as Error));
        if (running === 0 && (waiting.length === 0 || failure !== undefined)) settle();
        else idleWaiters.push(settle);
      });
    },
  };
}

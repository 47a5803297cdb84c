import { describe, expect, it } from 'vitest';
import { workQueue } from '../../src/workloads/work-queue.js';

/** A job that records when it starts and ends, and finishes when told. */
function gate() {
  let open!: () => void;
  let fail!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { done, open, fail };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('workQueue', () => {
  it('runs at most `lanes` jobs at once, in the order pushed, and more once widened', async () => {
    const q = workQueue(1, () => undefined);
    const started: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    gates.forEach((g, i) =>
      q.push(() => {
        started.push(i);
        return g.done;
      }),
    );
    await tick();
    expect(started).toEqual([0]);
    q.setLanes(3);
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[1]!.open();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    let idle = false;
    const idlePromise = q.idle().then(() => (idle = true));
    gates[0]!.open();
    gates[2]!.open();
    await tick();
    expect(idle).toBe(false);
    gates[3]!.open();
    await idlePromise;
    expect(idle).toBe(true);
  });

  it('stops at the first failure: reports it once, starts nothing more, and idle rejects with it', async () => {
    const errors: unknown[] = [];
    const q = workQueue(2, (err) => errors.push(err));
    const started: number[] = [];
    const gates = [gate(), gate(), gate()];
    gates.forEach((g, i) =>
      q.push(() => {
        started.push(i);
        return g.done;
      }),
    );
    await tick();
    gates[0]!.fail(new Error('first'));
    await tick();
    gates[1]!.fail(new Error('second'));
    await expect(q.idle()).rejects.toThrow('first');
    expect(started).toEqual([0, 1]);
    expect(errors.map((e) => (e as Error).message)).toEqual(['first']);
  });

  it('cancel drops the jobs not started; idle waits only for the running one', async () => {
    const q = workQueue(1, () => undefined);
    const started: number[] = [];
    const first = gate();
    q.push(() => {
      started.push(0);
      return first.done;
    });
    q.push(async () => {
      started.push(1);
    });
    await tick();
    q.cancel();
    first.open();
    await q.idle();
    expect(started).toEqual([0]);
  });

  it('is idle at once when empty', async () => {
    await expect(workQueue(1, () => undefined).idle()).resolves.toBeUndefined();
  });
});

/**
 * TPC-C's bodies on callbacks (the executor's fast path) against the same bodies on promises
 * (its retries, and every other driver): the same inputs reach the database, and the same
 * tallies and whole-run counts come out, success or failure.
 */
import { describe, expect, it } from 'vitest';
import type { Connections } from '../../src/dialects/connections.js';
import { Rng } from '../../src/random/rng.js';
import {
  promisedOperations,
  tpccCallbackTransactions,
  type TpccCallbackOperations,
  type TpccRunState,
} from '../../src/workloads/tpcc/bodies.js';
import { newTpccCounters, type TpccCounters } from '../../src/workloads/tpcc/profile.js';
import type { TransactionContext, TransactionSet } from '../../src/workloads/workload.js';
import type { TpccTerminal } from '../../src/workloads/tpcc/bodies.js';

/** Operations that record what they were asked and answer on a later turn, failing when told to. */
function recordingOps(calls: unknown[], failWith: () => unknown): TpccCallbackOperations<number> {
  const later = (f: () => void): void => void setImmediate(f);
  return {
    newOrder: (_c, w, input, done) => later(() => (calls.push(['newOrder', w, input]), done(failWith()))),
    payment: (_c, w, input, done) => later(() => (calls.push(['payment', w, input]), done(failWith()))),
    orderStatus: (_c, w, input, done) =>
      later(() => (calls.push(['orderStatus', w, input]), done(failWith(), { shown: true }))),
    delivery: (_c, w, carrier, done) =>
      later(() => (calls.push(['delivery', w, carrier]), done(failWith(), 7))),
    stockLevel: (_c, w, d, threshold, done) =>
      later(() => (calls.push(['stockLevel', w, d, threshold]), done(failWith()))),
  };
}

const connections = {
  classify: (err: unknown) => ((err as { code?: string }).code === 'GONE' ? 'connection' : 'other'),
} as unknown as Connections<number>;

const runState = (): TpccRunState => ({
  ctx: { warehouses: 4, constants: { cLast: 101, cId: 202, olIId: 303 } },
  committedNewOrders: 0,
});

function context(seed: number): TransactionContext<TpccTerminal, TpccCounters, number> {
  return {
    rng: new Rng(seed),
    state: { w: 2, d: 3 },
    terminal: 0,
    session: {} as TransactionContext['session'],
    conn: 0,
    counters: newTpccCounters(),
    attempt: 0,
  };
}

type Set = TransactionSet<TpccTerminal, TpccCounters, number>;

async function both(type: number, seed: number, failWith: () => unknown) {
  const viaCallbacks = {
    calls: [] as unknown[],
    run: runState(),
    tx: context(seed),
    error: undefined as unknown,
  };
  const viaPromises = {
    calls: [] as unknown[],
    run: runState(),
    tx: context(seed),
    error: undefined as unknown,
  };
  const cb: Set = tpccCallbackTransactions(
    connections,
    recordingOps(viaCallbacks.calls, failWith),
    viaCallbacks.run,
  );
  await new Promise<void>((resolve) =>
    cb.runWithCallback!(type, viaCallbacks.tx, (err) => {
      viaCallbacks.error = err;
      resolve();
    }),
  );
  // The promise bodies over the same operations, as the executor's retries use them.
  const pr: Set = tpccCallbackTransactions(
    connections,
    recordingOps(viaPromises.calls, failWith),
    viaPromises.run,
  );
  try {
    await pr.run(type, viaPromises.tx);
  } catch (err) {
    viaPromises.error = err;
  }
  return { viaCallbacks, viaPromises };
}

describe('TPC-C bodies on callbacks', () => {
  it.each([0, 1, 2, 3, 4])(
    'type %i: the same call, tallies and New-Order count as the promise bodies',
    async (type) => {
      for (const seed of [1, 2, 3, 44, 555]) {
        const { viaCallbacks, viaPromises } = await both(type, seed, () => undefined);
        expect(viaCallbacks.error).toBeUndefined();
        expect(viaCallbacks.calls).toHaveLength(1);
        expect(viaCallbacks.calls).toEqual(viaPromises.calls);
        expect(viaCallbacks.tx.counters).toEqual(viaPromises.tx.counters);
        expect(viaCallbacks.run).toEqual(viaPromises.run);
      }
    },
  );

  it('a New-Order whose connection died counts as in doubt, tallies nothing and fails, as on promises', async () => {
    // Seed 1 draws a New-Order that does not roll back (a rollback is never in doubt).
    const gone = () => Object.assign(new Error('gone'), { code: 'GONE' });
    const { viaCallbacks, viaPromises } = await both(0, 1, gone);
    expect((viaCallbacks.calls[0] as [string, number, { rollback: boolean }])[2].rollback).toBe(false);
    expect(viaCallbacks.error).toMatchObject({ code: 'GONE' });
    expect(viaPromises.error).toMatchObject({ code: 'GONE' });
    expect(viaCallbacks.run).toEqual({ ...runState(), newOrdersInDoubt: 1 });
    expect(viaCallbacks.run).toEqual(viaPromises.run);
    expect(viaCallbacks.tx.counters).toEqual(newTpccCounters());
  });

  it('the promise form of the operations passes their values through', async () => {
    const ops = promisedOperations(recordingOps([], () => undefined));
    expect(await ops.delivery(0, 1, 5)).toBe(7);
    expect(await ops.orderStatus(0, 1, { d: 1, customer: { byName: false, c: 1 } })).toEqual({ shown: true });
  });
});

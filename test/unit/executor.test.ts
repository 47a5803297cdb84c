/**
 * The generic executor (workloads/executor.ts) over stand-in connections: retries with the same
 * inputs and zeroed tallies, lost slots that fail fast (--on-error stop) or reconnect with backoff
 * (continue), the transaction timeout's cancel and abandon, SQLite's one-at-a-time turns.
 */
import { describe, expect, it } from 'vitest';
import type { Connections, Session } from '../../src/dialects/connections.js';
import { RetriesExhaustedError, TxnTimeoutError, type ErrorClass } from '../../src/engine/types.js';
import { Rng } from '../../src/random/rng.js';
import { MAX_RETRIES, WorkloadExecutor } from '../../src/workloads/executor.js';
import type { FaultPolicy } from '../../src/workloads/fault-policy.js';
import { tpccHome } from '../../src/workloads/tpcc/bodies.js';
import type { TransactionContext } from '../../src/workloads/workload.js';

const classify = (err: unknown): ErrorClass => {
  const code = (err as { code?: string }).code;
  return code === 'GONE' || code === 'LOST'
    ? 'connection'
    : code === 'DEADLOCK' || code === 'CANCELLED'
      ? 'deadlock'
      : 'other';
};

interface FakeConnections extends Connections<number> {
  recovered: number[];
  /** Each slot's connection number: a new one after each successful reconnect. */
  generation: number[];
  reconnectCalls: number[];
  /** Reconnect attempts fail while this is above 0 (each attempt counts it down). */
  failReconnects: number;
  /** What cancel does: by default rejects the slot's hanging call. */
  cancels: number;
  hanging: ((err: Error) => void)[];
  cancelWorks: boolean;
  /** How many cancels still to land between statements, where they cancel nothing. */
  cancelsLost: number;
  /** How long each cancel request takes to be taken, ms. */
  cancelDelayMs: number;
  /** Whether recover (the rollback) fails. */
  recoverFails: boolean;
  /** While set, recover (the rollback) waits for it: a rollback the server does not answer. */
  recoverWaits: Promise<void> | undefined;
}

function connections(slots: number, serial = false): FakeConnections {
  const c: FakeConnections = {
    dialect: 'postgres',
    slots,
    serial,
    handle: (slot) => c.generation[slot]!,
    session: () => ({}) as Session,
    classify,
    isRetryable: (cls) => cls === 'deadlock',
    async recover(slot) {
      c.recovered.push(slot);
      if (c.recoverWaits) await c.recoverWaits;
      if (c.recoverFails) throw fail('ROLLBACK FAILED');
    },
    async reconnect(slot) {
      c.reconnectCalls.push(slot);
      if (c.failReconnects > 0) {
        c.failReconnects--;
        throw fail('ECONNREFUSED');
      }
      c.generation[slot]!++;
    },
    async cancel(slot) {
      c.cancels++;
      if (c.cancelDelayMs > 0) await new Promise((r) => setTimeout(r, c.cancelDelayMs));
      if (c.cancelsLost > 0) c.cancelsLost--;
      else if (c.cancelWorks) c.hanging[slot]?.(fail('CANCELLED'));
    },
    lostCode: 'LOST',
    close: async () => undefined,
    recovered: [],
    generation: new Array<number>(slots).fill(0),
    reconnectCalls: [],
    failReconnects: 0,
    cancels: 0,
    hanging: [],
    cancelWorks: true,
    cancelsLost: 0,
    cancelDelayMs: 0,
    recoverFails: false,
    recoverWaits: undefined,
  };
  return c;
}

type Body = (tx: TransactionContext<number, { n: number }>) => void | Promise<void>;

const FAST: Partial<FaultPolicy> = { backoff: { baseMs: 2, capMs: 10 }, connectTimeoutMs: 1000 };

function executor(body: Body, slots = 2, serial = false, policy: Partial<FaultPolicy> = FAST) {
  const conns = connections(slots, serial);
  const ex = new WorkloadExecutor<number, { n: number }>(
    { connections: conns, run: (_t, tx) => body(tx) },
    [7, 8],
    policy,
  );
  return { ex, conns };
}

type CallbackBody = (tx: TransactionContext<number, { n: number }>, done: (err: unknown) => void) => void;

/** An executor whose workload has callback bodies too; counts which of the two ran. */
function callbackExecutor(callbackBody: CallbackBody, body: Body, policy: Partial<FaultPolicy> = FAST) {
  const conns = connections(2);
  const ran = { callback: 0, promise: 0 };
  const ex = new WorkloadExecutor<number, { n: number }>(
    {
      connections: conns,
      run: (_t, tx) => {
        ran.promise++;
        return body(tx);
      },
      runWithCallback: (_t, tx, done) => {
        ran.callback++;
        callbackBody(tx, done);
      },
    },
    [7, 8],
    policy,
  );
  return { ex, conns, ran };
}

/** `start` as a promise, to await its one callback. */
function started(
  ex: WorkloadExecutor<number, { n: number }>,
  slot: number,
  counters = { n: 0 },
  rng = new Rng(1),
): Promise<number> {
  return new Promise((resolve, reject) => ex.start(slot, 0, { id: slot, rng }, counters, resolve, reject));
}

/** A body that hangs on slot `slot` until the fake's cancel (or nothing) ends it. */
function hangOn(conns: FakeConnections, slot: number): Promise<void> {
  return new Promise((_, reject) => (conns.hanging[slot] = reject));
}

const fail = (code: string): Error => Object.assign(new Error(code), { code });

describe('WorkloadExecutor', () => {
  it('retries a retryable error with the same inputs and zeroed tallies, after recovering the slot', async () => {
    const draws: number[] = [];
    let attempts = 0;
    const { ex, conns } = executor((tx) => {
      draws.push(tx.rng.next32());
      tx.counters.n += 1;
      expect(tx.state).toBe(8);
      if (++attempts < 3) throw fail('DEADLOCK');
    });
    const counters = { n: 0 };
    expect(await ex.execute(1, 0, { id: 1, rng: new Rng(5) }, counters)).toBe(2);
    expect(new Set(draws).size).toBe(1);
    expect(counters.n).toBe(1);
    expect(conns.recovered).toEqual([1, 1]);
  });

  it('gives up after MAX_RETRIES, naming the class', async () => {
    const { ex } = executor(() => {
      throw fail('DEADLOCK');
    });
    const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetriesExhaustedError);
    expect((err as RetriesExhaustedError).retries).toBe(MAX_RETRIES);
    expect((err as RetriesExhaustedError).errorClass).toBe('deadlock');
  });

  it('--on-error stop: after a connection error on a slot, later calls on it fail at once without running; other slots go on', async () => {
    let ran = 0;
    let gone = true;
    const { ex, conns } = executor(
      () => {
        ran++;
        if (gone) throw fail('GONE');
      },
      2,
      false,
      { ...FAST, reconnect: false },
    );
    await expect(ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).rejects.toThrow('GONE');
    gone = false;
    await expect(ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).rejects.toMatchObject({
      code: 'LOST',
    });
    expect(ran).toBe(1);
    expect(await ex.execute(1, 0, { id: 1, rng: new Rng(1) }, { n: 0 })).toBe(0);
    expect(ran).toBe(2);
    expect(conns.reconnectCalls).toEqual([]);
  });

  it('--on-error continue: a lost connection is replaced with backoff; the next transaction waits for it and runs on the new one', async () => {
    const seen: number[] = [];
    let gone = true;
    const { ex, conns } = executor((tx) => {
      seen.push(tx.conn as number);
      if (gone) throw fail('GONE');
    });
    conns.failReconnects = 3;
    await expect(ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).rejects.toThrow('GONE');
    gone = false;
    // Handed to the slot while it reconnects: waits, then runs on connection 1.
    expect(await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).toBe(0);
    expect(seen).toEqual([0, 1]);
    expect(conns.reconnectCalls).toEqual([0, 0, 0, 0]);
    expect(ex.faults).toMatchObject({ reconnects: 1, reconnectFailures: 3 });
    // A lost connection is not rolled back on: nothing is written to it.
    expect(conns.recovered).toEqual([]);
    await ex.close();
  });

  it('when the window closes, a transaction waiting for its slot to reconnect fails at once: nothing of it to drain', async () => {
    const { ex, conns } = executor(() => {
      throw fail('GONE');
    });
    conns.failReconnects = 1_000_000;
    await expect(ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).rejects.toMatchObject({
      code: 'GONE',
    });
    const waiting = ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 20));
    ex.windowClosed();
    const err = await waiting;
    expect(ex.classify(err)).toBe('connection');
    expect((err as Error).message).toMatch(/still reconnecting when the window closed/);
    await ex.close();
  });

  it('a transaction waiting for a slot that cannot reconnect fails as a lost connection at the timeout', async () => {
    let gone = true;
    const { ex, conns } = executor(
      () => {
        if (gone) throw fail('GONE');
      },
      2,
      false,
      { ...FAST, txnTimeoutMs: 150 },
    );
    conns.failReconnects = Infinity;
    await expect(ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).rejects.toThrow('GONE');
    gone = false;
    const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(ex.classify(err)).toBe('connection');
    expect((err as Error).message).toMatch(/still reconnecting/);
    await ex.close();
  });

  it('the transaction timeout cancels a hung call: it fails as timeout, is not retried, and the slot is rolled back', async () => {
    let calls = 0;
    const { ex, conns } = executor(
      () => {
        calls++;
        return hangOn(conns, 1);
      },
      2,
      false,
      { ...FAST, txnTimeoutMs: 100 },
    );
    const err = await ex.execute(1, 0, { id: 1, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TxnTimeoutError);
    expect(ex.classify(err)).toBe('timeout');
    // The cancelled call's own error (a retryable class here) is kept, but not retried.
    expect(((err as TxnTimeoutError).lastError as { code: string }).code).toBe('CANCELLED');
    expect(calls).toBe(1);
    expect(conns.cancels).toBe(1);
    expect(conns.recovered).toEqual([1]);
    expect(conns.reconnectCalls).toEqual([]);
    await ex.close();
  });

  it('a cancel that cancels nothing (it landed between statements) is sent again until the call answers', async () => {
    const { ex, conns } = executor(() => hangOn(conns, 1), 2, false, { ...FAST, txnTimeoutMs: 100 });
    conns.cancelsLost = 2;
    const err = await ex.execute(1, 0, { id: 1, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TxnTimeoutError);
    expect(((err as TxnTimeoutError).lastError as { code: string }).code).toBe('CANCELLED');
    // One call cancelled, with three requests; none given up on, no connection replaced.
    expect(conns.cancels).toBe(3);
    expect(ex.faults).toMatchObject({ cancelled: 1, abandoned: 0 });
    expect(conns.reconnectCalls).toEqual([]);
    // Answered: no cancel follows it to the slot's next transaction.
    await new Promise((r) => setTimeout(r, 400));
    expect(conns.cancels).toBe(3);
    await ex.close();
  });

  it('the grace period runs from when the cancel was taken: a slow one to ask (a connection to open) is not given up on', async () => {
    const { ex, conns } = executor(() => hangOn(conns, 0), 2, false, { ...FAST, txnTimeoutMs: 100 });
    // Longer than the 1 s grace period: timed from the request, the call would be abandoned.
    conns.cancelDelayMs = 1500;
    const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(((err as TxnTimeoutError).lastError as { code: string }).code).toBe('CANCELLED');
    expect(ex.faults).toMatchObject({ cancelled: 1, abandoned: 0 });
    expect(conns.reconnectCalls).toEqual([]);
    await ex.close();
  });

  it('a slot whose rollback fails is not retried on: the transaction fails and its connection is replaced', async () => {
    let calls = 0;
    const { ex, conns } = executor(() => {
      calls++;
      throw fail('DEADLOCK');
    });
    conns.recoverFails = true;
    const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect((err as { code: string }).code).toBe('DEADLOCK');
    expect(calls).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(conns.reconnectCalls).toEqual([0]);
    expect(conns.generation[0]).toBe(1);
    await ex.close();
  });

  it("a rollback abandoned by the watchdog that fails late does not fail the slot's next transaction, nor replace its new connection", async () => {
    let calls = 0;
    let releaseNext: (() => void) | undefined;
    const { ex, conns } = executor(
      (tx) => {
        calls++;
        if (calls === 1) throw fail('DEADLOCK');
        // The next transaction, on the new connection: still running when the old rollback fails.
        tx.counters.n += 1;
        return new Promise<void>((resolve) => (releaseNext = resolve));
      },
      2,
      false,
      { ...FAST, txnTimeoutMs: 100 },
    );
    let answerRollback!: () => void;
    conns.recoverWaits = new Promise((resolve) => (answerRollback = resolve));
    conns.recoverFails = true;
    const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TxnTimeoutError);
    expect(ex.faults).toMatchObject({ abandoned: 1 });
    const counters = { n: 0 };
    const next = ex.execute(0, 0, { id: 0, rng: new Rng(1) }, counters);
    while (releaseNext === undefined) await new Promise((r) => setTimeout(r, 5));
    expect(conns.generation[0]).toBe(1);
    // The hung rollback on the old connection fails now, while the next transaction runs.
    answerRollback();
    await new Promise((r) => setTimeout(r, 20));
    releaseNext();
    expect(await next).toBe(0);
    expect(counters.n).toBe(1);
    expect(calls).toBe(2);
    expect(conns.reconnectCalls).toEqual([0]);
    expect(conns.generation[0]).toBe(1);
    await ex.close();
  });

  it('a rollback abandoned by the watchdog that answers late is not followed by another attempt on the slot', async () => {
    let calls = 0;
    const { ex, conns } = executor(
      (tx) => {
        calls++;
        tx.counters.n += 1;
        if (calls === 1) throw fail('DEADLOCK');
      },
      2,
      false,
      { ...FAST, txnTimeoutMs: 100 },
    );
    let answerRollback!: () => void;
    conns.recoverWaits = new Promise((resolve) => (answerRollback = resolve));
    const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TxnTimeoutError);
    conns.recoverWaits = undefined;
    const counters = { n: 0 };
    expect(await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, counters)).toBe(0);
    // The old transaction's rollback answers: its retry would run a second transaction on the slot.
    answerRollback();
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(2);
    expect(counters.n).toBe(1);
    expect(conns.reconnectCalls).toEqual([0]);
    await ex.close();
  });

  it('a call that stays unanswered after the cancel is abandoned and its connection replaced', async () => {
    let hang = true;
    const { ex, conns } = executor(
      (tx) => {
        if (hang) {
          // The body writes after it is abandoned: that must not reach the next transaction.
          return hangOn(conns, 0).finally(() => (tx.counters.n += 100));
        }
        tx.counters.n += 1;
      },
      2,
      false,
      { ...FAST, txnTimeoutMs: 100 },
    );
    conns.cancelWorks = false;
    const err = await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TxnTimeoutError);
    expect((err as TxnTimeoutError).lastError).toBeUndefined();
    expect(ex.faults).toMatchObject({ cancelled: 1, abandoned: 1 });
    hang = false;
    const counters = { n: 0 };
    expect(await ex.execute(0, 0, { id: 0, rng: new Rng(1) }, counters)).toBe(0);
    conns.hanging[0]?.(fail('GONE'));
    await new Promise((r) => setTimeout(r, 10));
    expect(counters.n).toBe(1);
    expect(conns.generation[0]).toBe(1);
    await ex.close();
  });

  it('serial connections run one transaction at a time, never inside the caller', async () => {
    let running = 0;
    let most = 0;
    let inside = true;
    const { ex } = executor(
      async () => {
        expect(inside).toBe(false);
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
      },
      2,
      true,
    );
    const both = Promise.all([
      ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 }),
      ex.execute(1, 0, { id: 1, rng: new Rng(2) }, { n: 0 }),
    ]);
    inside = false;
    expect(await both).toEqual([0, 0]);
    expect(most).toBe(1);
  });
});

describe('TPC-C terminal homes', () => {
  it('30 terminals on 3 warehouses: every (warehouse, district) once, as Stock-Level needs', () => {
    const homes = Array.from({ length: 30 }, (_, i) => tpccHome(i, 3));
    expect(new Set(homes.map((h) => `${h.w}/${h.d}`)).size).toBe(30);
    expect(homes.every((h) => h.w >= 1 && h.w <= 3 && h.d >= 1 && h.d <= 10)).toBe(true);
  });
});

describe('WorkloadExecutor on callback bodies (the fast path)', () => {
  it('a transaction completes through the callback body alone, with no retries', async () => {
    const { ex, ran } = callbackExecutor(
      (tx, done) => {
        tx.counters.n += 1;
        setImmediate(done, undefined);
      },
      () => undefined,
    );
    const counters = { n: 0 };
    expect(await started(ex, 1, counters)).toBe(0);
    expect(counters.n).toBe(1);
    expect(ran).toEqual({ callback: 1, promise: 0 });
  });

  it('a retryable failure of the callback attempt is retried on the promise body, with the same inputs and zeroed tallies', async () => {
    const draws: number[] = [];
    const { ex, conns, ran } = callbackExecutor(
      (tx, done) => {
        draws.push(tx.rng.next32());
        tx.counters.n += 5;
        setImmediate(done, fail('DEADLOCK'));
      },
      (tx) => {
        draws.push(tx.rng.next32());
        tx.counters.n += 1;
      },
    );
    const counters = { n: 0 };
    expect(await started(ex, 0, counters, new Rng(9))).toBe(1);
    expect(draws).toHaveLength(2);
    expect(draws[0]).toBe(draws[1]);
    expect(counters.n).toBe(1);
    expect(conns.recovered).toEqual([0]);
    expect(ran).toEqual({ callback: 1, promise: 1 });
  });

  it('a body that throws before calling back fails its attempt like any other', async () => {
    const { ex } = callbackExecutor(
      () => {
        throw fail('BROKEN');
      },
      () => undefined,
    );
    await expect(started(ex, 0)).rejects.toThrow('BROKEN');
  });

  it('after a lost connection the slot reconnects, and its next transaction waits and runs on the promise body', async () => {
    const seen: number[] = [];
    const { ex, conns, ran } = callbackExecutor(
      (tx, done) => {
        seen.push(tx.conn as number);
        setImmediate(done, fail('GONE'));
      },
      (tx) => void seen.push(tx.conn as number),
    );
    conns.failReconnects = 2;
    await expect(started(ex, 0)).rejects.toThrow('GONE');
    expect(await started(ex, 0)).toBe(0);
    expect(seen).toEqual([0, 1]);
    expect(ran).toEqual({ callback: 1, promise: 1 });
    // Up again: the fast path once more.
    await expect(started(ex, 0)).rejects.toThrow('GONE');
    expect(ran.callback).toBe(2);
    await ex.close();
  });

  it('an abandoned callback attempt that answers late settles nothing: not the next transaction on its slot', async () => {
    let late: ((err: unknown) => void) | undefined;
    let hang = true;
    const { ex, conns } = callbackExecutor(
      (tx, done) => {
        if (hang) {
          late = (err) => {
            tx.counters.n += 100;
            done(err);
          };
          return;
        }
        setTimeout(() => {
          tx.counters.n += 1;
          done(undefined);
        }, 20);
      },
      () => undefined,
      { ...FAST, txnTimeoutMs: 100 },
    );
    conns.cancelWorks = false;
    const err = await started(ex, 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TxnTimeoutError);
    expect(ex.faults).toMatchObject({ cancelled: 1, abandoned: 1 });
    hang = false;
    // The replacement connection is up once the slot's next transaction runs.
    await new Promise((r) => setTimeout(r, 20));
    const counters = { n: 0 };
    const next = started(ex, 0, counters);
    late?.(undefined);
    expect(await next).toBe(0);
    expect(counters.n).toBe(1);
    await ex.close();
  });
});

/**
 * The generic executor (workloads/executor.ts) over stand-in connections: retries with the same
 * inputs and zeroed tallies, lost slots that fail fast, SQLite's one-at-a-time turns.
 */
import { describe, expect, it } from 'vitest';
import type { Connections, Session } from '../../src/dialects/connections.js';
import { RetriesExhaustedError, type ErrorClass } from '../../src/engine/types.js';
import { Rng } from '../../src/random/rng.js';
import { MAX_RETRIES, WorkloadExecutor } from '../../src/workloads/executor.js';
import { tpccHome } from '../../src/workloads/tpcc/bodies.js';
import type { TransactionContext } from '../../src/workloads/workload.js';

const classify = (err: unknown): ErrorClass => {
  const code = (err as { code?: string }).code;
  return code === 'GONE' ? 'connection' : code === 'DEADLOCK' ? 'deadlock' : 'other';
};

function connections(slots: number, serial = false): Connections<null> & { recovered: number[] } {
  const recovered: number[] = [];
  return {
    dialect: 'postgres',
    slots,
    serial,
    handle: () => null,
    session: () => ({}) as Session,
    classify,
    isRetryable: (cls) => cls === 'deadlock',
    recover: async (slot) => void recovered.push(slot),
    lostCode: 'LOST',
    close: async () => undefined,
    recovered,
  };
}

type Body = (tx: TransactionContext<number, { n: number }>) => void | Promise<void>;

function executor(body: Body, slots = 2, serial = false) {
  const conns = connections(slots, serial);
  const ex = new WorkloadExecutor<number, { n: number }>(
    { connections: conns, run: (_t, tx) => body(tx) },
    [7, 8],
  );
  return { ex, conns };
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

  it('after a connection error on a slot, later calls on it fail at once without running; other slots go on', async () => {
    let ran = 0;
    let gone = true;
    const { ex } = executor(() => {
      ran++;
      if (gone) throw fail('GONE');
    });
    await expect(ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).rejects.toThrow('GONE');
    gone = false;
    await expect(ex.execute(0, 0, { id: 0, rng: new Rng(1) }, { n: 0 })).rejects.toMatchObject({
      code: 'LOST',
    });
    expect(ran).toBe(1);
    expect(await ex.execute(1, 0, { id: 1, rng: new Rng(1) }, { n: 0 })).toBe(0);
    expect(ran).toBe(2);
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

import { describe, expect, it } from 'vitest';
import { boundedDb, SideQueryTimeoutError } from '../../src/dialects/bounded-db.js';
import type { Db } from '../../src/dialects/dialect.js';

/** A Db whose queries answer after `answerMs` (never, when undefined). Pure timing logic: no server. */
function slowDb(answerMs: number | undefined): Db & { closed: boolean } {
  const db: Db & { closed: boolean } = {
    closed: false,
    query: <T>() =>
      new Promise<T[]>((resolve) => {
        if (answerMs !== undefined) setTimeout(() => resolve([{ v: 1 } as T]), answerMs);
      }),
    transaction: (work) => work(db),
    close: async () => {
      db.closed = true;
    },
  };
  return db;
}

describe('boundedDb', () => {
  it('passes answers through', async () => {
    const db = boundedDb(slowDb(1), 1000);
    expect(await db.query('select 1')).toEqual([{ v: 1 }]);
  });

  it('fails a query that never answers once the bound has passed', async () => {
    const db = boundedDb(slowDb(undefined), 50);
    await expect(db.query('select pg_sleep(1e6)')).rejects.toBeInstanceOf(SideQueryTimeoutError);
  });

  it('while a query given up on is unanswered, the next fails at once; once it answers, queries run again', async () => {
    let answer: (() => void) | undefined;
    let calls = 0;
    const inner: Db = {
      query: <T>() => {
        calls++;
        return new Promise<T[]>((resolve) => (answer = () => resolve([])));
      },
      transaction: (work) => work(inner),
      close: async () => undefined,
    };
    const db = boundedDb(inner, 50);
    await expect(db.query('select 1')).rejects.toThrow(/no answer within/);
    await expect(db.query('select 2')).rejects.toThrow(/still waiting/);
    expect(calls).toBe(1);
    expect(db.timedOut).toBe(2);
    answer!();
    await new Promise((resolve) => setImmediate(resolve));
    const next = db.query('select 3');
    answer!();
    await expect(next).resolves.toEqual([]);
    expect(calls).toBe(2);
  });

  it('bounds a whole transaction, and closing reaches the inner Db', async () => {
    const inner = slowDb(undefined);
    const db = boundedDb(inner, 50);
    await expect(db.transaction((tx) => tx.query('select 1'))).rejects.toThrow(/no answer within 0.05 s/);
    await db.close();
    expect(inner.closed).toBe(true);
  });
  it('a server that cannot be reached: the queries after the first fail at once with its error, one probe at a time', async () => {
    let calls = 0;
    const reachable = false;
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const inner: Db = {
      query: async <T>() => {
        calls++;
        if (!reachable) throw refused;
        return [] as T[];
      },
      transaction: (work) => work(inner),
      close: async () => undefined,
    };
    const db = boundedDb(inner, 60_000, (err) => (err as { code?: string }).code === 'ECONNREFUSED');
    await expect(db.query('select 1')).rejects.toBe(refused);
    // Without waiting on the server (a driver's connect timeout each): it is not asked.
    for (let i = 0; i < 5; i++) await expect(db.query('select 1')).rejects.toBe(refused);
    expect(calls).toBe(1);
    expect(db.timedOut).toBe(0);
  });
});

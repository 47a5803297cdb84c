import { describe, expect, it } from 'vitest';
import { countingDb } from '../../src/dialects/counting-db.js';
import type { Db } from '../../src/dialects/dialect.js';
import { counterWindow, scopeKey, sharedTpm, targetTpm } from '../../src/metrics/server-counter.js';
import { aggregate } from '../../src/run/aggregate.js';
import type { RunReport } from '../../src/results/run-file.js';

/** A report whose window saw `transactions` on the counter named `scope`, `own` of them txbench's. */
function onCounter(scope: string | null, transactions: number, own: number): RunReport {
  const w = { scope, transactions, ownTransactions: own, seconds: 60 };
  return {
    summary: {
      tps: 1,
      tpm: targetTpm(w),
      serverCounter: w,
      windowSeconds: 60,
      transactions: 1,
      errors: 0,
      clientCpu: null,
    },
    histograms: {},
  } as unknown as RunReport;
}

describe('TPM from the server counter', () => {
  it("leaves txbench's own side transactions out of a target's TPM", () => {
    const w = counterWindow(null, { count: 1000, sent: 10 }, { count: 7000, sent: 70 }, 60);
    expect(w).toEqual({ scope: null, transactions: 6000, ownTransactions: 60, seconds: 60 });
    expect(targetTpm(w)).toBe(5940);
  });

  it('counts a counter that two targets share once, less both targets’ side transactions', () => {
    const scope = scopeKey('mysql 3e11fa47-71ca-11e1-9e33-c80aa9429562');
    // Both targets read the whole server's counter: 12,000 in the window, 100 of them theirs.
    const s = aggregate([onCounter(scope, 12_000, 60), onCounter(scope, 12_010, 40)], null);
    expect(s.tpm).toBe(11_900);
  });

  it('adds counters of different servers, and of unknown scope, each once', () => {
    expect(
      sharedTpm(
        [onCounter('a', 600, 0), onCounter('b', 1200, 0), onCounter(null, 60, 0), onCounter(null, 60, 0)].map(
          (r) => r.summary.serverCounter!,
        ),
      ),
    ).toBe(1920);
  });

  it('keeps the hash of the scope, not the server paths it is made of', () => {
    const key = scopeKey('postgres 7301 /var/lib/postgresql/data:5432 tpcc');
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(scopeKey(undefined)).toBeNull();
  });
});

describe('countingDb', () => {
  const db: Db = {
    query: () => Promise.resolve([]),
    transaction: (work) => work(db),
    close: () => Promise.resolve(),
  };

  it('counts statements outside transactions and transactions, not the statements inside them', async () => {
    const counted = countingDb(db);
    await counted.query('select 1');
    await counted.transaction(async (tx) => {
      await tx.query('select 2');
      await tx.query('select 3');
    });
    expect(counted.sent(true)).toBe(2);
    expect(counted.sent(false)).toBe(1);
  });
});

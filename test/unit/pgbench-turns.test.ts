import { describe, expect, it } from 'vitest';
import { combinePgbench, combineTxbench, TURNS, type PgbenchFigures } from '../../src/bench/pgbench.js';
import type { RunFigures } from '../../src/bench/txbench-run.js';

const run = (
  tps: number,
  transactions: number,
  userS: number,
  systemS: number,
  serverS: number,
): PgbenchFigures => ({
  command: 'pgbench -n',
  seconds: 60,
  transactions,
  tps,
  failed: 0,
  latencyAvgMs: 1.5,
  client: { userS, systemS, usPerTransaction: 0, coresUsed: (userS + systemS) / 60 },
  server: { cpuS: serverS, usPerTransaction: 0, coresUsed: serverS / 60 },
  otherCores: 0.02,
});

describe('pgbench and txbench taking turns (bench section 2)', () => {
  it('each tool runs as often, and first and last go to the same tool (ABBA)', () => {
    expect(TURNS.filter((t) => t === 'pgbench').length).toBe(TURNS.filter((t) => t === 'txbench').length);
    expect(TURNS[0]).toBe(TURNS[TURNS.length - 1]);
  });

  it('combines runs: CPU per transaction over all of them, TPS their mean', () => {
    const c = combinePgbench([run(3000, 180_000, 3, 3, 90), run(2000, 120_000, 3, 3, 60)]);
    expect(c.transactions).toBe(300_000);
    expect(c.seconds).toBe(120);
    expect(c.tps).toBe(2500);
    // 12 s of client CPU over 300,000 transactions, not the mean of 33.3 and 50.
    expect(c.client.usPerTransaction).toBe(40);
    expect(c.server.usPerTransaction).toBe(500);
    expect(c.latencyAvgMs).toBe(1.5);
  });

  it('an unreadable latency in one run leaves the combined latency unknown', () => {
    const c = combinePgbench([run(1, 60, 1, 1, 1), { ...run(1, 60, 1, 1, 1), latencyAvgMs: null }]);
    expect(c.latencyAvgMs).toBeNull();
  });

  it('refuses to combine nothing', () => {
    expect(() => combinePgbench([])).toThrow(/no pgbench run/);
    expect(() => combineTxbench([])).toThrow(/no txbench run/);
  });

  const txRun = (tps: number, transactions: number, cpuS: number, server: RunFigures['server']): RunFigures =>
    ({
      tps,
      transactions,
      client: { userS: cpuS / 2, systemS: cpuS / 2, coresUsed: cpuS / 60, usPerTransaction: 0 },
      server,
    }) as RunFigures;

  it("combines txbench's runs the same way, the server's figures only when every run has them", () => {
    const a = txRun(3000, 180_000, 6, { cpuS: 90, coresUsed: 1.5, usPerTransaction: 500 });
    const b = txRun(2000, 120_000, 6, { cpuS: 60, coresUsed: 1, usPerTransaction: 500 });
    const c = combineTxbench([a, b]);
    expect(c.tps).toBe(2500);
    expect(c.clientUs).toBe(40);
    expect(c.serverUs).toBe(500);
    expect(c.serverCores).toBe(1.25);
    const partial = combineTxbench([a, txRun(2000, 120_000, 6, null)]);
    expect(partial.serverUs).toBeNull();
    expect(partial.serverCores).toBeNull();
  });
});

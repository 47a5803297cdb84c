import { describe, expect, it } from 'vitest';
import {
  combinePgbench,
  combineTxbench,
  pairedTurns,
  pgbenchTable,
  TURNS,
  type PgbenchFigures,
} from '../../src/bench/pgbench.js';
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

  it('gives the ratios over all turns and per pair of neighbouring turns, and prints their spread', () => {
    const pg = (tps: number, cpuS: number) => run(tps, tps * 60, cpuS / 2, cpuS / 2, 60);
    const tx = (tps: number, cpuS: number) =>
      txRun(tps, tps * 60, cpuS, { cpuS: 60, coresUsed: 1, usPerTransaction: 1e6 / tps });
    // pgbench, txbench, txbench, pgbench: the first pair close, the second with txbench ahead.
    const paired = pairedTurns([
      { tool: 'pgbench', pgbench: pg(1000, 6) },
      { tool: 'txbench', txbench: tx(950, 8.55) },
      { tool: 'txbench', txbench: tx(1200, 8.64) },
      { tool: 'pgbench', pgbench: pg(1000, 6) },
    ]);
    expect(paired.paired.tpsRatio).toBe(1.075);
    expect(paired.paired.pairs).toEqual([
      { tpsRatio: 0.95, clientUsRatio: 1.5 },
      { tpsRatio: 1.2, clientUsRatio: 1.2 },
    ]);
    const text = pgbenchTable({ ...paired, txbench: null });
    expect(text).toContain(
      'Over the 2 pairs of neighbouring turns: TPS ratio 0.95–1.2, client CPU ratio 1.2–1.5×',
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { EngineResult, TypeStats } from '../../src/engine/engine-result.js';
import type { ProcessCpu } from '../../src/metrics/client-cpu.js';
import { newHistogram, recordUs } from '../../src/metrics/histogram.js';
import { typeSummaries, windowSummary, type TypeSummary } from '../../src/metrics/window-summary.js';
import {
  NEW_ORDER,
  newTpccCounters,
  P90_LIMITS_MS,
  TPCC_DECK,
  TPCC_TRANSACTIONS,
  type TpccCounters,
} from '../../src/workloads/tpcc/profile.js';
import {
  auditChecks,
  tpccFigures,
  type AuditCheck,
  type RunSummary,
} from '../../src/workloads/tpcc/summary.js';

interface SummaryInputs {
  engine: EngineResult<TpccCounters>;
  warehouses: number;
  /** Terminals driven (default 10 per warehouse): the efficiency ceiling is per terminal. */
  terminals?: number | undefined;
  deck: readonly number[];
  thinkScale: number;
  nextOrderIds?: { start: number; end: number } | undefined;
  serverTransactions?: { start: number; end: number } | undefined;
  cpu: ProcessCpu | null;
}

/**
 * A TPC-C window summary from the two production pieces the run path combines: the generic
 * window figures (metrics/window-summary.ts) and TPC-C's own (tpccFigures).
 */
function summarize(inputs: SummaryInputs): RunSummary {
  const { engine } = inputs;
  const { tpm, ...rest } = windowSummary(engine, inputs.serverTransactions, inputs.cpu);
  return {
    ...rest,
    ...tpccFigures({
      windowSeconds: engine.windowSeconds,
      newOrders: engine.perType[NEW_ORDER]?.count ?? 0,
      terminals: inputs.terminals ?? 10 * inputs.warehouses,
      deck: inputs.deck,
      thinkScale: inputs.thinkScale,
      nextOrderIds: inputs.nextOrderIds,
    }),
    tpm,
  };
}

/** Per-type figures the way the run path computes them from the TPC-C profiles. */
function summarizeTypes(engine: EngineResult<TpccCounters>): Record<string, TypeSummary> {
  return typeSummaries(
    engine,
    TPCC_TRANSACTIONS.map((t, i) => ({ ...t, p90LimitMs: P90_LIMITS_MS[i] })),
    (i, counters): Record<string, number> =>
      i === NEW_ORDER ? { rollbacks: counters.newOrderRollbacks } : {},
  );
}

/** A type's statistics with `count` completions, each recorded at `ms` milliseconds. */
function stats(count: number, ms: number | number[] = 10, errors = 0, retries = 0): TypeStats {
  const histogram = newHistogram();
  const values = Array.isArray(ms) ? ms : new Array<number>(count).fill(ms);
  for (const v of values) recordUs(histogram, v * 1000);
  return { count, errors, retries, histogram };
}

function engineResult(
  perType: TypeStats[],
  windowSeconds: number,
  counters: Partial<TpccCounters> = {},
): EngineResult<TpccCounters> {
  const lateness = newHistogram();
  for (const us of [100, 200, 300, 400, 5000]) recordUs(lateness, us);
  return {
    status: 'completed',
    windowSeconds,
    measured: true,
    perType,
    errorsByClass: {
      conflict: 0,
      deadlock: 0,
      lockTimeout: 0,
      connection: 0,
      timeout: 0,
      constraint: 0,
      other: 0,
    },
    counters: { ...newTpccCounters(), ...counters },
    lateness,
    drain: { limitMs: 30_000, queued: 0, inFlight: 0, abandoned: 0, oldestAgeMs: null },
    edges: { dueBefore: 0, drained: 0 },
    outages: [],
    failure: undefined,
  };
}

const CPU0 = { userUs: 0, systemUs: 0 };

/** Counters of a run that passes every audit figure, for `newOrders` and `payments` etc. */
function passingCounters(newOrders: number, payments: number, orderStatus: number): Partial<TpccCounters> {
  return {
    newOrderRollbacks: Math.round(newOrders * 0.01),
    orderLines: newOrders * 10,
    remoteOrderLines: Math.round(newOrders * 10 * 0.01),
    remotePayments: Math.round(payments * 0.15),
    paymentsByName: Math.round(payments * 0.6),
    orderStatusByName: Math.round(orderStatus * 0.6),
  };
}

function check(checks: AuditCheck[], name: string): AuditCheck {
  const found = checks.find((c) => c.name === name);
  if (found === undefined)
    throw new Error(`no audit check named ${name}: ${checks.map((c) => c.name).join('; ')}`);
  return found;
}

describe('summarize', () => {
  it('computes TPS over the window from all five types', () => {
    const engine = engineResult([stats(450), stats(430), stats(40), stats(40), stats(40)], 100);
    const s = summarize({ engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 });
    expect(s.transactions).toBe(1000);
    expect(s.tps).toBe(10);
    expect(s.windowSeconds).toBe(100);
  });

  it('rounds TPS to 2 decimals', () => {
    const engine = engineResult([stats(1), stats(1), stats(0), stats(0), stats(0)], 3);
    expect(summarize({ engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 }).tps).toBe(0.67);
  });

  it('truncates tpmC (105.548 is reported as 105) and counts New-Orders only', () => {
    // 26,387 New-Orders in 250 minutes = 105.548 per minute.
    const engine = engineResult([stats(26_387), stats(50_000), stats(0), stats(0), stats(0)], 250 * 60);
    const s = summarize({ engine, warehouses: 10, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 });
    expect(s.tpmC).toBe(105);
  });

  it.each([
    [600, 60, 600],
    [1199, 120, 599],
    [1, 61, 0],
    [13, 30, 26],
    [7, 90, 4],
  ])('%i New-Orders in %i s is tpmC %i', (newOrders, seconds, tpmC) => {
    const engine = engineResult([stats(newOrders), stats(0), stats(0), stats(0), stats(0)], seconds);
    expect(summarize({ engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 }).tpmC).toBe(tpmC);
  });

  it('a zero-length window gives zeros, not Infinity or NaN', () => {
    const engine = engineResult([stats(5), stats(5), stats(0), stats(0), stats(0)], 0);
    const s = summarize({
      engine,
      warehouses: 1,
      thinkScale: 1,
      deck: TPCC_DECK,
      nextOrderIds: { start: 1, end: 2 },
      serverTransactions: { start: 1, end: 2 },
      cpu: { userUs: 1000, systemUs: 0 },
    });
    expect(s.tps).toBe(0);
    expect(s.tpmC).toBe(0);
    expect(s.nopm).toBeNull();
    expect(s.tpm).toBeNull();
    expect(s.clientCpu?.coresUsed).toBe(0);
  });

  it('NOPM is the sum(D_NEXT_O_ID) delta per minute; null when unknown', () => {
    const engine = engineResult([stats(0), stats(0), stats(0), stats(0), stats(0)], 120);
    const base = { engine, warehouses: 2, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 };
    expect(summarize({ ...base, nextOrderIds: { start: 60_020, end: 61_020 } }).nopm).toBe(500);
    expect(summarize({ ...base, nextOrderIds: { start: 60_020, end: 60_021 } }).nopm).toBe(0.5);
    // One decimal.
    expect(summarize({ ...base, nextOrderIds: { start: 0, end: 1001 } }).nopm).toBe(500.5);
    expect(summarize({ ...base, nextOrderIds: { start: 0, end: 1 } }).nopm).toBe(0.5);
    expect(summarize({ ...base, nextOrderIds: { start: 0, end: 333 } }).nopm).toBe(166.5);
    expect(summarize(base).nopm).toBeNull();
  });

  it('NOPM is independent of tpmC: rolled-back New-Orders count in tpmC, not in NOPM', () => {
    const engine = engineResult([stats(1000), stats(0), stats(0), stats(0), stats(0)], 60, {
      newOrderRollbacks: 10,
    });
    const s = summarize({
      engine,
      warehouses: 1,
      thinkScale: 0,
      deck: TPCC_DECK,
      nextOrderIds: { start: 30_000, end: 30_990 },
      cpu: CPU0,
    });
    expect(s.tpmC).toBe(1000);
    expect(s.nopm).toBe(990);
  });

  it('TPM is the server transaction delta per minute; null when unknown', () => {
    const engine = engineResult([stats(0), stats(0), stats(0), stats(0), stats(0)], 30);
    const base = { engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 };
    expect(summarize({ ...base, serverTransactions: { start: 1000, end: 4000 } }).tpm).toBe(6000);
    expect(summarize(base).tpm).toBeNull();
  });

  it('client CPU: seconds, cores used and microseconds per transaction', () => {
    const engine = engineResult([stats(400), stats(400), stats(100), stats(50), stats(50)], 10);
    const s = summarize({
      engine,
      warehouses: 1,
      thinkScale: 0,
      deck: TPCC_DECK,
      cpu: { userUs: 1_500_000, systemUs: 500_000 },
    });
    expect(s.clientCpu).toEqual({ userS: 1.5, systemS: 0.5, coresUsed: 0.2, usPerTransaction: 2000 });
    const none = summarize({
      engine: engineResult([stats(0), stats(0), stats(0), stats(0), stats(0)], 10),
      warehouses: 1,
      thinkScale: 0,
      deck: TPCC_DECK,
      cpu: { userUs: 1000, systemUs: 0 },
    });
    expect(none.clientCpu?.usPerTransaction).toBe(0);
  });

  it('efficiency is against the ceiling of the configured deck, only at think-scale 1', () => {
    // The 23-card deck caps 10 terminals at 12.61 tpmC (12.86 belongs to a 45/43/4/4/4 mix):
    // 1260 New-Orders in 10 minutes from 100 terminals is 126 tpmC, 99.96% of 126.05.
    const engine = engineResult([stats(1260), stats(1260), stats(0), stats(0), stats(0)], 600);
    const at = (thinkScale: number, warehouses = 10): RunSummary =>
      summarize({ engine, warehouses, thinkScale, deck: TPCC_DECK, cpu: CPU0 });
    expect(at(1).ceilingTpmC).toBeCloseTo(126.05, 1);
    expect(at(1).ceilingTpmC!).toBeLessThan(128.6);
    expect(at(1).efficiencyPct).toBe(100);
    expect(at(1, 20).efficiencyPct).toBe(50);
    for (const unpaced of [0, 0.5, 2]) {
      expect(at(unpaced).efficiencyPct).toBeNull();
      expect(at(unpaced).ceilingTpmC).toBeNull();
    }
  });

  it('the ceiling follows the configured mix: 45/43/4/4/4 is the 12.86 per 10 terminals of the spec', () => {
    const engine = engineResult([stats(1286), stats(1229), stats(0), stats(0), stats(0)], 600);
    const s = summarize({ engine, warehouses: 10, thinkScale: 1, deck: [45, 43, 4, 4, 4], cpu: CPU0 });
    expect(s.ceilingTpmC).toBeCloseTo(128.6, 1);
    expect(s.efficiencyPct).toBe(99.5);
  });

  it('efficiency is against the terminals driven when they are not 10 per warehouse', () => {
    const engine = engineResult([stats(1260), stats(1260), stats(0), stats(0), stats(0)], 600);
    // 126 tpmC from 200 terminals on 10 warehouses: the ceiling is twice that of 100 terminals.
    const s = summarize({
      engine,
      warehouses: 10,
      terminals: 200,
      thinkScale: 1,
      deck: TPCC_DECK,
      cpu: CPU0,
    });
    expect(s.ceilingTpmC).toBeCloseTo(252.1, 1);
    expect(s.efficiencyPct).toBe(50);
  });

  it('overall response times merge every type; errors and retries add up', () => {
    const engine = engineResult(
      [stats(2, [10, 20], 1, 3), stats(2, [30, 40], 2, 0), stats(0, [], 0, 1), stats(0, []), stats(0, [])],
      10,
    );
    const s = summarize({ engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 });
    expect(s.responseMs.avg).toBeCloseTo(25, 1);
    expect(s.responseMs.max).toBeCloseTo(40, 1);
    expect(s.responseMs.p50).toBeCloseTo(20, 1);
    expect(s.errors).toBe(3);
    expect(s.retries).toBe(4);
  });

  it('scheduler lateness in milliseconds', () => {
    const engine = engineResult([stats(0), stats(0), stats(0), stats(0), stats(0)], 10);
    const s = summarize({ engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 });
    expect(s.schedulerLatenessMs?.p50).toBeCloseTo(0.3, 2);
    expect(s.schedulerLatenessMs?.max).toBeCloseTo(5, 2);
  });

  it('client CPU is null when the process was shared with other targets', () => {
    const engine = engineResult([stats(400), stats(400), stats(100), stats(50), stats(50)], 10);
    expect(
      summarize({ engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: null }).clientCpu,
    ).toBeNull();
  });

  it('scheduler lateness is null only when nothing was submitted', () => {
    const engine = engineResult([stats(0), stats(0), stats(0), stats(0), stats(0)], 10);
    engine.lateness.reset();
    const s = summarize({ engine, warehouses: 1, thinkScale: 0, deck: TPCC_DECK, cpu: CPU0 });
    expect(s.schedulerLatenessMs).toBeNull();
  });
});

describe('summarizeTypes', () => {
  it('per type: count, mix share, response times, the 90th-percentile limit, rollbacks on New-Order only', () => {
    const slow = Array.from({ length: 100 }, (_, i) => (i < 89 ? 100 : 6000)); // p90 6000 ms
    const engine = engineResult(
      [stats(100, slow, 2, 5), stats(300, 50), stats(50, 4000), stats(25, 4900), stats(25, 19_000)],
      60,
      { newOrderRollbacks: 7 },
    );
    const t = summarizeTypes(engine);
    expect(Object.keys(t)).toEqual(['newOrder', 'payment', 'orderStatus', 'delivery', 'stockLevel']);
    expect(t.newOrder).toMatchObject({ name: 'New-Order', count: 100, errors: 2, retries: 5, mixPct: 20 });
    expect(t.newOrder!.rollbacks).toBe(7);
    expect(t.payment!.rollbacks).toBeUndefined();
    expect('rollbacks' in t.stockLevel!).toBe(false);
    expect(t.payment!.mixPct).toBe(60);
    expect(t.orderStatus!.mixPct).toBe(10);
    expect(t.newOrder!.p90LimitMs).toBe(5000);
    expect(t.newOrder!.p90Pass).toBe(false);
    expect(t.payment!.p90Pass).toBe(true);
    expect(t.orderStatus!.p90Pass).toBe(true);
    expect(t.delivery!.p90Pass).toBe(true);
    expect(t.stockLevel!.p90LimitMs).toBe(20_000);
    expect(t.stockLevel!.p90Pass).toBe(true);
    expect(t.payment!.responseMs.avg).toBeCloseTo(50, 1);
  });

  it('mix shares with three decimals, and zeros for an empty window', () => {
    const t = summarizeTypes(engineResult([stats(1), stats(1), stats(1), stats(0), stats(0)], 1));
    expect(t.newOrder!.mixPct).toBe(33.333);
    const empty = summarizeTypes(engineResult([stats(0), stats(0), stats(0), stats(0), stats(0)], 1));
    expect(empty.newOrder!.mixPct).toBe(0);
    expect(empty.newOrder!.responseMs).toEqual({ avg: 0, p50: 0, p90: 0, p95: 0, p99: 0, max: 0 });
  });
});

describe('auditChecks (clause 5.5.1.5, 2.7.4 and the mix minimums)', () => {
  // 1000 New-Orders, 1000 Payments, 1000 Order-Status, 250 Deliveries, 100 Stock-Level:
  // shares 29.85/29.85/29.85/7.46/2.99 are not what the mix tests below look at.
  const perType = (): TypeStats[] => [stats(1000), stats(1000), stats(1000), stats(250), stats(100)];
  const audit = (counters: Partial<TpccCounters>, warehouses = 2): AuditCheck[] =>
    auditChecks(
      engineResult(perType(), 60, { ...passingCounters(1000, 1000, 1000), ...counters }),
      warehouses,
    );

  it('a nominal run passes every input-variability check', () => {
    const checks = auditChecks(
      engineResult(
        [stats(4500), stats(4300), stats(400), stats(400), stats(400)],
        60,
        passingCounters(4500, 4300, 400),
      ),
      2,
    );
    expect(checks.filter((c) => c.pass !== true).map((c) => c.name)).toEqual([]);
    expect(check(checks, 'New-Order rollbacks %').value).toBe(1);
    expect(check(checks, 'order lines per New-Order').value).toBe(10);
  });

  it.each([
    ['New-Order rollbacks %', { newOrderRollbacks: 9 }, 0.9, true],
    ['New-Order rollbacks %', { newOrderRollbacks: 11 }, 1.1, true],
    ['New-Order rollbacks %', { newOrderRollbacks: 8 }, 0.8, false],
    ['New-Order rollbacks %', { newOrderRollbacks: 12 }, 1.2, false],
    ['order lines per New-Order', { orderLines: 9500, remoteOrderLines: 95 }, 9.5, true],
    ['order lines per New-Order', { orderLines: 10_500, remoteOrderLines: 105 }, 10.5, true],
    ['order lines per New-Order', { orderLines: 9499, remoteOrderLines: 95 }, 9.499, false],
    ['order lines per New-Order', { orderLines: 10_501, remoteOrderLines: 105 }, 10.501, false],
    ['remote order lines %', { orderLines: 10_000, remoteOrderLines: 95 }, 0.95, true],
    ['remote order lines %', { orderLines: 10_000, remoteOrderLines: 105 }, 1.05, true],
    ['remote order lines %', { orderLines: 10_000, remoteOrderLines: 94 }, 0.94, false],
    ['remote order lines %', { orderLines: 10_000, remoteOrderLines: 106 }, 1.06, false],
    ['remote Payments %', { remotePayments: 140 }, 14, true],
    ['remote Payments %', { remotePayments: 160 }, 16, true],
    ['remote Payments %', { remotePayments: 139 }, 13.9, false],
    ['remote Payments %', { remotePayments: 161 }, 16.1, false],
    ['Payments by last name %', { paymentsByName: 570 }, 57, true],
    ['Payments by last name %', { paymentsByName: 630 }, 63, true],
    ['Payments by last name %', { paymentsByName: 569 }, 56.9, false],
    ['Payments by last name %', { paymentsByName: 631 }, 63.1, false],
    ['Order-Status by last name %', { orderStatusByName: 570 }, 57, true],
    ['Order-Status by last name %', { orderStatusByName: 630 }, 63, true],
    ['Order-Status by last name %', { orderStatusByName: 569 }, 56.9, false],
    ['Order-Status by last name %', { orderStatusByName: 631 }, 63.1, false],
    // 250 Deliveries: at most max(1% of 250, 1) = 2 with skips.
    ['Deliveries with skipped districts', { deliveriesWithSkips: 0 }, 0, true],
    ['Deliveries with skipped districts', { deliveriesWithSkips: 2 }, 2, true],
    ['Deliveries with skipped districts', { deliveriesWithSkips: 3 }, 3, false],
  ] as const)('%s with %j: value %d, pass %s', (name, counters, value, pass) => {
    const checks = audit(counters);
    const c = check(checks, name);
    expect(c.value).toBe(value);
    expect(c.pass).toBe(pass);
    // The other checks are unaffected.
    expect(checks.filter((x) => x.name !== name && !x.name.endsWith('share %') && x.pass !== true)).toEqual(
      [],
    );
  });

  it('the skip allowance is at least one Delivery when there are fewer than 200', () => {
    const few = (deliveries: number, withSkips: number): AuditCheck =>
      check(
        auditChecks(
          engineResult([stats(1000), stats(1000), stats(100), stats(deliveries), stats(100)], 60, {
            ...passingCounters(1000, 1000, 100),
            deliveriesWithSkips: withSkips,
          }),
          2,
        ),
        'Deliveries with skipped districts',
      );
    expect(few(50, 1).pass).toBe(true);
    expect(few(50, 2).pass).toBe(false);
    expect(few(0, 1).pass).toBe(true);
    expect(few(199, 1).pass).toBe(true);
    expect(few(199, 2).pass).toBe(false);
    expect(few(200, 2).pass).toBe(true);
    expect(few(50, 1).allowed).toContain('= 1');
  });

  it('remote checks do not apply (pass null) with one warehouse, but still report their value', () => {
    const checks = audit({ remoteOrderLines: 0, remotePayments: 0 }, 1);
    const lines = check(checks, 'remote order lines %');
    const payments = check(checks, 'remote Payments %');
    expect(lines.pass).toBeNull();
    expect(lines.value).toBe(0);
    expect(payments.pass).toBeNull();
    expect(payments.value).toBe(0);
    // The rest still decide: all pass here.
    expect(checks.filter((c) => c.pass === false && !c.name.endsWith('share %'))).toEqual([]);
    // With two warehouses the same zeros fail.
    const two = audit({ remoteOrderLines: 0, remotePayments: 0 }, 2);
    expect(check(two, 'remote order lines %').pass).toBe(false);
    expect(check(two, 'remote Payments %').pass).toBe(false);
  });

  it('no New-Orders at all fails the New-Order figures instead of dividing by zero', () => {
    const checks = auditChecks(engineResult([stats(0), stats(10), stats(1), stats(1), stats(1)], 60), 2);
    expect(check(checks, 'New-Order rollbacks %')).toMatchObject({ value: 0, pass: false });
    expect(check(checks, 'order lines per New-Order')).toMatchObject({ value: 0, pass: false });
    for (const c of checks) expect(Number.isFinite(c.value ?? 0)).toBe(true);
  });

  it('mix minimums: Payment 43%, the other three 4% each, at the edges', () => {
    const shares = (counts: number[]): Record<string, boolean | null> => {
      const checks = auditChecks(
        engineResult(
          counts.map((n) => stats(n)),
          60,
        ),
        1,
      );
      return Object.fromEntries(
        checks.filter((c) => c.name.endsWith('share %')).map((c) => [c.name, c.pass]),
      );
    };
    // Exactly at every minimum (of 1000).
    expect(shares([450, 430, 40, 40, 40])).toEqual({
      'Payment share %': true,
      'Order-Status share %': true,
      'Delivery share %': true,
      'Stock-Level share %': true,
    });
    // One short of each minimum in turn.
    expect(shares([451, 429, 40, 40, 40])['Payment share %']).toBe(false);
    expect(shares([451, 430, 39, 40, 40])['Order-Status share %']).toBe(false);
    expect(shares([451, 430, 40, 39, 40])['Delivery share %']).toBe(false);
    expect(shares([451, 430, 40, 40, 39])['Stock-Level share %']).toBe(false);
    // New-Order has no minimum: no check for it.
    expect(Object.keys(shares([0, 430, 190, 190, 190]))).not.toContain('New-Order share %');
  });

  it('the 23-card deck passes the mix minimums', () => {
    const checks = auditChecks(
      engineResult([stats(1000), stats(1000), stats(100), stats(100), stats(100)], 60),
      2,
    );
    const mix = checks.filter((c) => c.name.endsWith('share %'));
    expect(mix).toHaveLength(4);
    expect(mix.every((c) => c.pass === true)).toBe(true);
    expect(check(checks, 'Payment share %').value).toBe(43.478);
    expect(check(checks, 'Delivery share %').value).toBe(4.348);
  });

  it('every check names its allowed range', () => {
    for (const c of audit({})) expect(c.allowed.length).toBeGreaterThan(0);
    expect(check(audit({}), 'New-Order rollbacks %').allowed).toBe('0.9..1.1');
    expect(check(audit({}), 'remote Payments %').allowed).toBe('14..16');
  });
});

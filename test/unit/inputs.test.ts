import { describe, expect, it } from 'vitest';
import { ITEMS } from '../../src/workloads/tpcc/generate.js';
import {
  centsToDecimal,
  deliveryInput,
  newOrderInput,
  orderStatusInput,
  paymentInput,
  remoteWarehouse,
  stockLevelInput,
  UNUSED_ITEM_ID,
  type CustomerRef,
  type RunInputContext,
} from '../../src/workloads/tpcc/inputs.js';
import { Rng } from '../../src/random/rng.js';
import { lastName } from '../../src/workloads/tpcc/random.js';

const CTX: RunInputContext = { warehouses: 10, constants: { cLast: 100, cId: 500, olIId: 4000 } };
const ONE: RunInputContext = { ...CTX, warehouses: 1 };
const NAMES = new Set(Array.from({ length: 1000 }, (_, n) => lastName(n)));
const SYLLABLE_NAME = /^(BAR|OUGHT|ABLE|PRI|PRES|ESE|ANTI|CALLY|ATION|EING){3}$/;

/** |observed - expected| within `sigmas` binomial standard deviations. */
function expectBinomial(hits: number, n: number, p: number, sigmas = 4): void {
  const sd = Math.sqrt(n * p * (1 - p));
  expect(Math.abs(hits - n * p), `${hits} of ${n}, expected about ${n * p}`).toBeLessThan(sigmas * sd);
}

describe('UNUSED_ITEM_ID', () => {
  it('is outside the loaded items 1..100000', () => {
    expect(UNUSED_ITEM_ID).toBeGreaterThan(ITEMS);
    expect(Number.isInteger(UNUSED_ITEM_ID)).toBe(true);
  });
});

describe('newOrderInput (clause 2.4.1)', () => {
  const N = 100_000;
  const rng = new Rng(20240601);
  const home = 4;
  const inputs = Array.from({ length: N }, () => newOrderInput(rng, home, CTX));

  it('has 5..15 lines, uniformly, mean about 10, with parallel arrays', () => {
    const perCount = new Array<number>(16).fill(0);
    let lines = 0;
    for (const o of inputs) {
      const n = o.itemIds.length;
      perCount[n]!++;
      lines += n;
      if (o.supplyWarehouses.length !== n || o.quantities.length !== n)
        expect.fail('arrays differ in length');
    }
    expect(perCount.slice(0, 5).every((c) => c === 0)).toBe(true);
    for (let n = 5; n <= 15; n++) expectBinomial(perCount[n]!, N, 1 / 11);
    expect(Math.abs(lines / N - 10)).toBeLessThan(0.05);
  });

  it('draws D_ID uniformly in 1..10 and C_ID in 1..3000', () => {
    const perD = new Array<number>(11).fill(0);
    for (const o of inputs) {
      perD[o.d]!++;
      if (!(o.c >= 1 && o.c <= 3000 && Number.isInteger(o.c))) expect.fail(`C_ID ${o.c}`);
    }
    expect(perD[0]).toBe(0);
    for (let d = 1; d <= 10; d++) expectBinomial(perD[d]!, N, 0.1);
  });

  it('rolls back about 1%, always and only with the last item unused', () => {
    let rollbacks = 0;
    const problems: string[] = [];
    for (const o of inputs) {
      const last = o.itemIds.length - 1;
      if (o.rollback) {
        rollbacks++;
        if (o.itemIds[last] !== UNUSED_ITEM_ID) problems.push('rollback without the unused item last');
      }
      o.itemIds.forEach((id, i) => {
        if (id === UNUSED_ITEM_ID && !(o.rollback && i === last)) problems.push(`unused item at line ${i}`);
        if (id !== UNUSED_ITEM_ID && !(Number.isInteger(id) && id >= 1 && id <= ITEMS)) {
          problems.push(`item id ${id}`);
        }
      });
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expectBinomial(rollbacks, N, 0.01);
  });

  it('draws item numbers with NURand(8191): non-uniform, all in 1..100000', () => {
    const freq = new Map<number, number>();
    let total = 0;
    for (const o of inputs) {
      for (const id of o.itemIds) {
        if (id === UNUSED_ITEM_ID) continue;
        freq.set(id, (freq.get(id) ?? 0) + 1);
        total++;
      }
    }
    // Uniform over 100,000 items would give about 10 per item with a maximum near 25;
    // NURand's OR concentrates draws on a subset.
    const max = Math.max(...freq.values());
    expect(max).toBeGreaterThan(40);
    expect(freq.size).toBeLessThan(100_000);
    expect(total).toBeGreaterThan(900_000);
  });

  it('supplies about 1% of lines remotely, never from the home warehouse, and counts them', () => {
    let lines = 0;
    let remote = 0;
    let ordersWithRemote = 0;
    const problems: string[] = [];
    for (const o of inputs) {
      let here = 0;
      o.supplyWarehouses.forEach((sw) => {
        lines++;
        if (!(Number.isInteger(sw) && sw >= 1 && sw <= CTX.warehouses)) problems.push(`supply ${sw}`);
        if (sw !== home) here++;
      });
      if (here !== o.remoteLines) problems.push(`remoteLines ${o.remoteLines}, counted ${here}`);
      remote += here;
      if (here > 0) ordersWithRemote++;
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expectBinomial(remote, lines, 0.01);
    // About 10% of orders contain a remote line (1 - 0.99^10 = 9.6%).
    expect(ordersWithRemote / N).toBeGreaterThan(0.085);
    expect(ordersWithRemote / N).toBeLessThan(0.105);
  });

  it('spreads remote supply over every other warehouse', () => {
    const used = new Set<number>();
    for (const o of inputs) for (const sw of o.supplyWarehouses) if (sw !== home) used.add(sw);
    expect([...used].sort((a, b) => a - b)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10]);
  });

  it('draws quantities uniformly in 1..10', () => {
    const perQ = new Array<number>(12).fill(0);
    let lines = 0;
    for (const o of inputs) {
      for (const q of o.quantities) {
        perQ[Number.isInteger(q) && q >= 1 && q <= 10 ? q : 11]!++;
        lines++;
      }
    }
    expect(perQ[0]).toBe(0);
    expect(perQ[11]).toBe(0);
    for (let q = 1; q <= 10; q++) expectBinomial(perQ[q]!, lines, 0.1);
  });

  it('with one warehouse, every line is home', () => {
    const r = new Rng(77);
    for (let i = 0; i < 20_000; i++) {
      const o = newOrderInput(r, 1, ONE);
      if (o.remoteLines !== 0 || o.supplyWarehouses.some((sw) => sw !== 1)) expect.fail('remote line');
    }
  });

  it('draws fresh inputs every time (no reuse after a rollback)', () => {
    const r = new Rng(5);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const o = newOrderInput(r, 1, CTX);
      seen.add(JSON.stringify(o));
    }
    expect(seen.size).toBe(2000);
  });
});

describe('paymentInput (clause 2.5.1)', () => {
  const N = 100_000;
  const rng = new Rng(99);
  const home = 7;
  const inputs = Array.from({ length: N }, () => paymentInput(rng, home, CTX));

  it('pays about 15% of the time for a remote customer: another warehouse, any district', () => {
    let remote = 0;
    const problems: string[] = [];
    const remoteDistricts = new Set<number>();
    let remoteOtherDistrict = 0;
    for (const p of inputs) {
      if (!(p.d >= 1 && p.d <= 10)) problems.push(`D_ID ${p.d}`);
      if (p.cW === home) {
        if (p.cD !== p.d) problems.push('home customer in another district');
      } else {
        remote++;
        if (!(p.cW >= 1 && p.cW <= 10)) problems.push(`C_W_ID ${p.cW}`);
        if (!(Number.isInteger(p.cD) && p.cD >= 1 && p.cD <= 10)) problems.push(`C_D_ID ${p.cD}`);
        remoteDistricts.add(p.cD);
        if (p.cD !== p.d) remoteOtherDistrict++;
      }
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expectBinomial(remote, N, 0.15);
    // C_D_ID is drawn independently for remote customers: 90% differ from D_ID.
    expect(remoteDistricts.size).toBe(10);
    expect(remoteOtherDistrict / remote).toBeGreaterThan(0.85);
  });

  it('identifies about 60% by a valid syllable last name, the rest by C_ID in 1..3000', () => {
    let byName = 0;
    const problems: string[] = [];
    for (const p of inputs) {
      const c: CustomerRef = p.customer;
      if (c.byName) {
        byName++;
        if (!SYLLABLE_NAME.test(c.last) || !NAMES.has(c.last)) problems.push(`name ${c.last}`);
      } else if (!(Number.isInteger(c.c) && c.c >= 1 && c.c <= 3000)) problems.push(`C_ID ${c.c}`);
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expectBinomial(byName, N, 0.6);
  });

  it('draws H_AMOUNT in cents within 100..500000 (1.00..5000.00), with mean about 2500.50', () => {
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    for (const p of inputs) {
      if (!Number.isInteger(p.amountCents)) expect.fail(`amount ${p.amountCents}`);
      min = Math.min(min, p.amountCents);
      max = Math.max(max, p.amountCents);
      sum += p.amountCents;
    }
    expect(min).toBeGreaterThanOrEqual(100);
    expect(max).toBeLessThanOrEqual(500_000);
    expect(min).toBeLessThan(1_000);
    expect(max).toBeGreaterThan(499_000);
    expect(Math.abs(sum / N - 250_050)).toBeLessThan(2_000);
  });

  it('with one warehouse, never remote (and the customer stays in the district)', () => {
    const r = new Rng(3);
    for (let i = 0; i < 20_000; i++) {
      const p = paymentInput(r, 1, ONE);
      if (p.cW !== 1 || p.cD !== p.d) expect.fail('remote payment with one warehouse');
    }
  });
});

describe('orderStatusInput (clause 2.6.1)', () => {
  it('identifies about 60% by last name, with D_ID in 1..10', () => {
    const N = 50_000;
    const rng = new Rng(1234);
    let byName = 0;
    const perD = new Array<number>(11).fill(0);
    for (let i = 0; i < N; i++) {
      const o = orderStatusInput(rng, CTX);
      perD[o.d]!++;
      if (o.customer.byName) {
        byName++;
        if (!NAMES.has(o.customer.last)) expect.fail(`name ${o.customer.last}`);
      } else if (!(o.customer.c >= 1 && o.customer.c <= 3000)) expect.fail(`C_ID ${o.customer.c}`);
    }
    expectBinomial(byName, N, 0.6);
    expect(perD[0]).toBe(0);
    for (let d = 1; d <= 10; d++) expectBinomial(perD[d]!, N, 0.1);
  });
});

describe('deliveryInput and stockLevelInput', () => {
  it('carrier in 1..10 and threshold in 10..20, every value drawn', () => {
    const rng = new Rng(8);
    const carriers = new Set<number>();
    const thresholds = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      carriers.add(deliveryInput(rng).carrier);
      thresholds.add(stockLevelInput(rng).threshold);
    }
    expect([...carriers].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect([...thresholds].sort((a, b) => a - b)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  });
});

describe('remoteWarehouse', () => {
  it.each([
    [1, 10],
    [5, 10],
    [10, 10],
    [2, 3],
  ])('from home %i of %i: never home, uniform over the others', (home, warehouses) => {
    const rng = new Rng(home * 31 + warehouses);
    const N = 90_000;
    const freq = new Array<number>(warehouses + 1).fill(0);
    for (let i = 0; i < N; i++) freq[remoteWarehouse(rng, home, warehouses)]!++;
    expect(freq[0]).toBe(0);
    expect(freq[home]).toBe(0);
    const others = warehouses - 1;
    let chi2 = 0;
    for (let w = 1; w <= warehouses; w++) {
      if (w === home) continue;
      const expected = N / others;
      chi2 += (freq[w]! - expected) ** 2 / expected;
    }
    // 99.9th percentile of chi-square with 8 degrees of freedom is 26.1.
    expect(chi2).toBeLessThan(26.1);
  });

  it('with two warehouses it is always the other one', () => {
    const rng = new Rng(1);
    for (let i = 0; i < 100; i++) {
      expect(remoteWarehouse(rng, 1, 2)).toBe(2);
      expect(remoteWarehouse(rng, 2, 2)).toBe(1);
    }
  });

  it('with one warehouse there is no other: it returns home', () => {
    expect(remoteWarehouse(new Rng(1), 1, 1)).toBe(1);
  });
});

describe('centsToDecimal', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [10, '0.10'],
    [99, '0.99'],
    [100, '1.00'],
    [101, '1.01'],
    [123456, '1234.56'],
    [500_000, '5000.00'],
    [999_999, '9999.99'],
  ])('%i cents is %j', (cents, text) => {
    expect(centsToDecimal(cents)).toBe(text);
  });

  it('round-trips every amount a Payment can draw', () => {
    for (let cents = 100; cents <= 500_000; cents += 7) {
      const text = centsToDecimal(cents);
      if (!/^\d+\.\d\d$/.test(text) || Math.round(Number(text) * 100) !== cents)
        expect.fail(`${cents} -> ${text}`);
    }
  });
});

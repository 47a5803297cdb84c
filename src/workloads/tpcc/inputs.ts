/**
 * Terminal inputs of the five transactions (clauses 2.4.1 to 2.8.1), drawn independently for every
 * transaction from the terminal's own generator. Pure: unit tests check every rate.
 */
import { ITEMS, DISTRICTS_PER_WAREHOUSE } from './generate.js';
import type { Rng } from '../../random/rng.js';
import { lastName, nurand, type NurandConstants } from './random.js';

export interface RunInputContext {
  /** Active warehouses, 1..warehouses. */
  warehouses: number;
  /** Run-time NURand constants (C_LAST's obeys the delta rule against the load's). */
  constants: NurandConstants;
}

/** An item id that does not exist, for the 1% of New-Orders that must roll back. */
export const UNUSED_ITEM_ID = ITEMS + 1;

export interface NewOrderInput {
  d: number;
  c: number;
  /** Per line: item, supplying warehouse, quantity. */
  itemIds: number[];
  supplyWarehouses: number[];
  quantities: number[];
  rollback: boolean;
  remoteLines: number;
}

export type CustomerRef = { byName: false; c: number } | { byName: true; last: string };

export interface PaymentInput {
  d: number;
  cW: number;
  cD: number;
  customer: CustomerRef;
  /** H_AMOUNT in cents, 100..500000. */
  amountCents: number;
}

export interface OrderStatusInput {
  d: number;
  customer: CustomerRef;
}

export interface DeliveryInput {
  carrier: number;
}

export interface StockLevelInput {
  threshold: number;
}

/** A random active warehouse other than `home` (there is none with one warehouse). */
export function remoteWarehouse(rng: Rng, home: number, warehouses: number): number {
  if (warehouses <= 1) return home;
  const other = rng.int(1, warehouses - 1);
  return other >= home ? other + 1 : other;
}

export function newOrderInput(rng: Rng, w: number, ctx: RunInputContext): NewOrderInput {
  const d = rng.int(1, DISTRICTS_PER_WAREHOUSE);
  const c = nurand(rng, 1023, 1, 3000, ctx.constants.cId);
  const lines = rng.int(5, 15);
  const rollback = rng.int(1, 100) === 1;
  const itemIds = new Array<number>(lines);
  const supplyWarehouses = new Array<number>(lines);
  const quantities = new Array<number>(lines);
  let remoteLines = 0;
  for (let i = 0; i < lines; i++) {
    itemIds[i] =
      rollback && i === lines - 1 ? UNUSED_ITEM_ID : nurand(rng, 8191, 1, ITEMS, ctx.constants.olIId);
    let supply = w;
    if (rng.int(1, 100) === 1 && ctx.warehouses > 1) {
      supply = remoteWarehouse(rng, w, ctx.warehouses);
      remoteLines++;
    }
    supplyWarehouses[i] = supply;
    quantities[i] = rng.int(1, 10);
  }
  return { d, c, itemIds, supplyWarehouses, quantities, rollback, remoteLines };
}

function customerRef(rng: Rng, ctx: RunInputContext): CustomerRef {
  return rng.int(1, 100) <= 60
    ? { byName: true, last: lastName(nurand(rng, 255, 0, 999, ctx.constants.cLast)) }
    : { byName: false, c: nurand(rng, 1023, 1, 3000, ctx.constants.cId) };
}

export function paymentInput(rng: Rng, w: number, ctx: RunInputContext): PaymentInput {
  const d = rng.int(1, DISTRICTS_PER_WAREHOUSE);
  let cW = w;
  let cD = d;
  if (rng.int(1, 100) > 85 && ctx.warehouses > 1) {
    cW = remoteWarehouse(rng, w, ctx.warehouses);
    cD = rng.int(1, DISTRICTS_PER_WAREHOUSE);
  }
  return { d, cW, cD, customer: customerRef(rng, ctx), amountCents: rng.int(100, 500_000) };
}

export function orderStatusInput(rng: Rng, ctx: RunInputContext): OrderStatusInput {
  return { d: rng.int(1, DISTRICTS_PER_WAREHOUSE), customer: customerRef(rng, ctx) };
}

export function deliveryInput(rng: Rng): DeliveryInput {
  return { carrier: rng.int(1, 10) };
}

export function stockLevelInput(rng: Rng): StockLevelInput {
  return { threshold: rng.int(10, 20) };
}

/** Cents as a numeric literal ("12.34"). */
export function centsToDecimal(cents: number): string {
  const whole = Math.floor(cents / 100);
  const frac = cents - whole * 100;
  return `${whole}.${frac < 10 ? '0' : ''}${frac}`;
}

/**
 * What each completed transaction adds to the audit counters of clause 5.5.1.5 and 2.7.4.2: one
 * definition for every database's executor, so the audit means the same everywhere.
 */
import { DISTRICTS_PER_WAREHOUSE } from './generate.js';
import type { NewOrderInput, OrderStatusInput, PaymentInput } from './inputs.js';
import type { TpccCounters } from './profile.js';

export function tallyNewOrder(c: TpccCounters, input: NewOrderInput): void {
  c.orderLines += input.itemIds.length;
  c.remoteOrderLines += input.remoteLines;
  if (input.rollback) c.newOrderRollbacks++;
}

export function tallyPayment(c: TpccCounters, w: number, input: PaymentInput): void {
  if (input.cW !== w) c.remotePayments++;
  if (input.customer.byName) c.paymentsByName++;
}

export function tallyOrderStatus(c: TpccCounters, input: OrderStatusInput): void {
  if (input.customer.byName) c.orderStatusByName++;
}

/** `delivered` of the warehouse's ten districts had an order to deliver; the rest were skipped. */
export function tallyDelivery(c: TpccCounters, delivered: number): void {
  c.deliveredDistricts += delivered;
  c.skippedDistricts += DISTRICTS_PER_WAREHOUSE - delivered;
  if (delivered < DISTRICTS_PER_WAREHOUSE) c.deliveriesWithSkips++;
}

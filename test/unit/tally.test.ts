import { describe, expect, it } from 'vitest';
import type { NewOrderInput, PaymentInput } from '../../src/workloads/tpcc/inputs.js';
import { newTpccCounters } from '../../src/workloads/tpcc/profile.js';
import {
  tallyDelivery,
  tallyNewOrder,
  tallyOrderStatus,
  tallyPayment,
} from '../../src/workloads/tpcc/tally.js';

describe('audit tallies', () => {
  it('New-Order adds its lines and remote lines, and counts the intended rollback', () => {
    const c = newTpccCounters();
    const order = (lines: number, remote: number, rollback: boolean): NewOrderInput =>
      ({ itemIds: new Array<number>(lines).fill(1), remoteLines: remote, rollback }) as NewOrderInput;
    tallyNewOrder(c, order(10, 1, false));
    tallyNewOrder(c, order(5, 0, true));
    expect(c).toMatchObject({ orderLines: 15, remoteOrderLines: 1, newOrderRollbacks: 1 });
  });

  it('Payment counts remote customers (another warehouse than the terminal) and lookups by name', () => {
    const c = newTpccCounters();
    const pay = (cW: number, byName: boolean): PaymentInput =>
      ({ cW, customer: byName ? { byName, last: 'BARBARBAR' } : { byName, c: 1 } }) as PaymentInput;
    tallyPayment(c, 1, pay(1, true));
    tallyPayment(c, 1, pay(2, false));
    tallyPayment(c, 1, pay(3, true));
    expect(c).toMatchObject({ remotePayments: 2, paymentsByName: 2 });
    tallyOrderStatus(c, { d: 1, customer: { byName: true, last: 'X' } });
    tallyOrderStatus(c, { d: 1, customer: { byName: false, c: 7 } });
    expect(c.orderStatusByName).toBe(1);
  });

  it('Delivery adds delivered and skipped districts, and counts deliveries with a skip', () => {
    const c = newTpccCounters();
    tallyDelivery(c, 10);
    tallyDelivery(c, 7);
    expect(c).toMatchObject({ deliveredDistricts: 17, skippedDistricts: 3, deliveriesWithSkips: 1 });
  });
});

import type { TransactionSpec } from '../../engine/types.js';

/** The five types in their conventional order, with the keying and mean think times of clause 5.2.5. */
export const TPCC_TRANSACTIONS: readonly TransactionSpec[] = [
  { key: 'newOrder', name: 'New-Order', keyingS: 18, thinkMeanS: 12 },
  { key: 'payment', name: 'Payment', keyingS: 3, thinkMeanS: 12 },
  { key: 'orderStatus', name: 'Order-Status', keyingS: 2, thinkMeanS: 10 },
  { key: 'delivery', name: 'Delivery', keyingS: 2, thinkMeanS: 5 },
  { key: 'stockLevel', name: 'Stock-Level', keyingS: 2, thinkMeanS: 5 },
];

export const NEW_ORDER = 0;
export const PAYMENT = 1;
export const ORDER_STATUS = 2;
export const DELIVERY = 3;
export const STOCK_LEVEL = 4;

/** The 23-card deck of clause 5.2.4.2: 10 New-Order, 10 Payment, one each of the rest. */
export const TPCC_DECK: readonly number[] = [10, 10, 1, 1, 1];

/** Minimum shares of clause 5.2.3, percent. */
export const MIX_MINIMUMS: readonly number[] = [0, 43, 4, 4, 4];

/** 90th-percentile response-time limits of clause 5.2.5.3, milliseconds. */
export const P90_LIMITS_MS: readonly number[] = [5000, 5000, 5000, 5000, 20000];

/** Counters the TPC-C executor keeps for the audit figures of clause 5.5.1.5 and 2.7.4. */
export type TpccCounters = {
  newOrderRollbacks: number;
  orderLines: number;
  remoteOrderLines: number;
  remotePayments: number;
  paymentsByName: number;
  orderStatusByName: number;
  deliveredDistricts: number;
  skippedDistricts: number;
  /** Delivery transactions that skipped at least one district. */
  deliveriesWithSkips: number;
};

export function newTpccCounters(): TpccCounters {
  return {
    newOrderRollbacks: 0,
    orderLines: 0,
    remoteOrderLines: 0,
    remotePayments: 0,
    paymentsByName: 0,
    orderStatusByName: 0,
    deliveredDistricts: 0,
    skippedDistricts: 0,
    deliveriesWithSkips: 0,
  };
}

/**
 * `--procedures` on the wire path (dialects/postgres/wire): the same five function calls as
 * procedure-calls.ts, each one prepared statement run with text parameters, its answer read as
 * the one value (or, for Order-Status, the rows) the transaction needs.
 */
import { arrayLiteral, rowObjects, type WireSlot } from '../../../dialects/postgres/wire/session.js';
import type { TpccOperations } from '../bodies.js';
import { describeCustomer } from '../customer-by-name.js';
import { centsToDecimal } from '../inputs.js';
import { orderStatusOutput } from '../order-status-output.js';
import {
  CALL_DELIVERY,
  CALL_NEW_ORDER,
  CALL_ORDER_STATUS,
  CALL_PAYMENT,
  CALL_STOCK_LEVEL,
  ITEM_NOT_FOUND,
} from './procedures.js';

/** Prepared on every slot at open, in this order. */
export const WIRE_PROCEDURE_STATEMENTS = [
  CALL_NEW_ORDER,
  CALL_PAYMENT,
  CALL_ORDER_STATUS,
  CALL_DELIVERY,
  CALL_STOCK_LEVEL,
] as const;
const NEW_ORDER = 0;
const PAYMENT = 1;
const ORDER_STATUS = 2;
const DELIVERY = 3;
const STOCK_LEVEL = 4;

const codeOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';

export const wireProcedureTransactions: TpccOperations<WireSlot> = {
  async newOrder(slot, w, input) {
    try {
      await slot.conn.run(slot.prepared[NEW_ORDER]!, [
        String(w),
        String(input.d),
        String(input.c),
        arrayLiteral(input.itemIds),
        arrayLiteral(input.supplyWarehouses),
        arrayLiteral(input.quantities),
      ]);
    } catch (err) {
      // The function raised "item number is not valid": the spec's 1% rollback, a complete transaction.
      if (input.rollback && codeOf(err) === ITEM_NOT_FOUND) return;
      throw err;
    }
  },

  async payment(slot, w, input) {
    const { d, cW, cD, customer } = input;
    await slot.conn.run(slot.prepared[PAYMENT]!, [
      String(w),
      String(d),
      String(cW),
      String(cD),
      customer.byName ? '0' : String(customer.c),
      customer.byName ? customer.last : '',
      centsToDecimal(input.amountCents),
    ]);
  },

  async orderStatus(slot, w, input) {
    const { d, customer } = input;
    const statement = slot.prepared[ORDER_STATUS]!;
    const result = await slot.conn.run(statement, [
      String(w),
      String(d),
      customer.byName ? '0' : String(customer.c),
      customer.byName ? customer.last : '',
    ]);
    const rows = rowObjects(statement, result);
    const output = orderStatusOutput(rows[0], rows[0], rows);
    if (output === undefined)
      throw new Error(`Order-Status found no customer ${describeCustomer(w, d, customer)}`);
    return output;
  },

  async delivery(slot, w, carrier) {
    const { rows } = await slot.conn.run(slot.prepared[DELIVERY]!, [String(w), String(carrier)]);
    return Number(rows[0]?.[0] ?? 0);
  },

  async stockLevel(slot, w, d, threshold) {
    await slot.conn.run(slot.prepared[STOCK_LEVEL]!, [String(w), String(d), String(threshold)]);
  },
};

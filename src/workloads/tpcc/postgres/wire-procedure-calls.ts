/**
 * `--procedures` on the wire path (dialects/postgres/wire): the same five function calls as
 * procedure-calls.ts, each one prepared statement run with text parameters (numbers written
 * straight into the Bind, bind.ts), its answer read as the one value (or, for Order-Status, the
 * rows) the transaction needs; the calls whose answer no one reads only count its rows. Written on the wire
 * client's callbacks, so that a transaction passes no promise on its way (bodies.ts).
 */
import { rowObjects, type WireSlot } from '../../../dialects/postgres/wire/session.js';
import { promisedOperations, type TpccCallbackOperations } from '../bodies.js';
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

export const wireProcedureCalls: TpccCallbackOperations<WireSlot> = {
  newOrder(slot, w, input, done) {
    slot.conn.count(
      slot.prepared[NEW_ORDER]!,
      [w, input.d, input.c, input.itemIds, input.supplyWarehouses, input.quantities],
      (err) =>
        // The function raised "item number is not valid": the spec's 1% rollback, a complete transaction.
        done(err !== undefined && input.rollback && codeOf(err) === ITEM_NOT_FOUND ? undefined : err),
    );
  },

  payment(slot, w, input, done) {
    const { d, cW, cD, customer } = input;
    slot.conn.count(
      slot.prepared[PAYMENT]!,
      [
        w,
        d,
        cW,
        cD,
        customer.byName ? 0 : customer.c,
        customer.byName ? customer.last : '',
        centsToDecimal(input.amountCents),
      ],
      done,
    );
  },

  orderStatus(slot, w, input, done) {
    const { d, customer } = input;
    const statement = slot.prepared[ORDER_STATUS]!;
    slot.conn.execute(
      statement,
      [w, d, customer.byName ? 0 : customer.c, customer.byName ? customer.last : ''],
      (err, result) => {
        if (err !== undefined) return done(err);
        const rows = rowObjects(statement, result);
        const output = orderStatusOutput(rows[0], rows[0], rows);
        if (output === undefined)
          done(new Error(`Order-Status found no customer ${describeCustomer(w, d, customer)}`));
        else done(undefined, output);
      },
    );
  },

  delivery(slot, w, carrier, done) {
    slot.conn.execute(slot.prepared[DELIVERY]!, [w, carrier], (err, result) =>
      done(err, err === undefined ? Number(result.rows[0]?.[0] ?? 0) : 0),
    );
  },

  stockLevel(slot, w, d, threshold, done) {
    slot.conn.count(slot.prepared[STOCK_LEVEL]!, [w, d, threshold], done);
  },
};

/** The same calls as promises. */
export const wireProcedureTransactions = promisedOperations(wireProcedureCalls);

/**
 * `--procedures` on a slot's callback route (`Session.callbacks`): the same five CALLs as
 * transactions.ts sends as text, each a statement prepared once per connection and run with its
 * ids and counts as numbers, its answer read as the promise path reads it: the one value the transaction needs,
 * or, for Order-Status, its one result set (the customer and order on each of the order's lines). No promise per transaction (bodies.ts); errors
 * reach the executor as the driver raised them, so it classifies them as on the promise path.
 */
import type { CallbackRoute, ParamValue, TextResult, TextValue } from '../../../dialects/connections.js';
import { promisedOperations, type TpccCallbackOperations } from '../bodies.js';
import { describeCustomer } from '../customer-by-name.js';
import type { PaymentInput } from '../inputs.js';
import { orderStatusOutput } from '../order-status-output.js';
import { newOrderParams, orderStatusParams, paymentParams, PREPARED_CALL } from './procedures.js';

type Answered = (err: Error | undefined, result: TextResult) => void;

const NO_RESULT: TextResult = { rows: [], tag: '' };

/** Runs a CALL on the route: prepared on the connection's first use of it, taken as it is after. */
function call(
  route: CallbackRoute,
  sql: string,
  values: readonly ParamValue[],
  done: Answered,
  countOnly = false,
): void {
  const statement = route.preparedFor(sql);
  if (statement !== undefined) {
    if (countOnly) route.count(statement, values, done);
    else route.run(statement, values, done);
    return;
  }
  route.prepare(sql).then(
    (prepared) => {
      try {
        if (countOnly) route.count(prepared, values, done);
        else route.run(prepared, values, done);
      } catch (err) {
        done(asError(err), NO_RESULT);
      }
    },
    (err: unknown) => done(asError(err), NO_RESULT),
  );
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** Order-Status's columns by position, as its procedure's SELECT lists them (procedures.ts). */
const ORDER_STATUS_COLUMNS = [
  'c_id',
  'c_balance',
  'c_first',
  'c_middle',
  'c_last',
  'o_id',
  'o_entry_d',
  'o_carrier_id',
  'ol_i_id',
  'ol_supply_w_id',
  'ol_quantity',
  'ol_amount',
  'ol_delivery_d',
] as const;

function named(row: readonly TextValue[]): Record<string, TextValue> {
  const out: Record<string, TextValue> = {};
  for (let i = 0; i < ORDER_STATUS_COLUMNS.length; i++) out[ORDER_STATUS_COLUMNS[i]!] = row[i] ?? null;
  return out;
}

function paymentCustomer(input: PaymentInput): { c: number } | { last: string } {
  return input.customer.byName ? { last: input.customer.last } : { c: input.customer.c };
}

export const procedureCalls: TpccCallbackOperations<CallbackRoute> = {
  newOrder(route, w, input, done) {
    // Only a rolled-back order answers with a row (procedures.ts): the rows are counted, not read.
    call(
      route,
      PREPARED_CALL.newOrder,
      newOrderParams(w, input),
      (err, result) => {
        if (err !== undefined) return done(err);
        const rolledBack = result.rows.length > 0;
        if (rolledBack === input.rollback) return done(undefined);
        done(
          new Error(
            rolledBack
              ? 'New-Order found item numbers missing from ITEM'
              : 'New-Order found the unused item number in ITEM',
          ),
        );
      },
      true,
    );
  },

  payment(route, w, input, done) {
    // No answer but the CALL's OK: the procedure raises an error when there is no such customer.
    const { d, cW, cD, amountCents } = input;
    const values = paymentParams({ w, d, cW, cD, customer: paymentCustomer(input), amountCents });
    call(route, PREPARED_CALL.payment, values, (err) => done(err), true);
  },

  orderStatus(route, w, input, done) {
    const customer = input.customer.byName ? { last: input.customer.last } : { c: input.customer.c };
    call(route, PREPARED_CALL.orderStatus, orderStatusParams(w, input.d, customer), (err, result) => {
      if (err !== undefined) return done(err);
      // Without an order the one row has NULL order and line columns, which orderStatusOutput skips.
      const rows = result.rows.map(named);
      const output = orderStatusOutput(rows[0], rows[0], rows);
      if (output === undefined)
        done(new Error(`Order-Status found no customer ${describeCustomer(w, input.d, input.customer)}`));
      else done(undefined, output);
    });
  },

  delivery(route, w, carrier, done) {
    call(route, PREPARED_CALL.delivery, [w, carrier], (err, result) => {
      if (err !== undefined) return done(err, 0);
      const row = result.rows[0];
      if (row === undefined) return done(new Error('Delivery returned nothing'), 0);
      done(undefined, Number(row[0]));
    });
  },

  stockLevel(route, w, d, threshold, done) {
    // No answer but the CALL's OK (the count stays in the procedure, as on PostgreSQL).
    call(route, PREPARED_CALL.stockLevel, [w, d, threshold], (err) => done(err), true);
  },
};

/** The same calls as promises. */
export const procedureCallTransactions = promisedOperations(procedureCalls);

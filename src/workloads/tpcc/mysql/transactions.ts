/**
 * The five transactions on one MySQL/MariaDB connection, as client-side batches (sql.ts) or as
 * stored-procedure calls (procedures.ts). Each resolves when the transaction is complete (New-Order's
 * intended rollback included) and throws otherwise; retrying and counting are the executor's.
 */
import type { Connection } from '../../../dialects/mysql/connect.js';
import { describeCustomer } from '../customer-by-name.js';
import type { NewOrderInput, OrderStatusInput, PaymentInput } from '../inputs.js';
import { orderStatusOutput, type OrderStatusOutput } from '../order-status-output.js';
import * as P from './procedures.js';
import * as Q from './sql.js';

export interface MysqlTransactions {
  newOrder(conn: Connection, w: number, input: NewOrderInput): Promise<void>;
  payment(conn: Connection, w: number, input: PaymentInput): Promise<void>;
  /** Throws when the customer is not there. */
  orderStatus(conn: Connection, w: number, input: OrderStatusInput): Promise<OrderStatusOutput>;
  /** Returns the number of districts delivered (the rest were skipped: no new order). */
  delivery(conn: Connection, w: number, carrier: number): Promise<number>;
  stockLevel(conn: Connection, w: number, d: number, threshold: number): Promise<void>;
}

type Row = Record<string, unknown>;

/** The row sets of a batch's SELECTs (and a CALL's), in order; OK packets left out. */
function rowSets(result: unknown): Row[][] {
  return Array.isArray(result) ? (result.filter((r) => Array.isArray(r)) as Row[][]) : [];
}

/** Reads a DECIMAL (a string from mysql2) as whole cents. */
function toCents(v: unknown): number {
  return Math.round(Number(v) * 100);
}

function paymentValues(w: number, input: PaymentInput): Q.PaymentValues {
  const customer = input.customer.byName ? { last: input.customer.last } : { c: input.customer.c };
  return { w, d: input.d, cW: input.cW, cD: input.cD, customer, amountCents: input.amountCents };
}

/** An Order-Status's output from the client-side batch's customer, order and lines result sets. */
function orderStatusResult(result: unknown, w: number, input: OrderStatusInput): OrderStatusOutput {
  const [customerRows, orderRows, lineRows] = rowSets(result);
  return foundCustomer(orderStatusOutput(customerRows?.[0], orderRows?.[0], lineRows ?? []), w, input);
}

/** An Order-Status's output from its CALL's one result set: the customer and order on every line. */
function orderStatusCallResult(result: unknown, w: number, input: OrderStatusInput): OrderStatusOutput {
  const rows = rowSets(result)[0] ?? [];
  return foundCustomer(orderStatusOutput(rows[0], rows[0], rows), w, input);
}

function foundCustomer(
  output: OrderStatusOutput | undefined,
  w: number,
  input: OrderStatusInput,
): OrderStatusOutput {
  if (output === undefined)
    throw new Error(`Order-Status found no customer ${describeCustomer(w, input.d, input.customer)}`);
  return output;
}

export const clientSqlTransactions: MysqlTransactions = {
  async newOrder(conn, w, input) {
    const { d, c, itemIds, supplyWarehouses, quantities } = input;
    const lines = itemIds.length;
    const distinctItems = [...new Set(itemIds)];
    // One entry per distinct stock row (a repeated item is one row, changed once per line).
    const stockKeys = new Map<number, { w: number; i: number }>();
    for (let k = 0; k < lines; k++) {
      const key = supplyWarehouses[k]! * 1_000_000 + itemIds[k]!;
      if (!stockKeys.has(key)) stockKeys.set(key, { w: supplyWarehouses[k]!, i: itemIds[k]! });
    }
    const [readResult] = await conn.query(Q.newOrderRead(w, d, c, distinctItems, [...stockKeys.values()]));
    const [headerRows, itemRows, stockRows] = rowSets(readResult);
    const header = headerRows?.[0];
    if (header === undefined)
      throw new Error(`New-Order found no district or customer for (${w}, ${d}, ${c})`);

    const priceCents = new Map<number, number>();
    for (const row of itemRows ?? []) priceCents.set(row.i_id as number, toCents(row.i_price));
    const itemsMissing = priceCents.size < distinctItems.length;
    // The executor rolls the open transaction back after either error.
    if (itemsMissing && !input.rollback) throw new Error('New-Order found item numbers missing from ITEM');
    if (!itemsMissing && input.rollback) throw new Error('New-Order found the unused item number in ITEM');
    const stock = new Map<number, { row: Row; change: Q.StockChange }>();
    for (const row of stockRows ?? []) {
      const sw = row.s_w_id as number;
      const si = row.s_i_id as number;
      stock.set(sw * 1_000_000 + si, {
        row,
        change: { w: sw, i: si, quantity: row.s_quantity as number, ytd: 0, orders: 0, remote: 0 },
      });
    }
    // Apply the lines in order, as sequential processing would (a repeated item sees the previous
    // line's quantity). The unused item of the 1% has no price: no stock and no line for it.
    const orderLines: Q.OrderLineValues[] = [];
    for (let k = 0; k < lines; k++) {
      const price = priceCents.get(itemIds[k]!);
      if (price === undefined) continue;
      const s = stock.get(supplyWarehouses[k]! * 1_000_000 + itemIds[k]!);
      if (s === undefined)
        throw new Error(`New-Order found no stock row (${supplyWarehouses[k]}, ${itemIds[k]})`);
      const q = quantities[k]!;
      const ch = s.change;
      ch.quantity = ch.quantity >= q + 10 ? ch.quantity - q : ch.quantity - q + 91;
      ch.ytd += q;
      ch.orders++;
      if (supplyWarehouses[k] !== w) ch.remote++;
      orderLines.push({
        number: k + 1,
        i: itemIds[k]!,
        supplyW: supplyWarehouses[k]!,
        quantity: q,
        amountCents: q * price,
        distInfo: s.row.dist_info as string,
      });
    }
    const changes = [...stock.values()].map((s) => s.change).filter((ch) => ch.orders > 0);
    // The 1% do all of the work too (clause 2.4.2.3) and end with a rollback: still two round trips.
    await conn.query(
      Q.newOrderWrite({
        w,
        d,
        c,
        olCnt: lines,
        allLocal: input.remoteLines === 0,
        changes,
        lines: orderLines,
        end: input.rollback ? 'rollback' : 'commit',
      }),
    );
  },

  async payment(conn, w, input) {
    const [result] = await conn.query(Q.payment(paymentValues(w, input)));
    if (rowSets(result)[0]?.[0] === undefined)
      throw new Error(`Payment found no customer ${describeCustomer(input.cW, input.cD, input.customer)}`);
  },

  async orderStatus(conn, w, input) {
    const customer = input.customer.byName ? { last: input.customer.last } : { c: input.customer.c };
    const [result] = await conn.query(Q.orderStatus(w, input.d, customer));
    return orderStatusResult(result, w, input);
  },

  async delivery(conn, w, carrier) {
    const [result] = await conn.query(Q.delivery(w, carrier));
    const row = rowSets(result)[0]?.[0];
    if (row === undefined) throw new Error('Delivery returned nothing');
    let delivered = 0;
    for (let d = 1; d <= 10; d++) if (row[`d${d}`] !== null && row[`d${d}`] !== undefined) delivered++;
    return delivered;
  },

  async stockLevel(conn, w, d, threshold) {
    await conn.query(Q.stockLevel(w, d, threshold));
  },
};

export const procedureTransactions: MysqlTransactions = {
  async newOrder(conn, w, input) {
    // Only a rolled-back order answers with a row (procedures.ts).
    const [result] = await conn.query(P.callNewOrder(w, input));
    const rolledBack = rowSets(result)[0]?.[0] !== undefined;
    if (rolledBack !== input.rollback) {
      throw new Error(
        rolledBack
          ? 'New-Order found item numbers missing from ITEM'
          : 'New-Order found the unused item number in ITEM',
      );
    }
  },

  async payment(conn, w, input) {
    // No answer but the OK: the procedure raises an error when there is no such customer.
    await conn.query(P.callPayment(paymentValues(w, input)));
  },

  async orderStatus(conn, w, input) {
    const customer = input.customer.byName ? { last: input.customer.last } : { c: input.customer.c };
    const [result] = await conn.query(P.callOrderStatus(w, input.d, customer));
    return orderStatusCallResult(result, w, input);
  },

  async delivery(conn, w, carrier) {
    const [result] = await conn.query(P.callDelivery(w, carrier));
    const row = rowSets(result)[0]?.[0];
    if (row === undefined) throw new Error('Delivery returned nothing');
    return Number(row.delivered);
  },

  async stockLevel(conn, w, d, threshold) {
    await conn.query(P.callStockLevel(w, d, threshold));
  },
};

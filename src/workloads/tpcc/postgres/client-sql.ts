/**
 * The five transactions as client-side SQL. Statements that do not depend on each other's results
 * are sent together (pipelined): New-Order costs two round trips, the others one each.
 */
import type postgres from 'postgres';
import { classifyPostgresError } from '../../../dialects/postgres/errors.js';
import { describeCustomer } from '../customer-by-name.js';
import {
  centsToDecimal,
  UNUSED_ITEM_ID,
  type NewOrderInput,
  type OrderStatusInput,
  type PaymentInput,
} from '../inputs.js';
import { orderStatusOutput, type OrderStatusOutput } from '../order-status-output.js';
import * as Q from './sql.js';
import type { Conn, PgTransactions } from './transactions.js';

type Pending = postgres.PendingQuery<postgres.Row[]>;

const STOCK_SQL = Array.from({ length: 11 }, (_, d) => (d === 0 ? '' : Q.noStockUpdate(d)));

export const clientSqlTransactions: PgTransactions = {
  async newOrder(conn: Conn, w: number, input: NewOrderInput): Promise<void> {
    const { d, c, itemIds, supplyWarehouses, quantities } = input;
    const lines = itemIds.length;
    // One stock row per distinct (warehouse, item); a repeated item is applied again afterwards,
    // so each line sees the quantity the previous one left, as sequential processing would.
    const seen = new Map<number, number>();
    const sw: number[] = [];
    const si: number[] = [];
    const sq: number[] = [];
    const sr: number[] = [];
    const repeats: number[] = [];
    for (let k = 0; k < lines; k++) {
      const key = supplyWarehouses[k]! * 1_000_000 + itemIds[k]!;
      if (seen.has(key)) {
        repeats.push(k);
        continue;
      }
      seen.set(key, sw.length);
      sw.push(supplyWarehouses[k]!);
      si.push(itemIds[k]!);
      sq.push(quantities[k]!);
      sr.push(supplyWarehouses[k] === w ? 0 : 1);
    }
    const stockSql = STOCK_SQL[d]!;
    const [, headerRows, itemRows, stockRows] = await pipelined(conn, [
      conn.unsafe('begin'),
      conn.unsafe(Q.NO_HEADER, [w, d, c], { prepare: true }),
      conn.unsafe(Q.NO_ITEMS, [[...new Set(itemIds)]], { prepare: true }),
      conn.unsafe(stockSql, [sw, si, sq, sr], { prepare: true }),
    ]);
    const header = headerRows![0];
    const itemsMissing = itemRows!.length < new Set(itemIds).size;
    if (header === undefined || itemsMissing !== input.rollback) {
      await conn.unsafe('rollback');
      if (header === undefined)
        throw new Error(`New-Order found no district or customer for (${w}, ${d}, ${c})`);
      throw new Error(
        itemsMissing
          ? 'New-Order found item numbers missing from ITEM'
          : `New-Order found the unused item ${UNUSED_ITEM_ID} in ITEM`,
      );
    }
    const stockByKey = new Map<number, postgres.Row>();
    for (const row of stockRows!)
      stockByKey.set((row.s_w_id as number) * 1_000_000 + (row.s_i_id as number), row);
    for (const k of repeats) {
      const rows = await conn.unsafe(
        stockSql,
        [[supplyWarehouses[k]!], [itemIds[k]!], [quantities[k]!], [supplyWarehouses[k] === w ? 0 : 1]],
        { prepare: true },
      );
      if (rows[0]) stockByKey.set(supplyWarehouses[k]! * 1_000_000 + itemIds[k]!, rows[0]);
    }
    const priceCents = new Map<number, number>();
    for (const row of itemRows!) priceCents.set(row.i_id as number, Math.round(Number(row.i_price) * 100));
    // The valid lines only: the unused item of the 1% has no price, no stock and no ORDER-LINE.
    const numbers: number[] = [];
    const lineItems: number[] = [];
    const lineSupply: number[] = [];
    const lineQuantities: number[] = [];
    const amounts: string[] = [];
    const distInfo: string[] = [];
    for (let k = 0; k < lines; k++) {
      const price = priceCents.get(itemIds[k]!);
      if (price === undefined) continue;
      numbers.push(k + 1);
      lineItems.push(itemIds[k]!);
      lineSupply.push(supplyWarehouses[k]!);
      lineQuantities.push(quantities[k]!);
      amounts.push(centsToDecimal(quantities[k]! * price));
      distInfo.push(
        (stockByKey.get(supplyWarehouses[k]! * 1_000_000 + itemIds[k]!)?.dist_info as string) ?? '',
      );
    }
    const oId = header.o_id as number;
    const allLocal = input.remoteLines === 0 ? 1 : 0;
    // The 1% with an unused item do all of the work too (clause 2.4.2.3), then roll it back, the
    // D_NEXT_O_ID increment included: the same two round trips as a committed New-Order.
    await pipelined(conn, [
      conn.unsafe(Q.NO_INSERT_ORDER, [oId, d, w, c, lines, allLocal], { prepare: true }),
      conn.unsafe(Q.NO_INSERT_NEW_ORDER, [oId, d, w], { prepare: true }),
      conn.unsafe(
        Q.NO_INSERT_LINES,
        [oId, d, w, numbers, lineItems, lineSupply, lineQuantities, amounts, distInfo],
        { prepare: true },
      ),
      conn.unsafe(input.rollback ? 'rollback' : 'commit'),
    ]);
  },
  async payment(conn: Conn, w: number, input: PaymentInput): Promise<void> {
    const { d, cW, cD, customer } = input;
    const amount = centsToDecimal(input.amountCents);
    const find = customer.byName ? customer.last : customer.c;
    const [, rows] = await pipelined(conn, [
      conn.unsafe('begin'),
      conn.unsafe(customer.byName ? Q.PAYMENT_BY_NAME : Q.PAYMENT_BY_ID, [cW, cD, find, amount, w, d], {
        prepare: true,
      }),
      conn.unsafe('commit'),
    ]);
    // Nothing was written (every write depends on the customer): the transaction is an error.
    if (rows!.length === 0)
      throw new Error(`Payment found no customer ${describeCustomer(cW, cD, customer)}`);
  },

  async orderStatus(conn: Conn, w: number, input: OrderStatusInput): Promise<OrderStatusOutput> {
    const { d, customer } = input;
    const params = [w, d, customer.byName ? customer.last : customer.c];
    const [cq, oq, lq] = customer.byName ? Q.OS_BY_NAME : Q.OS_BY_ID;
    const [, customerRows, orderRows, lineRows] = await pipelined(conn, [
      conn.unsafe('begin isolation level repeatable read read only'),
      conn.unsafe(cq, params, { prepare: true }),
      conn.unsafe(oq, params, { prepare: true }),
      conn.unsafe(lq, params, { prepare: true }),
      conn.unsafe('commit'),
    ]);
    const output = orderStatusOutput(customerRows![0], orderRows![0], lineRows!);
    if (output === undefined)
      throw new Error(`Order-Status found no customer ${describeCustomer(w, d, customer)}`);
    return output;
  },

  async delivery(conn, w, carrier) {
    const [row] = await conn.unsafe<{ delivered: number }[]>(Q.DELIVERY, [w, carrier], { prepare: true });
    return row?.delivered ?? 0;
  },

  async stockLevel(conn, w, d, threshold) {
    await conn.unsafe(Q.STOCK_LEVEL, [w, d, threshold], { prepare: true });
  },
};

/**
 * Sends the queries together and waits for all of them. If any fails, the transaction is rolled
 * back and the first error is thrown (later ones are only "transaction is aborted" echoes).
 */
async function pipelined(conn: Conn, queries: Pending[]): Promise<(postgres.Row[] | undefined)[]> {
  const settled = await Promise.allSettled(queries);
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure !== undefined) {
    // Never write to a reserved connection whose server side is gone: postgres.js 3.4.9 then
    // throws from a setImmediate and takes the process down (porsager/postgres#1208).
    if (classifyPostgresError(failure.reason) !== 'connection')
      await conn.unsafe('rollback').catch(() => undefined);
    throw failure.reason;
  }
  return settled.map((s) => (s.status === 'fulfilled' ? (s.value as postgres.Row[]) : undefined));
}

/**
 * The five transactions as client-side SQL. Statements that do not depend on each other's results
 * are sent together (pipelined): New-Order costs two round trips, the others one each. A
 * transaction that is one statement (Payment, Delivery, Stock-Level) is sent without BEGIN and
 * COMMIT: PostgreSQL runs it as a transaction of its own.
 */
import type { PostgresConn } from '../../../dialects/postgres/connections.js';
import type { Row } from '../../../dialects/connections.js';
import type { WireSlot } from '../../../dialects/postgres/wire/session.js';
import type { TpccOperations } from '../bodies.js';
import { describeCustomer } from '../customer-by-name.js';
import {
  centsToDecimal,
  UNUSED_ITEM_ID,
  type NewOrderInput,
  type OrderStatusInput,
  type PaymentInput,
} from '../inputs.js';
import { orderStatusOutput, type OrderStatusOutput } from '../order-status-output.js';
import {
  BEGIN,
  BEGIN_READ_ONLY,
  COMMIT,
  postgresJsRunner,
  ROLLBACK,
  runnerPerConnection,
  wireRunner,
  type PgRunner,
} from './runner.js';
import * as Q from './sql.js';

const STOCK_SQL = Array.from({ length: 11 }, (_, d) => (d === 0 ? '' : Q.noStockUpdate(d)));

/**
 * The five transactions as client-side SQL over a driver's runner (runner.ts): the same SQL and
 * the same logic whichever driver carries it.
 */
export function clientSqlOperations<H>(runnerOf: (handle: H) => PgRunner): TpccOperations<H> {
  return {
    async newOrder(handle: H, w: number, input: NewOrderInput): Promise<void> {
      const conn = runnerOf(handle);
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
      const distinctItems: number[] = [];
      const itemSeen = new Set<number>();
      for (let k = 0; k < lines; k++) {
        const item = itemIds[k]!;
        if (!itemSeen.has(item)) {
          itemSeen.add(item);
          distinctItems.push(item);
        }
        const key = supplyWarehouses[k]! * 1_000_000 + item;
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
      const [, headerRows, itemRows, stockRows] = await conn.pipeline([
        BEGIN,
        { sql: Q.NO_HEADER, params: [w, d, c] },
        { sql: Q.NO_ITEMS, params: [distinctItems] },
        { sql: stockSql, params: [sw, si, sq, sr] },
      ]);
      const header = headerRows![0];
      const itemsMissing = itemRows!.length < distinctItems.length;
      if (header === undefined || itemsMissing !== input.rollback) {
        await conn.rollback();
        if (header === undefined)
          throw new Error(`New-Order found no district or customer for (${w}, ${d}, ${c})`);
        throw new Error(
          itemsMissing
            ? 'New-Order found item numbers missing from ITEM'
            : `New-Order found the unused item ${UNUSED_ITEM_ID} in ITEM`,
        );
      }
      const stockByKey = new Map<number, Row>();
      for (const row of stockRows!)
        stockByKey.set((row.s_w_id as number) * 1_000_000 + (row.s_i_id as number), row);
      for (const k of repeats) {
        const rows = await conn.query(stockSql, [
          [supplyWarehouses[k]!],
          [itemIds[k]!],
          [quantities[k]!],
          [supplyWarehouses[k] === w ? 0 : 1],
        ]);
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
      await conn.pipeline([
        { sql: Q.NO_INSERT_ORDER, params: [oId, d, w, c, lines, allLocal] },
        { sql: Q.NO_INSERT_NEW_ORDER, params: [oId, d, w] },
        {
          sql: Q.NO_INSERT_LINES,
          params: [oId, d, w, numbers, lineItems, lineSupply, lineQuantities, amounts, distInfo],
        },
        input.rollback ? ROLLBACK : COMMIT,
      ]);
    },
    async payment(handle: H, w: number, input: PaymentInput): Promise<void> {
      const { d, cW, cD, customer } = input;
      const amount = centsToDecimal(input.amountCents);
      const find = customer.byName ? customer.last : customer.c;
      // One statement is its own (implicit) transaction, atomic as Delivery's is: no BEGIN and
      // COMMIT to parse and answer on either side.
      const sql = customer.byName ? Q.PAYMENT_BY_NAME : Q.PAYMENT_BY_ID;
      const rows = await runnerOf(handle).query(sql, [cW, cD, find, amount, w, d]);
      // Nothing was written (every write depends on the customer): the transaction is an error.
      if (rows.length === 0)
        throw new Error(`Payment found no customer ${describeCustomer(cW, cD, customer)}`);
    },

    async orderStatus(handle: H, w: number, input: OrderStatusInput): Promise<OrderStatusOutput> {
      const { d, customer } = input;
      const params = [w, d, customer.byName ? customer.last : customer.c];
      const [cq, oq, lq] = customer.byName ? Q.OS_BY_NAME : Q.OS_BY_ID;
      const [, customerRows, orderRows, lineRows] = await runnerOf(handle).pipeline([
        BEGIN_READ_ONLY,
        { sql: cq, params },
        { sql: oq, params },
        { sql: lq, params },
        COMMIT,
      ]);
      const output = orderStatusOutput(customerRows![0], orderRows![0], lineRows!);
      if (output === undefined)
        throw new Error(`Order-Status found no customer ${describeCustomer(w, d, customer)}`);
      return output;
    },

    async delivery(handle, w, carrier) {
      const [row] = await runnerOf(handle).query(Q.DELIVERY, [w, carrier]);
      return Number(row?.delivered ?? 0);
    },

    async stockLevel(handle, w, d, threshold) {
      await runnerOf(handle).query(Q.STOCK_LEVEL, [w, d, threshold]);
    },
  };
}

/** Client-side SQL on postgres.js reserved connections: one per transaction set (its runners are the set's). */
export function clientSqlTransactions(): TpccOperations<PostgresConn> {
  return clientSqlOperations(runnerPerConnection(postgresJsRunner));
}

/** Client-side SQL on the wire path: one per transaction set (its runners are the set's). */
export function wireClientSqlTransactions(): TpccOperations<WireSlot> {
  return clientSqlOperations(runnerPerConnection(wireRunner));
}

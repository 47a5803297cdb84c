/**
 * The five transactions as client-side SQL. Statements that do not depend on each other's results
 * are sent together (pipelined): New-Order costs two round trips, the others one each.
 */
import type postgres from 'postgres';
import { classifyPostgresError } from '../../../dialects/postgres/errors.js';
import { centsToDecimal, type NewOrderInput, type OrderStatusInput, type PaymentInput } from '../inputs.js';
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
    if (header === undefined || itemRows!.length < new Set(itemIds).size) {
      await conn.unsafe('rollback');
      // The 1% that roll back on purpose are complete transactions; anything else is an error.
      if (header === undefined)
        throw new Error(`New-Order found no district or customer for (${w}, ${d}, ${c})`);
      if (input.rollback) return;
      throw new Error('New-Order found item numbers missing from ITEM');
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
    const amounts: string[] = new Array<string>(lines);
    const distInfo: string[] = new Array<string>(lines);
    const numbers: number[] = new Array<number>(lines);
    for (let k = 0; k < lines; k++) {
      numbers[k] = k + 1;
      amounts[k] = centsToDecimal(quantities[k]! * priceCents.get(itemIds[k]!)!);
      distInfo[k] =
        (stockByKey.get(supplyWarehouses[k]! * 1_000_000 + itemIds[k]!)?.dist_info as string) ?? '';
    }
    const oId = header.o_id as number;
    const allLocal = input.remoteLines === 0 ? 1 : 0;
    await pipelined(conn, [
      conn.unsafe(Q.NO_INSERT_ORDER, [oId, d, w, c, lines, allLocal], { prepare: true }),
      conn.unsafe(Q.NO_INSERT_NEW_ORDER, [oId, d, w], { prepare: true }),
      conn.unsafe(
        Q.NO_INSERT_LINES,
        [oId, d, w, numbers, itemIds, supplyWarehouses, quantities, amounts, distInfo],
        {
          prepare: true,
        },
      ),
      conn.unsafe('commit'),
    ]);
  },
  async payment(conn: Conn, w: number, input: PaymentInput): Promise<void> {
    const { d, cW, cD, customer } = input;
    const amount = centsToDecimal(input.amountCents);
    const find = customer.byName ? customer.last : customer.c;
    const params = [cW, cD, find, amount, w, d];
    await pipelined(conn, [
      conn.unsafe('begin'),
      conn.unsafe(Q.PAY_WAREHOUSE, [w, amount], { prepare: true }),
      conn.unsafe(Q.PAY_DISTRICT, [w, d, amount], { prepare: true }),
      conn.unsafe(customer.byName ? Q.PAY_CUSTOMER_BY_NAME : Q.PAY_CUSTOMER_BY_ID, params, { prepare: true }),
      conn.unsafe(customer.byName ? Q.PAY_HISTORY_BY_NAME : Q.PAY_HISTORY_BY_ID, params, { prepare: true }),
      conn.unsafe('commit'),
    ]);
  },
  async orderStatus(conn: Conn, w: number, input: OrderStatusInput): Promise<void> {
    const { d, customer } = input;
    const params = [w, d, customer.byName ? customer.last : customer.c];
    const [cq, oq, lq] = customer.byName ? Q.OS_BY_NAME : Q.OS_BY_ID;
    await pipelined(conn, [
      conn.unsafe('begin isolation level repeatable read read only'),
      conn.unsafe(cq, params, { prepare: true }),
      conn.unsafe(oq, params, { prepare: true }),
      conn.unsafe(lq, params, { prepare: true }),
      conn.unsafe('commit'),
    ]);
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

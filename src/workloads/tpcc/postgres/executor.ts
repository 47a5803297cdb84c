/**
 * Runs the five TPC-C transactions as client-side SQL on PostgreSQL, one reserved connection per
 * slot. Statements that do not depend on each other's results are sent together (pipelined), so a
 * New-Order costs two round trips, Payment, Order-Status, Delivery and Stock-Level one each.
 */
import postgres from 'postgres';
import { classifyPostgresError, isRetryable } from '../../../dialects/postgres/errors.js';
import { connect, describeConnectionError } from '../../../dialects/postgres/connect.js';
import { RetriesExhaustedError, type ErrorClass, type TerminalContext } from '../../../engine/types.js';
import type { ExecutorOptions, TpccExecutor } from '../tpcc-dialect.js';
import {
  centsToDecimal,
  deliveryInput,
  newOrderInput,
  orderStatusInput,
  paymentInput,
  stockLevelInput,
  type NewOrderInput,
  type PaymentInput,
  type OrderStatusInput,
  type RunInputContext,
} from '../inputs.js';
import * as Q from './sql.js';
import { DELIVERY, NEW_ORDER, ORDER_STATUS, PAYMENT, STOCK_LEVEL, type TpccCounters } from '../profile.js';

type Conn = postgres.ReservedSql;
type Pending = postgres.PendingQuery<postgres.Row[]>;

export const MAX_RETRIES = 5;

const STOCK_SQL = Array.from({ length: 11 }, (_, d) => (d === 0 ? '' : Q.noStockUpdate(d)));

export class PostgresTpccExecutor implements TpccExecutor {
  /** New-Orders committed over the executor's whole life (warm-up and drain included), to audit against the database. */
  committedNewOrders = 0;

  /** Slots whose connection died: nothing may be sent on them again (see `pipelined`). */
  private readonly lost: boolean[];

  private constructor(
    private readonly sql: postgres.Sql,
    private readonly conns: Conn[],
    private readonly ctx: RunInputContext,
    private readonly procedures: boolean,
  ) {
    this.lost = conns.map(() => false);
  }

  /** Opens and reserves `connections` connections. */
  static async open(
    url: string,
    connections: number,
    ctx: RunInputContext,
    options: ExecutorOptions,
  ): Promise<PostgresTpccExecutor> {
    const sql = connect(url, { max: connections });
    try {
      const conns: Conn[] = [];
      // A few at a time: thousands of simultaneous connection attempts overwhelm a small server.
      for (let i = 0; i < connections; i += 16) {
        const batch = Math.min(16, connections - i);
        conns.push(...(await Promise.all(Array.from({ length: batch }, () => sql.reserve()))));
      }
      return new PostgresTpccExecutor(sql, conns, ctx, options.procedures);
    } catch (err) {
      await sql.end({ timeout: 0 }).catch(() => undefined);
      throw describeConnectionError(err, url);
    }
  }

  get connections(): number {
    return this.conns.length;
  }

  classify(err: unknown): ErrorClass {
    return classifyPostgresError(err);
  }

  async close(): Promise<void> {
    for (const c of this.conns) c.release();
    await this.sql.end({ timeout: 5 });
  }

  async execute(slot: number, type: number, t: TerminalContext, counters: TpccCounters): Promise<number> {
    if (this.lost[slot])
      throw Object.assign(new Error('connection was lost earlier'), { code: 'CONNECTION_CLOSED' });
    try {
      return await this.executeOn(this.conns[slot]!, type, t, counters);
    } catch (err) {
      const last = err instanceof RetriesExhaustedError ? err.lastError : err;
      if (classifyPostgresError(last) === 'connection') this.lost[slot] = true;
      throw err;
    }
  }

  private async executeOn(
    conn: Conn,
    type: number,
    t: TerminalContext,
    counters: TpccCounters,
  ): Promise<number> {
    switch (type) {
      case NEW_ORDER: {
        const input = newOrderInput(t.rng, t.w, this.ctx);
        const retries = await this.retrying(() => this.newOrder(conn, t.w, input));
        counters.orderLines += input.itemIds.length;
        counters.remoteOrderLines += input.remoteLines;
        if (input.rollback) counters.newOrderRollbacks++;
        else this.committedNewOrders++;
        return retries;
      }
      case PAYMENT: {
        const input = paymentInput(t.rng, t.w, this.ctx);
        const retries = await this.retrying(() => this.payment(conn, t.w, input));
        if (input.cW !== t.w) counters.remotePayments++;
        if (input.customer.byName) counters.paymentsByName++;
        return retries;
      }
      case ORDER_STATUS: {
        const input = orderStatusInput(t.rng, this.ctx);
        const retries = await this.retrying(() => this.orderStatus(conn, t.w, input));
        if (input.customer.byName) counters.orderStatusByName++;
        return retries;
      }
      case DELIVERY: {
        const { carrier } = deliveryInput(t.rng);
        let delivered = 0;
        const retries = await this.retrying(async () => {
          const [row] = await conn.unsafe<{ delivered: number }[]>(Q.DELIVERY, [t.w, carrier], {
            prepare: true,
          });
          delivered = row?.delivered ?? 0;
        });
        counters.deliveredDistricts += delivered;
        counters.skippedDistricts += 10 - delivered;
        if (delivered < 10) counters.deliveriesWithSkips++;
        return retries;
      }
      case STOCK_LEVEL: {
        const { threshold } = stockLevelInput(t.rng);
        return this.retrying(() =>
          conn.unsafe(Q.STOCK_LEVEL, [t.w, t.d, threshold], { prepare: true }).then(() => undefined),
        );
      }
      default:
        throw new RangeError(`unknown transaction type ${type}`);
    }
  }

  private async retrying(fn: () => Promise<unknown>): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        await fn();
        return attempt;
      } catch (err) {
        const cls = classifyPostgresError(err);
        if (isRetryable(cls) && attempt < MAX_RETRIES) continue;
        throw attempt > 0 ? new RetriesExhaustedError(attempt, err, cls) : err;
      }
    }
  }

  private async newOrder(conn: Conn, w: number, input: NewOrderInput): Promise<void> {
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
  }

  private async payment(conn: Conn, w: number, input: PaymentInput): Promise<void> {
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
  }

  private async orderStatus(conn: Conn, w: number, input: OrderStatusInput): Promise<void> {
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
  }
}

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

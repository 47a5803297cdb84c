/**
 * Runs the five TPC-C transactions on MySQL/MariaDB, one connection per slot: as client-side SQL
 * in multi-statement batches (see sql.ts; New-Order two round trips, the others one), or as the
 * stored procedures of procedures.ts (one CALL each). The writers run at READ COMMITTED, whose
 * row locks keep every consistency condition; Order-Status reads one REPEATABLE READ snapshot.
 */
import type { Connection } from '../../../dialects/mysql/connect.js';
import { checkServer, openConnection } from '../../../dialects/mysql/connect.js';
import { classifyMysqlError, isRetryable } from '../../../dialects/mysql/errors.js';
import { parseMysqlUrl, type MysqlSettings } from '../../../dialects/mysql/url.js';
import { RetriesExhaustedError, type ErrorClass, type TerminalContext } from '../../../engine/types.js';
import type { ExecutorOptions, TpccExecutor } from '../tpcc-types.js';
import {
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
import { DELIVERY, NEW_ORDER, ORDER_STATUS, PAYMENT, STOCK_LEVEL, type TpccCounters } from '../profile.js';
import { LostSlots } from '../lost-slots.js';
import { tallyDelivery, tallyNewOrder, tallyOrderStatus, tallyPayment } from '../tally.js';
import * as P from './procedures.js';
import * as Q from './sql.js';

export const MAX_RETRIES = 5;

type Row = Record<string, unknown>;

/** The row sets of a batch's SELECTs (and a CALL's), in order; OK packets left out. */
function rowSets(result: unknown): Row[][] {
  return Array.isArray(result) ? (result.filter((r) => Array.isArray(r)) as Row[][]) : [];
}

/** Reads a DECIMAL (a string from mysql2) as whole cents. */
function toCents(v: unknown): number {
  return Math.round(Number(v) * 100);
}

export class MysqlTpccExecutor implements TpccExecutor {
  committedNewOrders = 0;

  private readonly lost: LostSlots;

  private constructor(
    private readonly conns: Connection[],
    private readonly ctx: RunInputContext,
    private readonly procedures: boolean,
  ) {
    this.lost = new LostSlots(conns.length, classifyMysqlError, 'PROTOCOL_CONNECTION_LOST');
  }

  static async open(
    url: string,
    connections: number,
    ctx: RunInputContext,
    options: ExecutorOptions,
  ): Promise<MysqlTpccExecutor> {
    const settings = parseMysqlUrl(url);
    const conns: Connection[] = [];
    try {
      // A few at a time: thousands of simultaneous connection attempts overwhelm a small server.
      for (let i = 0; i < connections; i += 16) {
        const batch = Math.min(16, connections - i);
        conns.push(...(await Promise.all(Array.from({ length: batch }, () => openSlot(settings)))));
      }
      const first = conns[0];
      if (first !== undefined) {
        await checkServer(async (sql) => (await first.query(sql))[0], settings);
        if (options.procedures) await P.installProcedures(first, settings);
      }
      return new MysqlTpccExecutor(conns, ctx, options.procedures);
    } catch (err) {
      await Promise.all(conns.map((c) => c.end().catch(() => undefined)));
      throw err;
    }
  }

  get connections(): number {
    return this.conns.length;
  }

  classify(err: unknown): ErrorClass {
    return classifyMysqlError(err);
  }

  async close(): Promise<void> {
    await Promise.all(this.conns.map((c) => c.end().catch(() => c.destroy())));
  }

  async execute(slot: number, type: number, t: TerminalContext, counters: TpccCounters): Promise<number> {
    return this.lost.run(slot, () => this.executeOn(this.conns[slot]!, type, t, counters));
  }

  private async executeOn(
    conn: Connection,
    type: number,
    t: TerminalContext,
    counters: TpccCounters,
  ): Promise<number> {
    switch (type) {
      case NEW_ORDER: {
        const input = newOrderInput(t.rng, t.w, this.ctx);
        const retries = await this.retrying(conn, () =>
          this.procedures ? this.newOrderCall(conn, t.w, input) : this.newOrder(conn, t.w, input),
        );
        tallyNewOrder(counters, input);
        if (!input.rollback) this.committedNewOrders++;
        return retries;
      }
      case PAYMENT: {
        const input = paymentInput(t.rng, t.w, this.ctx);
        const retries = await this.retrying(conn, () => this.payment(conn, t.w, input));
        tallyPayment(counters, t.w, input);
        return retries;
      }
      case ORDER_STATUS: {
        const input = orderStatusInput(t.rng, this.ctx);
        const retries = await this.retrying(conn, () => this.orderStatus(conn, t.w, input));
        tallyOrderStatus(counters, input);
        return retries;
      }
      case DELIVERY: {
        const { carrier } = deliveryInput(t.rng);
        let delivered = 0;
        const retries = await this.retrying(conn, async () => {
          delivered = await this.delivery(conn, t.w, carrier);
        });
        tallyDelivery(counters, delivered);
        return retries;
      }
      case STOCK_LEVEL: {
        const { threshold } = stockLevelInput(t.rng);
        return this.retrying(conn, async () => {
          const sql = this.procedures
            ? P.callStockLevel(t.w, t.d, threshold)
            : Q.stockLevel(t.w, t.d, threshold);
          await conn.query(sql);
        });
      }
      default:
        throw new RangeError(`unknown transaction type ${type}`);
    }
  }

  /**
   * Runs one attempt after another until one succeeds, a non-retryable error, or MAX_RETRIES.
   * After a failure the transaction is rolled back (a lock wait timeout leaves it open).
   */
  private async retrying(conn: Connection, fn: () => Promise<unknown>): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        await fn();
        return attempt;
      } catch (err) {
        const cls = classifyMysqlError(err);
        if (cls !== 'connection') await conn.query('rollback').catch(() => undefined);
        if (isRetryable(cls) && attempt < MAX_RETRIES) continue;
        throw attempt > 0 ? new RetriesExhaustedError(attempt, err, cls) : err;
      }
    }
  }

  private async newOrder(conn: Connection, w: number, input: NewOrderInput): Promise<void> {
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
    const stock = new Map<number, { row: Row; change: Q.StockChange }>();
    for (const row of stockRows ?? []) {
      const sw = row.s_w_id as number;
      const si = row.s_i_id as number;
      stock.set(sw * 1_000_000 + si, {
        row,
        change: { w: sw, i: si, quantity: row.s_quantity as number, ytd: 0, orders: 0, remote: 0 },
      });
    }
    // Apply the lines in order, as sequential processing would (a repeated item sees the previous line's quantity).
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
    if (priceCents.size < distinctItems.length) {
      // The 1% that roll back on purpose are complete transactions; anything else is an error.
      await conn.query(Q.newOrderRollback(w, d, changes));
      if (input.rollback) return;
      throw new Error('New-Order found item numbers missing from ITEM');
    }
    if (input.rollback) throw new Error('New-Order found the unused item number in ITEM');
    await conn.query(Q.newOrderWrite(w, d, c, input.remoteLines === 0, changes, orderLines));
  }

  private async newOrderCall(conn: Connection, w: number, input: NewOrderInput): Promise<void> {
    const [result] = await conn.query(P.callNewOrder(w, input));
    const row = rowSets(result)[0]?.[0];
    if (row === undefined) throw new Error('the New-Order procedure returned nothing');
    const rolledBack = Number(row.rolled_back) === 1;
    if (rolledBack !== input.rollback) {
      throw new Error(
        rolledBack
          ? 'New-Order found item numbers missing from ITEM'
          : 'New-Order found the unused item number in ITEM',
      );
    }
  }

  private async payment(conn: Connection, w: number, input: PaymentInput): Promise<void> {
    const customer = input.customer.byName ? { last: input.customer.last } : { c: input.customer.c };
    const values = { w, d: input.d, cW: input.cW, cD: input.cD, customer, amountCents: input.amountCents };
    const [result] = await conn.query(this.procedures ? P.callPayment(values) : Q.payment(values));
    if (rowSets(result)[0]?.[0] === undefined) throw new Error('Payment found no customer');
  }

  private async orderStatus(conn: Connection, w: number, input: OrderStatusInput): Promise<void> {
    const customer = input.customer.byName ? { last: input.customer.last } : { c: input.customer.c };
    const [result] = await conn.query(
      this.procedures ? P.callOrderStatus(w, input.d, customer) : Q.orderStatus(w, input.d, customer),
    );
    if (rowSets(result)[0]?.[0] === undefined) throw new Error('Order-Status found no customer');
  }

  /** Returns the number of districts delivered (the rest were skipped: no new order). */
  private async delivery(conn: Connection, w: number, carrier: number): Promise<number> {
    const [result] = await conn.query(this.procedures ? P.callDelivery(w, carrier) : Q.delivery(w, carrier));
    const row = rowSets(result)[0]?.[0];
    if (row === undefined) throw new Error('Delivery returned nothing');
    if (this.procedures) return Number(row.delivered);
    let delivered = 0;
    for (let d = 1; d <= 10; d++) if (row[`d${d}`] !== null && row[`d${d}`] !== undefined) delivered++;
    return delivered;
  }
}

/** One slot's connection: multi-statement batches, READ COMMITTED for the writers. */
async function openSlot(settings: MysqlSettings): Promise<Connection> {
  const conn = await openConnection(settings, { multipleStatements: true });
  await conn.query('set session transaction isolation level read committed');
  return conn;
}

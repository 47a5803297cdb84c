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
  type RunInputContext,
} from '../inputs.js';
import { DELIVERY, NEW_ORDER, ORDER_STATUS, PAYMENT, STOCK_LEVEL, type TpccCounters } from '../profile.js';
import { LostSlots } from '../lost-slots.js';
import { tallyDelivery, tallyNewOrder, tallyOrderStatus, tallyPayment } from '../tally.js';
import * as P from './procedures.js';
import { clientSqlTransactions, procedureTransactions, type MysqlTransactions } from './transactions.js';

export const MAX_RETRIES = 5;

export class MysqlTpccExecutor implements TpccExecutor {
  committedNewOrders = 0;

  private readonly lost: LostSlots;

  private constructor(
    private readonly conns: Connection[],
    private readonly ctx: RunInputContext,
    private readonly tx: MysqlTransactions,
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
      return new MysqlTpccExecutor(
        conns,
        ctx,
        options.procedures ? procedureTransactions : clientSqlTransactions,
      );
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
        const retries = await this.retrying(conn, () => this.tx.newOrder(conn, t.w, input));
        tallyNewOrder(counters, input);
        if (!input.rollback) this.committedNewOrders++;
        return retries;
      }
      case PAYMENT: {
        const input = paymentInput(t.rng, t.w, this.ctx);
        const retries = await this.retrying(conn, () => this.tx.payment(conn, t.w, input));
        tallyPayment(counters, t.w, input);
        return retries;
      }
      case ORDER_STATUS: {
        const input = orderStatusInput(t.rng, this.ctx);
        const retries = await this.retrying(conn, () => this.tx.orderStatus(conn, t.w, input));
        tallyOrderStatus(counters, input);
        return retries;
      }
      case DELIVERY: {
        const { carrier } = deliveryInput(t.rng);
        let delivered = 0;
        const retries = await this.retrying(conn, async () => {
          delivered = await this.tx.delivery(conn, t.w, carrier);
        });
        tallyDelivery(counters, delivered);
        return retries;
      }
      case STOCK_LEVEL: {
        const { threshold } = stockLevelInput(t.rng);
        return this.retrying(conn, () => this.tx.stockLevel(conn, t.w, t.d, threshold));
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
}

/** One slot's connection: multi-statement batches, READ COMMITTED for the writers. */
export async function openSlot(settings: MysqlSettings): Promise<Connection> {
  const conn = await openConnection(settings, { multipleStatements: true });
  await conn.query('set session transaction isolation level read committed');
  return conn;
}

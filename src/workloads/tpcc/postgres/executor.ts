/**
 * Runs the five TPC-C transactions on PostgreSQL, one reserved connection per slot, as client-side
 * SQL or as server-side functions (`--procedures`); it draws the inputs, retries conflicts and
 * keeps the audit counters, whichever way the transactions are carried out.
 */
import type postgres from 'postgres';
import { classifyPostgresError, isRetryable } from '../../../dialects/postgres/errors.js';
import { connect, describeConnectionError } from '../../../dialects/postgres/connect.js';
import { RetriesExhaustedError, type ErrorClass, type TerminalContext } from '../../../engine/types.js';
import { TxbenchError } from '../../../errors.js';
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
import { clientSqlTransactions } from './client-sql.js';
import { installProcedures, procedureTransactions } from './procedure-calls.js';
import type { Conn, PgTransactions } from './transactions.js';

export const MAX_RETRIES = 5;

export class PostgresTpccExecutor implements TpccExecutor {
  /** New-Orders committed over the executor's whole life (warm-up and drain included), to audit against the database. */
  committedNewOrders = 0;

  private readonly lost: LostSlots;

  private constructor(
    private readonly sql: postgres.Sql,
    private readonly conns: Conn[],
    private readonly ctx: RunInputContext,
    private readonly tx: PgTransactions,
  ) {
    this.lost = new LostSlots(conns.length, classifyPostgresError, 'CONNECTION_CLOSED');
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
      if (options.procedures) await installProcedures(conns[0]!);
      return new PostgresTpccExecutor(
        sql,
        conns,
        ctx,
        options.procedures ? procedureTransactions : clientSqlTransactions,
      );
    } catch (err) {
      await sql.end({ timeout: 0 }).catch(() => undefined);
      throw err instanceof TxbenchError ? err : describeConnectionError(err, url);
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
    return this.lost.run(slot, () => this.executeOn(this.conns[slot]!, type, t, counters));
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
        const retries = await this.retrying(() => this.tx.newOrder(conn, t.w, input));
        tallyNewOrder(counters, input);
        if (!input.rollback) this.committedNewOrders++;
        return retries;
      }
      case PAYMENT: {
        const input = paymentInput(t.rng, t.w, this.ctx);
        const retries = await this.retrying(() => this.tx.payment(conn, t.w, input));
        tallyPayment(counters, t.w, input);
        return retries;
      }
      case ORDER_STATUS: {
        const input = orderStatusInput(t.rng, this.ctx);
        const retries = await this.retrying(() => this.tx.orderStatus(conn, t.w, input));
        tallyOrderStatus(counters, input);
        return retries;
      }
      case DELIVERY: {
        const { carrier } = deliveryInput(t.rng);
        let delivered = 0;
        const retries = await this.retrying(async () => {
          delivered = await this.tx.delivery(conn, t.w, carrier);
        });
        tallyDelivery(counters, delivered);
        return retries;
      }
      case STOCK_LEVEL: {
        const { threshold } = stockLevelInput(t.rng);
        return this.retrying(() => this.tx.stockLevel(conn, t.w, t.d, threshold));
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
}

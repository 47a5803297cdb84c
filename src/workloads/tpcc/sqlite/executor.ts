/**
 * Runs the five TPC-C transactions on SQLite. better-sqlite3 is synchronous, so all slots share
 * one connection on the main thread and transactions run one after another, each in its own turn
 * of the event loop (timers and signals keep running between them). That is SQLite's own model:
 * one writer at a time. A terminal waiting for its turn is on the clock, because the engine
 * measures response time from the moment a transaction was due.
 *
 * Why not a worker thread per connection: writers would still queue for the one write lock, and
 * a transaction costs 100-1300 µs of SQLite CPU against ~30 µs of engine work, so the main thread
 * has little to overlap; only Order-Status and Stock-Level (about a tenth of the database time in
 * the standard mix) could run beside the writer, and message passing would eat into that on two
 * cores. A lock held by another process blocks here for up to busy_timeout.
 */
import { closeSqlite, openSqlite, type OpenedSqlite } from '../../../dialects/sqlite/connect.js';
import { classifySqliteError, isRetryable } from '../../../dialects/sqlite/errors.js';
import { RetriesExhaustedError, type ErrorClass, type TerminalContext } from '../../../engine/types.js';
import { UsageError } from '../../../errors.js';
import {
  deliveryInput,
  newOrderInput,
  orderStatusInput,
  paymentInput,
  stockLevelInput,
  type RunInputContext,
} from '../inputs.js';
import { DELIVERY, NEW_ORDER, ORDER_STATUS, PAYMENT, STOCK_LEVEL, type TpccCounters } from '../profile.js';
import { tallyDelivery, tallyNewOrder, tallyOrderStatus, tallyPayment } from '../tally.js';
import type { ExecutorOptions, TpccExecutor } from '../tpcc-types.js';
import { SqliteTransactions } from './transactions.js';

export const MAX_RETRIES = 5;

interface Job {
  type: number;
  t: TerminalContext;
  counters: TpccCounters;
  resolve: (retries: number) => void;
  reject: (err: unknown) => void;
}

export class SqliteTpccExecutor implements TpccExecutor {
  /** New-Orders committed over the executor's whole life (warm-up and drain included). */
  committedNewOrders = 0;

  /** The job waiting in each slot, and the callback (made once per slot) that runs it. */
  private readonly jobs: (Job | undefined)[];
  private readonly runners: (() => void)[];

  private constructor(
    private readonly opened: OpenedSqlite,
    private readonly tx: SqliteTransactions,
    private readonly ctx: RunInputContext,
    readonly connections: number,
  ) {
    this.jobs = new Array<Job | undefined>(connections).fill(undefined);
    this.runners = Array.from({ length: connections }, (_, slot) => () => this.runSlot(slot));
  }

  /** `connections` slots over one connection (see the file comment). */
  static async open(
    url: string,
    connections: number,
    ctx: RunInputContext,
    options: ExecutorOptions,
  ): Promise<SqliteTpccExecutor> {
    if (options.procedures) throw new UsageError('--procedures is not available for sqlite; run without it');
    const opened = openSqlite(url, { create: false });
    try {
      return new SqliteTpccExecutor(opened, new SqliteTransactions(opened.db), ctx, Math.max(1, connections));
    } catch (err) {
      closeSqlite(opened);
      throw err;
    }
  }

  classify(err: unknown): ErrorClass {
    return classifySqliteError(err);
  }

  async close(): Promise<void> {
    closeSqlite(this.opened);
  }

  execute(slot: number, type: number, t: TerminalContext, counters: TpccCounters): Promise<number> {
    return new Promise((resolve, reject) => {
      this.jobs[slot] = { type, t, counters, resolve, reject };
      // Never run synchronously inside the engine's callback: the engine starts the next
      // transaction from the completion of the last, which would starve timers for the whole run.
      setImmediate(this.runners[slot]!);
    });
  }

  private runSlot(slot: number): void {
    const job = this.jobs[slot]!;
    this.jobs[slot] = undefined;
    try {
      job.resolve(this.run(job.type, job.t, job.counters));
    } catch (err) {
      job.reject(err);
    }
  }

  private run(type: number, t: TerminalContext, counters: TpccCounters): number {
    const tx = this.tx;
    switch (type) {
      case NEW_ORDER: {
        const input = newOrderInput(t.rng, t.w, this.ctx);
        let committed = false;
        const retries = this.retrying(() => (committed = tx.newOrder(t.w, input)));
        tallyNewOrder(counters, input);
        if (committed) this.committedNewOrders++;
        return retries;
      }
      case PAYMENT: {
        const input = paymentInput(t.rng, t.w, this.ctx);
        const retries = this.retrying(() => tx.payment(t.w, input));
        tallyPayment(counters, t.w, input);
        return retries;
      }
      case ORDER_STATUS: {
        const input = orderStatusInput(t.rng, this.ctx);
        const retries = this.retrying(() => tx.orderStatus(t.w, input.d, input.customer));
        tallyOrderStatus(counters, input);
        return retries;
      }
      case DELIVERY: {
        const { carrier } = deliveryInput(t.rng);
        let delivered = 0;
        const retries = this.retrying(() => (delivered = tx.delivery(t.w, carrier)));
        tallyDelivery(counters, delivered);
        return retries;
      }
      case STOCK_LEVEL: {
        const { threshold } = stockLevelInput(t.rng);
        return this.retrying(() => tx.stockLevel(t.w, t.d, threshold));
      }
      default:
        throw new RangeError(`unknown transaction type ${type}`);
    }
  }

  /** Busy waits already happened inside SQLite (busy_timeout); a retry starts the transaction afresh. */
  private retrying(fn: () => unknown): number {
    for (let attempt = 0; ; attempt++) {
      try {
        fn();
        return attempt;
      } catch (err) {
        const cls = classifySqliteError(err);
        if (isRetryable(cls) && attempt < MAX_RETRIES) continue;
        throw attempt > 0 ? new RetriesExhaustedError(attempt, err, cls) : err;
      }
    }
  }
}

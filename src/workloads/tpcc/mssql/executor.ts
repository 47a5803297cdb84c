/**
 * Runs the five TPC-C transactions on SQL Server, each as one round trip: a parameterized T-SQL
 * batch (client-side mode) or a stored-procedure call (procedure mode), over a driver pool of
 * one connection per slot. A lost connection is dropped by the pool and replaced on next use.
 */
import { describeConnectionError, parseMssqlUrl, type MssqlTarget } from '../../../dialects/mssql/config.js';
import { mssqlDb, openPool } from '../../../dialects/mssql/dialect.js';
import type { MssqlModule, MssqlPool, MssqlResult, MssqlTypeSpec } from '../../../dialects/mssql/driver.js';
import { classifyMssqlError, isRetryable } from '../../../dialects/mssql/errors.js';
import { TxbenchError } from '../../../errors.js';
import { RetriesExhaustedError, type ErrorClass, type TerminalContext } from '../../../engine/types.js';
import type { ExecutorOptions, TpccExecutor } from '../tpcc-types.js';
import {
  deliveryInput,
  newOrderInput,
  orderStatusInput,
  paymentInput,
  stockLevelInput,
  UNUSED_ITEM_ID,
  type RunInputContext,
} from '../inputs.js';
import { DELIVERY, NEW_ORDER, ORDER_STATUS, PAYMENT, STOCK_LEVEL, type TpccCounters } from '../profile.js';
import { tallyDelivery, tallyNewOrder, tallyOrderStatus, tallyPayment } from '../tally.js';
import { installProcedures } from './procedures.js';
import * as Q from './sql.js';

export const MAX_RETRIES = 5;

/** Outcome of a New-Order batch, from its first result set. */
export function newOrderOutcome(result: MssqlResult, expectRollback: boolean): 'committed' | 'rolledBack' {
  const row = result.recordsets[0]?.[0];
  if (row === undefined) throw new Error('New-Order returned no outcome');
  const rolledBack = Number(row.rolled_back) === 1;
  if (rolledBack && !expectRollback) throw new Error('New-Order found item numbers missing from ITEM');
  if (!rolledBack && expectRollback) {
    throw new Error(`New-Order committed although item ${UNUSED_ITEM_ID} should not exist`);
  }
  return rolledBack ? 'rolledBack' : 'committed';
}

/** Districts delivered: one row per delivered (D_ID, O_ID); the others were skipped. */
export function deliveredDistricts(result: MssqlResult): number {
  return result.recordsets[0]?.length ?? 0;
}

export class MssqlTpccExecutor implements TpccExecutor {
  committedNewOrders = 0;
  private readonly types: Readonly<Record<Q.ParamType, MssqlTypeSpec>>;

  private constructor(
    sql: MssqlModule,
    private readonly pool: MssqlPool,
    readonly connections: number,
    private readonly ctx: RunInputContext,
    private readonly procedures: boolean,
  ) {
    this.types = {
      int: sql.Int(),
      'varchar(16)': sql.VarChar(16),
      'numeric(6,2)': sql.Numeric(6, 2),
    };
  }

  /** Opens all `connections` up front (a few at a time), and installs the procedures when asked to. */
  static async open(
    url: string,
    connections: number,
    ctx: RunInputContext,
    options: ExecutorOptions,
  ): Promise<MssqlTpccExecutor> {
    // One connection per engine slot: --connections, not the URL's poolSize, sizes this pool.
    const target: MssqlTarget = { ...parseMssqlUrl(url), poolSize: undefined };
    const { sql, pool } = await openPool(target, connections);
    try {
      const held: unknown[] = [];
      try {
        for (let i = 0; i < connections; i += 16) {
          const batch = Math.min(16, connections - i);
          held.push(...(await Promise.all(Array.from({ length: batch }, () => pool.acquire(pool)))));
        }
      } finally {
        for (const c of held) pool.release(c);
      }
      if (options.procedures) await installProcedures(mssqlDb(sql, pool), target.database);
      return MssqlTpccExecutor.onPool(sql, pool, connections, ctx, options.procedures);
    } catch (err) {
      await pool.close().catch(() => undefined);
      throw err instanceof TxbenchError ? err : describeConnectionError(err, target);
    }
  }

  /** An executor over a pool that is already open (and, in procedure mode, has the procedures). */
  static onPool(
    sql: MssqlModule,
    pool: MssqlPool,
    connections: number,
    ctx: RunInputContext,
    procedures: boolean,
  ): MssqlTpccExecutor {
    return new MssqlTpccExecutor(sql, pool, connections, ctx, procedures);
  }

  classify(err: unknown): ErrorClass {
    return classifyMssqlError(err);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  async execute(_slot: number, type: number, t: TerminalContext, counters: TpccCounters): Promise<number> {
    switch (type) {
      case NEW_ORDER: {
        const input = newOrderInput(t.rng, t.w, this.ctx);
        const params = Q.newOrderParams(t.w, input);
        const retries = await this.retrying(async () =>
          newOrderOutcome(await this.run(Q.NEW_ORDER, params), input.rollback),
        );
        tallyNewOrder(counters, input);
        if (!input.rollback) this.committedNewOrders++;
        return retries;
      }
      case PAYMENT: {
        const input = paymentInput(t.rng, t.w, this.ctx);
        const params = Q.paymentParams(t.w, input);
        const retries = await this.retrying(() => this.run(Q.PAYMENT, params));
        tallyPayment(counters, t.w, input);
        return retries;
      }
      case ORDER_STATUS: {
        const input = orderStatusInput(t.rng, this.ctx);
        const params = Q.orderStatusParams(t.w, input);
        const retries = await this.retrying(() => this.run(Q.ORDER_STATUS, params));
        tallyOrderStatus(counters, input);
        return retries;
      }
      case DELIVERY: {
        const { carrier } = deliveryInput(t.rng);
        const params = Q.deliveryParams(t.w, carrier);
        let delivered = 0;
        const retries = await this.retrying(async () => {
          delivered = deliveredDistricts(await this.run(Q.DELIVERY, params));
        });
        tallyDelivery(counters, delivered);
        return retries;
      }
      case STOCK_LEVEL: {
        const { threshold } = stockLevelInput(t.rng);
        const params = Q.stockLevelParams(t.w, t.d, threshold);
        return this.retrying(() => this.run(Q.STOCK_LEVEL, params));
      }
      default:
        throw new RangeError(`unknown transaction type ${type}`);
    }
  }

  /** One round trip: the batch through sp_executesql, or the procedure by RPC, same parameters. */
  private run(tx: Q.TransactionSql, params: readonly Q.ParamValue[]): Promise<MssqlResult> {
    const request = this.pool.request();
    for (const p of params) request.input(p.name, this.types[p.type], p.value);
    return this.procedures ? request.execute(tx.procedure) : request.query(tx.body);
  }

  private async retrying(fn: () => Promise<unknown>): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        await fn();
        return attempt;
      } catch (err) {
        const cls = classifyMssqlError(err);
        if (isRetryable(cls) && attempt < MAX_RETRIES) continue;
        throw attempt > 0 ? new RetriesExhaustedError(attempt, err, cls) : err;
      }
    }
  }
}

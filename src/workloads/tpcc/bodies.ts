/**
 * The five TPC-C transactions as bodies for the generic executor (workloads/executor.ts), the same
 * on every database: draw the terminal's inputs, carry the transaction out with the database's
 * own operations (client-side SQL or procedures), and keep the audit tallies. Retries, dispatch
 * and lost connections are the executor's.
 */
import type { Connections } from '../../dialects/connections.js';
import { dispatch, type TransactionContext, type TransactionSet } from '../workload.js';
import {
  deliveryInput,
  newOrderInput,
  orderStatusInput,
  paymentInput,
  stockLevelInput,
  type NewOrderInput,
  type OrderStatusInput,
  type PaymentInput,
  type RunInputContext,
} from './inputs.js';
import type { TpccCounters } from './profile.js';
import { tallyDelivery, tallyNewOrder, tallyOrderStatus, tallyPayment } from './tally.js';

/** A terminal's home (clause 2.2.1.1): its warehouse, and its district for Stock-Level. */
export interface TpccTerminal {
  readonly w: number;
  readonly d: number;
}

/** Terminal i's home: warehouses round-robin, then districts, so homes spread evenly. */
export function tpccHome(i: number, warehouses: number): TpccTerminal {
  return { w: (i % warehouses) + 1, d: (Math.floor(i / warehouses) % 10) + 1 };
}

/** What the transactions of one run share: the inputs' context and the whole-run New-Order count. */
export interface TpccRunState {
  readonly ctx: RunInputContext;
  /** New-Orders committed over the run's whole life (warm-up and drain included), to audit against the database. */
  committedNewOrders: number;
  /**
   * New-Orders whose connection was lost before their outcome came back: each may or may not have
   * committed on the server (a COMMIT whose answer died with the connection), so the audit allows
   * the database up to this many orders more than `committedNewOrders`. Undefined: none so far.
   */
  newOrdersInDoubt?: number | undefined;
}

/**
 * How one database carries the transactions out on a driver handle. Each completes the
 * transaction (New-Order's intended rollback included) or throws. A synchronous driver may return
 * plain values; New-Order may say whether it committed (otherwise: unless the input rolls back).
 */
export interface TpccOperations<H> {
  newOrder(conn: H, w: number, input: NewOrderInput): Promise<unknown> | boolean | void;
  payment(conn: H, w: number, input: PaymentInput): Promise<unknown> | unknown;
  orderStatus(conn: H, w: number, input: OrderStatusInput): Promise<unknown> | unknown;
  /** The number of districts delivered (the rest were skipped). */
  delivery(conn: H, w: number, carrier: number): Promise<number> | number;
  stockLevel(conn: H, w: number, d: number, threshold: number): Promise<unknown> | unknown;
}

type Tx<H> = TransactionContext<TpccTerminal, TpccCounters, H>;

export function tpccTransactions<H>(
  connections: Connections<H>,
  ops: TpccOperations<H>,
  run: TpccRunState,
): TransactionSet<TpccTerminal, TpccCounters, H> {
  const { ctx } = run;
  const bodies = [
    async (tx: Tx<H>): Promise<void> => {
      const w = tx.state.w;
      const input = newOrderInput(tx.rng, w, ctx);
      let committed: unknown;
      try {
        committed = await ops.newOrder(tx.conn, w, input);
      } catch (err) {
        if (!input.rollback && connections.classify(err) === 'connection')
          run.newOrdersInDoubt = (run.newOrdersInDoubt ?? 0) + 1;
        throw err;
      }
      tallyNewOrder(tx.counters, input);
      if (typeof committed === 'boolean' ? committed : !input.rollback) run.committedNewOrders++;
    },
    async (tx: Tx<H>): Promise<void> => {
      const w = tx.state.w;
      const input = paymentInput(tx.rng, w, ctx);
      await ops.payment(tx.conn, w, input);
      tallyPayment(tx.counters, w, input);
    },
    async (tx: Tx<H>): Promise<void> => {
      const input = orderStatusInput(tx.rng, ctx);
      await ops.orderStatus(tx.conn, tx.state.w, input);
      tallyOrderStatus(tx.counters, input);
    },
    async (tx: Tx<H>): Promise<void> => {
      const { carrier } = deliveryInput(tx.rng);
      tallyDelivery(tx.counters, await ops.delivery(tx.conn, tx.state.w, carrier));
    },
    async (tx: Tx<H>): Promise<void> => {
      const { threshold } = stockLevelInput(tx.rng);
      await ops.stockLevel(tx.conn, tx.state.w, tx.state.d, threshold);
    },
  ];
  return { connections, run: dispatch(bodies) };
}

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

/**
 * The same operations on callbacks (the wire path's procedure calls): each calls `done` once, with
 * undefined when the transaction is complete or its error, and the value the promise form returns.
 */
export interface TpccCallbackOperations<H> {
  newOrder(conn: H, w: number, input: NewOrderInput, done: (err: unknown, committed?: boolean) => void): void;
  payment(conn: H, w: number, input: PaymentInput, done: (err: unknown) => void): void;
  orderStatus(
    conn: H,
    w: number,
    input: OrderStatusInput,
    done: (err: unknown, output?: unknown) => void,
  ): void;
  delivery(conn: H, w: number, carrier: number, done: (err: unknown, delivered: number) => void): void;
  stockLevel(conn: H, w: number, d: number, threshold: number, done: (err: unknown) => void): void;
}

type Tx<H> = TransactionContext<TpccTerminal, TpccCounters, H>;

/** A New-Order that failed: one whose connection died may have committed, which the audit allows for. */
function newOrderFailed(
  connections: Connections,
  run: TpccRunState,
  input: NewOrderInput,
  err: unknown,
): void {
  if (!input.rollback && connections.classify(err) === 'connection')
    run.newOrdersInDoubt = (run.newOrdersInDoubt ?? 0) + 1;
}

function newOrderDone<H>(tx: Tx<H>, run: TpccRunState, input: NewOrderInput, committed: unknown): void {
  tallyNewOrder(tx.counters, input);
  if (typeof committed === 'boolean' ? committed : !input.rollback) run.committedNewOrders++;
}

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
        newOrderFailed(connections, run, input, err);
        throw err;
      }
      newOrderDone(tx, run, input, committed);
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

/**
 * The bodies on callbacks (the executor's fast path, no promise per transaction), and the same
 * bodies on promises for retries: the two draw the same inputs and keep the same tallies.
 */
export function tpccCallbackTransactions<H>(
  connections: Connections<H>,
  ops: TpccCallbackOperations<H>,
  run: TpccRunState,
): TransactionSet<TpccTerminal, TpccCounters, H> {
  const { ctx } = run;
  type Done = (err: unknown) => void;
  const bodies = [
    (tx: Tx<H>, done: Done): void => {
      const w = tx.state.w;
      const input = newOrderInput(tx.rng, w, ctx);
      ops.newOrder(tx.conn, w, input, (err, committed) => {
        if (err !== undefined) {
          newOrderFailed(connections, run, input, err);
          done(err);
          return;
        }
        newOrderDone(tx, run, input, committed);
        done(undefined);
      });
    },
    (tx: Tx<H>, done: Done): void => {
      const w = tx.state.w;
      const input = paymentInput(tx.rng, w, ctx);
      ops.payment(tx.conn, w, input, (err) => {
        if (err === undefined) tallyPayment(tx.counters, w, input);
        done(err);
      });
    },
    (tx: Tx<H>, done: Done): void => {
      const input = orderStatusInput(tx.rng, ctx);
      ops.orderStatus(tx.conn, tx.state.w, input, (err) => {
        if (err === undefined) tallyOrderStatus(tx.counters, input);
        done(err);
      });
    },
    (tx: Tx<H>, done: Done): void => {
      const { carrier } = deliveryInput(tx.rng);
      ops.delivery(tx.conn, tx.state.w, carrier, (err, delivered) => {
        if (err === undefined) tallyDelivery(tx.counters, delivered);
        done(err);
      });
    },
    (tx: Tx<H>, done: Done): void => {
      const { threshold } = stockLevelInput(tx.rng);
      ops.stockLevel(tx.conn, tx.state.w, tx.state.d, threshold, done);
    },
  ];
  const set = tpccTransactions(connections, promisedOperations(ops), run);
  return {
    ...set,
    runWithCallback(type, tx, done) {
      const body = bodies[type];
      if (body === undefined) throw new RangeError(`unknown transaction type ${type}`);
      body(tx, done);
    },
  };
}

/** The callback operations as promises (the bodies' retries; tests). */
export function promisedOperations<H>(ops: TpccCallbackOperations<H>): TpccOperations<H> {
  const settle =
    <T>(resolve: (v: T) => void, reject: (e: unknown) => void) =>
    (err: unknown, value: T): void =>
      err === undefined ? resolve(value) : reject(err);
  return {
    newOrder: (conn, w, input) =>
      new Promise<boolean | undefined>((res, rej) => ops.newOrder(conn, w, input, settle(res, rej))),
    payment: (conn, w, input) =>
      new Promise<void>((res, rej) => ops.payment(conn, w, input, settle(res, rej))),
    orderStatus: (conn, w, input) =>
      new Promise<unknown>((res, rej) => ops.orderStatus(conn, w, input, settle(res, rej))),
    delivery: (conn, w, carrier) =>
      new Promise<number>((res, rej) => ops.delivery(conn, w, carrier, settle(res, rej))),
    stockLevel: (conn, w, d, threshold) =>
      new Promise<void>((res, rej) => ops.stockLevel(conn, w, d, threshold, settle(res, rej))),
  };
}

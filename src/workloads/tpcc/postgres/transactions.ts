import type postgres from 'postgres';
import type { NewOrderInput, OrderStatusInput, PaymentInput } from '../inputs.js';
import type { OrderStatusOutput } from '../order-status-output.js';

export type Conn = postgres.ReservedSql;

/**
 * One way of carrying out the five transactions on a connection: client-side SQL or server-side
 * functions. Each resolves when the transaction is complete (New-Order's intended rollback
 * included) and throws the database's error, or its own when a customer is not there, otherwise; retrying and counting are the executor's.
 */
export interface PgTransactions {
  newOrder(conn: Conn, w: number, input: NewOrderInput): Promise<void>;
  payment(conn: Conn, w: number, input: PaymentInput): Promise<void>;
  /** Throws when the customer is not there. */
  orderStatus(conn: Conn, w: number, input: OrderStatusInput): Promise<OrderStatusOutput>;
  /** Returns the number of districts delivered (the rest were skipped). */
  delivery(conn: Conn, w: number, carrier: number): Promise<number>;
  stockLevel(conn: Conn, w: number, d: number, threshold: number): Promise<void>;
}

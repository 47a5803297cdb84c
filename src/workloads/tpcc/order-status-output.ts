/**
 * What an Order-Status shows its terminal (clause 2.6.3.4), the same from every dialect and mode:
 * the customer, their newest order and its lines. Money stays exact decimal text.
 */

export interface OrderStatusOutput {
  customer: { c: number; balance: string; first: string; middle: string; last: string };
  /** Absent for a customer without orders. */
  order?: { id: number; entryDate: Date; carrier: number | null };
  lines: OrderStatusLine[];
}

export interface OrderStatusLine {
  item: number;
  supplyW: number;
  quantity: number;
  amount: string;
  /** Null until the order is delivered. */
  deliveryDate: Date | null;
}

type Row = Record<string, unknown>;

const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));

/**
 * From the rows a driver returns: the customer's row (C_ID, C_BALANCE, C_FIRST, C_MIDDLE, C_LAST),
 * the order's (O_ID, O_ENTRY_D, O_CARRIER_ID) if any, and its lines' (OL_I_ID, OL_SUPPLY_W_ID,
 * OL_QUANTITY, OL_AMOUNT, OL_DELIVERY_D). Undefined when there is no customer.
 */
export function orderStatusOutput(
  customer: Row | undefined,
  order: Row | undefined,
  lines: readonly Row[],
): OrderStatusOutput | undefined {
  if (customer === undefined) return undefined;
  return {
    customer: {
      c: Number(customer.c_id),
      balance: String(customer.c_balance),
      first: String(customer.c_first),
      middle: String(customer.c_middle),
      last: String(customer.c_last),
    },
    ...(order === undefined || order.o_id === null || order.o_id === undefined
      ? {}
      : {
          order: {
            id: Number(order.o_id),
            entryDate: date(order.o_entry_d),
            carrier: order.o_carrier_id === null ? null : Number(order.o_carrier_id),
          },
        }),
    lines: lines
      .filter((l) => l.ol_i_id !== null && l.ol_i_id !== undefined)
      .map((l) => ({
        item: Number(l.ol_i_id),
        supplyW: Number(l.ol_supply_w_id),
        quantity: Number(l.ol_quantity),
        amount: String(l.ol_amount),
        deliveryDate: l.ol_delivery_d === null ? null : date(l.ol_delivery_d),
      })),
  };
}

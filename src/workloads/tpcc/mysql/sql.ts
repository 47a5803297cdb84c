/**
 * The client-side SQL of the five transactions for MySQL/MariaDB, as multi-statement batches.
 *
 * mysql2 has no pipelining, so each round trip carries a whole batch of statements (the connection
 * runs with multipleStatements): a New-Order is two round trips (read and lock its stock; then
 * claim the order number and write), the other four one each. Values are written into the text by the literal
 * helpers below, which accept only integers, cents and plain strings; nothing typed by a user ever
 * reaches them. Session variables (`@c`, `@o1`…) carry a value from one statement to the next
 * inside a batch and are assigned afresh by every batch that reads them.
 *
 * Locking (READ COMMITTED for the writers, as the executor sets it):
 * - New-Order: its stock rows in key order by one SELECT … FOR UPDATE (an ordered range scan of the
 *   primary key), so two New-Orders cannot deadlock on stock, and the new quantities are computed
 *   from the locked values; then, in the second round trip, the district row by its UPDATE (order
 *   numbers), so the hottest row is held only while the server runs that last batch.
 * - Payment: customer, district, warehouse, always in that order (the warehouse row, the hottest,
 *   is held for the shortest time), each by an UPDATE that adds to the current value.
 * - Delivery: per district the oldest NEW-ORDER row by SELECT … ORDER BY … LIMIT 1 FOR UPDATE; a
 *   concurrent Delivery holding it makes this one wait, and once that one commits InnoDB passes
 *   over the deleted row to the next, so no order is delivered twice and none is skipped.
 * - Order-Status reads one snapshot (REPEATABLE READ, read only); Stock-Level reads committed data.
 */
import { customerByNameQuery } from '../customer-by-name.js';
import { centsToDecimal } from '../inputs.js';

/** An integer literal; anything else is a programming error. */
export function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new TypeError(`not an integer: ${n}`);
  return String(n);
}

/** An exact decimal literal from cents (a DECIMAL in MySQL, never a double). */
export function cents(c: number): string {
  if (!Number.isSafeInteger(c)) throw new TypeError(`not a whole number of cents: ${c}`);
  return c < 0 ? `-${centsToDecimal(-c)}` : centsToDecimal(c);
}

/** A string literal. Only printable ASCII without backslashes is accepted, so it reads the same under any sql_mode. */
export function str(s: string): string {
  if (/[^\x20-\x7e]|\\/.test(s))
    throw new TypeError('refusing a string with backslashes or non-printable characters');
  return `'${s.replace(/'/g, "''")}'`;
}

/** The S_DIST_xx column of a district. */
export function distColumn(d: number): string {
  if (!Number.isInteger(d) || d < 1 || d > 10) throw new RangeError(`no district ${d}`);
  return `s_dist_${String(d).padStart(2, '0')}`;
}

/** One stock row a New-Order touches, with the totals of the order's lines for it. */
export interface StockChange {
  w: number;
  i: number;
  /** S_QUANTITY after every line for this row, computed from the locked value. */
  quantity: number;
  /** Sum of the lines' quantities (S_YTD), number of lines (S_ORDER_CNT), remote lines (S_REMOTE_CNT). */
  ytd: number;
  orders: number;
  remote: number;
}

/** `(s_w_id, s_i_id) in (...)` for distinct stock keys, in key order (so range scans lock in key order). */
function stockKeys(keys: readonly { w: number; i: number }[]): string {
  const sorted = [...keys].sort((a, b) => a.w - b.w || a.i - b.i);
  return `(s_w_id, s_i_id) in (${sorted.map((k) => `(${int(k.w)}, ${int(k.i)})`).join(', ')})`;
}

/**
 * Round trip 1 of New-Order: taxes and customer, the items, and the stock rows locked in key order.
 * The district row is claimed only in round trip 2, so the hot row is never held across the
 * client's think time between the two round trips (D_TAX never changes, so it is read here).
 */
export function newOrderRead(
  w: number,
  d: number,
  c: number,
  items: readonly number[],
  stock: readonly { w: number; i: number }[],
): string {
  return [
    'start transaction',
    `select d.d_tax, w.w_tax, c.c_discount, c.c_last, c.c_credit
      from district d, warehouse w, customer c
      where d.d_w_id = ${int(w)} and d.d_id = ${int(d)} and w.w_id = ${int(w)}
        and c.c_w_id = ${int(w)} and c.c_d_id = ${int(d)} and c.c_id = ${int(c)}`,
    `select i_id, i_price, i_name, i_data from item where i_id in (${items.map(int).join(', ')})`,
    `select s_w_id, s_i_id, s_quantity, s_data, ${distColumn(d)} as dist_info from stock
      where ${stockKeys(stock)} order by s_w_id, s_i_id for update`,
  ].join(';\n');
}

/** Takes the district's next order number into @o and increments it (the row stays locked until the end). */
function claimOrderNumber(w: number, d: number): string[] {
  return [
    `update district set d_next_o_id = d_next_o_id + 1 where d_w_id = ${int(w)} and d_id = ${int(d)}`,
    `set @o = (select d_next_o_id - 1 from district where d_w_id = ${int(w)} and d_id = ${int(d)})`,
  ];
}

/** The STOCK update for all of an order's rows in one statement. */
export function stockUpdate(changes: readonly StockChange[]): string {
  const when = (value: (s: StockChange) => string): string =>
    changes.map((s) => `when s_w_id = ${int(s.w)} and s_i_id = ${int(s.i)} then ${value(s)}`).join(' ');
  return `update stock set
      s_quantity = case ${when((s) => int(s.quantity))} end,
      s_ytd = s_ytd + case ${when((s) => int(s.ytd))} end,
      s_order_cnt = s_order_cnt + case ${when((s) => int(s.orders))} end,
      s_remote_cnt = s_remote_cnt + case ${when((s) => int(s.remote))} end
    where ${stockKeys(changes)}`;
}

export interface OrderLineValues {
  number: number;
  i: number;
  supplyW: number;
  quantity: number;
  amountCents: number;
  distInfo: string;
}

/** Round trip 2 of New-Order: what to write and how to end. */
export interface NewOrderWrite {
  w: number;
  d: number;
  c: number;
  /** O_OL_CNT: the lines entered, the unused item's included. */
  olCnt: number;
  allLocal: boolean;
  changes: readonly StockChange[];
  /** The valid lines (all of them, unless one has the unused item). */
  lines: readonly OrderLineValues[];
  /** Rollback for the 1% with an unused item: all of the work is done, then undone (clause 2.4.2.3). */
  end: 'commit' | 'rollback';
}

/**
 * Round trip 2 of New-Order: stock, the order number, ORDER, NEW-ORDER and the lines, then the end
 * (a rollback undoes the D_NEXT_O_ID increment too).
 */
export function newOrderWrite(o: NewOrderWrite): string {
  const key = `@o, ${int(o.d)}, ${int(o.w)}`;
  return [
    ...(o.changes.length > 0 ? [stockUpdate(o.changes)] : []),
    ...claimOrderNumber(o.w, o.d),
    `insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
      values (${key}, ${int(o.c)}, now(6), null, ${int(o.olCnt)}, ${o.allLocal ? 1 : 0})`,
    `insert into new_order (no_o_id, no_d_id, no_w_id) values (${key})`,
    ...(o.lines.length > 0
      ? [
          `insert into order_line
        (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
      values ${o.lines
        .map(
          (l) =>
            `(${key}, ${int(l.number)}, ${int(l.i)}, ${int(l.supplyW)}, null, ${int(l.quantity)}, ${cents(l.amountCents)}, ${str(l.distInfo)})`,
        )
        .join(', ')}`,
        ]
      : []),
    'select @o as o_id',
    o.end,
  ].join(';\n');
}

/**
 * Sets @c to the customer at position ceil(n/2) of the n with this last name (clause 2.5.2.2, by
 * the rule of customer-by-name.ts), NULL when nobody has it.
 */
export function customerByName(w: number, d: number, last: string): string {
  return `set @c = (${customerByNameQuery(`c_w_id = ${int(w)} and c_d_id = ${int(d)} and c_last = ${str(last)}`, 'div')})`;
}

/** Sets @c to the customer number if that customer exists, NULL otherwise. */
function customerById(w: number, d: number, c: number): string {
  return `set @c = (select c_id from customer where c_w_id = ${int(w)} and c_d_id = ${int(d)} and c_id = ${int(c)})`;
}

export interface PaymentValues {
  w: number;
  d: number;
  cW: number;
  cD: number;
  /** A customer number, or a last name to choose by. */
  customer: { c: number } | { last: string };
  amountCents: number;
}

/**
 * Payment in one round trip: customer (by number or name), district, warehouse, history, outputs.
 * A customer that is not there leaves @c NULL, and every write depends on @c, so the batch then
 * commits nothing and returns no customer row, which the executor reports as an error.
 */
export function payment(p: PaymentValues): string {
  const { w, d, cW, cD } = p;
  const a = cents(p.amountCents);
  const customerKey = `c_w_id = ${int(cW)} and c_d_id = ${int(cD)} and c_id = @c`;
  return [
    'start transaction',
    'last' in p.customer ? customerByName(cW, cD, p.customer.last) : customerById(cW, cD, p.customer.c),
    // The bad-credit record goes in front of C_DATA, which keeps its first 500 characters.
    `update customer set c_balance = c_balance - ${a}, c_ytd_payment = c_ytd_payment + ${a},
        c_payment_cnt = c_payment_cnt + 1,
        c_data = case when c_credit = 'BC' then left(concat(c_id, ' ', c_d_id, ' ', c_w_id, ' ', ${int(d)}, ' ',
          ${int(w)}, ' ', ${a}, ' | ', c_data), 500) else c_data end
      where ${customerKey}`,
    `select c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
        c_credit, c_credit_lim, c_discount, c_balance, case when c_credit = 'BC' then left(c_data, 200) end as c_data
      from customer where ${customerKey}`,
    `update district set d_ytd = d_ytd + ${a} where d_w_id = ${int(w)} and d_id = ${int(d)} and @c is not null`,
    `update warehouse set w_ytd = w_ytd + ${a} where w_id = ${int(w)} and @c is not null`,
    `insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
      select @c, ${int(cD)}, ${int(cW)}, ${int(d)}, ${int(w)}, now(6), ${a}, left(concat(w_name, '    ', d_name), 24)
      from warehouse, district where w_id = ${int(w)} and d_w_id = ${int(w)} and d_id = ${int(d)} and @c is not null`,
    `select w_name, w_street_1, w_street_2, w_city, w_state, w_zip,
        d_name, d_street_1, d_street_2, d_city, d_state, d_zip
      from warehouse, district where w_id = ${int(w)} and d_w_id = ${int(w)} and d_id = ${int(d)}`,
    'commit',
  ].join(';\n');
}

/** Order-Status in one round trip, on one snapshot: the customer, its newest order and that order's lines. */
export function orderStatus(w: number, d: number, customer: { c: number } | { last: string }): string {
  const c = 'c' in customer ? int(customer.c) : '@c';
  const orderKey = `${int(w)} and o_d_id = ${int(d)}`;
  return [
    'set transaction isolation level repeatable read',
    'start transaction with consistent snapshot, read only',
    ...('last' in customer ? [customerByName(w, d, customer.last)] : []),
    `select c_id, c_balance, c_first, c_middle, c_last from customer
      where c_w_id = ${int(w)} and c_d_id = ${int(d)} and c_id = ${c}`,
    `set @o = (select o_id from orders where o_w_id = ${orderKey} and o_c_id = ${c} order by o_id desc limit 1)`,
    `select o_id, o_entry_d, o_carrier_id from orders where o_w_id = ${orderKey} and o_id = @o`,
    `select ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d from order_line
      where ol_w_id = ${int(w)} and ol_d_id = ${int(d)} and ol_o_id = @o`,
    'commit',
  ].join(';\n');
}

/**
 * Delivery of all ten districts in one round trip and one database transaction. Per district:
 * lock the oldest NEW-ORDER row (none: @oN is NULL and every statement after it matches nothing),
 * delete it, set the carrier, date the lines, credit the customer. The last statement returns the
 * order delivered in each district (NULL where it was skipped).
 */
export function delivery(w: number, carrier: number): string {
  const statements = ['start transaction'];
  for (let d = 1; d <= 10; d++) {
    const o = `@o${d}`;
    const where = (p: string): string => `${p}_w_id = ${int(w)} and ${p}_d_id = ${d}`;
    statements.push(
      `set ${o} = (select no_o_id from new_order where ${where('no')} order by no_o_id limit 1 for update)`,
      `delete from new_order where ${where('no')} and no_o_id = ${o}`,
      `update orders set o_carrier_id = ${int(carrier)} where ${where('o')} and o_id = ${o}`,
      `update order_line set ol_delivery_d = now(6) where ${where('ol')} and ol_o_id = ${o}`,
      `update customer set c_balance = c_balance +
          (select sum(ol_amount) from order_line where ${where('ol')} and ol_o_id = ${o}),
          c_delivery_cnt = c_delivery_cnt + 1
        where ${where('c')} and c_id = (select o_c_id from orders where ${where('o')} and o_id = ${o})`,
    );
  }
  statements.push(
    `select ${Array.from({ length: 10 }, (_, i) => `@o${i + 1} as d${i + 1}`).join(', ')}`,
    'commit',
  );
  return statements.join(';\n');
}

/** Stock-Level: distinct items of the district's last 20 orders whose home stock is below the threshold. */
export function stockLevel(w: number, d: number, threshold: number): string {
  return [
    'start transaction read only',
    `select count(distinct s.s_i_id) as low_stock
      from district dd
      join order_line ol on ol.ol_w_id = dd.d_w_id and ol.ol_d_id = dd.d_id
        and ol.ol_o_id >= dd.d_next_o_id - 20 and ol.ol_o_id < dd.d_next_o_id
      join stock s on s.s_w_id = dd.d_w_id and s.s_i_id = ol.ol_i_id
      where dd.d_w_id = ${int(w)} and dd.d_id = ${int(d)} and s.s_quantity < ${int(threshold)}`,
    'commit',
  ].join(';\n');
}

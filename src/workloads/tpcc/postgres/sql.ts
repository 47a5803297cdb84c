/**
 * The client-side SQL of the five transactions for PostgreSQL. Few round trips by design: set-based
 * statements for New-Order's items and stock, and statements that do not depend on each other's
 * results are pipelined by the executor. Row locks taken by UPDATE (and FOR UPDATE in a fixed key
 * order) keep every consistency condition at READ COMMITTED.
 */
import { customerByNameQuery } from '../customer-by-name.js';

/** Claims the order number and reads the taxes and the customer (one statement). */
export const NO_HEADER = `with d as (
    update district set d_next_o_id = d_next_o_id + 1 where d_w_id = $1 and d_id = $2
    returning d_next_o_id - 1 as o_id, d_tax)
  select d.o_id, d.d_tax::text, w.w_tax::text, c.c_discount::text, c.c_last, c.c_credit
  from d cross join warehouse w cross join customer c
  where w.w_id = $1 and c.c_w_id = $1 and c.c_d_id = $2 and c.c_id = $3`;

export const NO_ITEMS = `select i_id, i_price::text, i_name, i_data from item where i_id = any($1::int[])`;

/**
 * Locks the order's distinct stock rows in key order (so concurrent New-Orders cannot deadlock on
 * stock) and applies the quantity rule of clause 2.4.2.2 to each, returning what the lines need.
 * `$1..$4`: supply warehouses, items, quantities, remote flags; one entry per distinct stock row.
 */
export function noStockUpdate(d: number): string {
  const dist = `s_dist_${String(d).padStart(2, '0')}`;
  return `with v as (select * from unnest($1::int[], $2::int[], $3::int[], $4::int[]) as v(w, i, qty, remote)),
  l as materialized (
    select s_w_id, s_i_id from stock where (s_w_id, s_i_id) in (select w, i from v)
    order by s_w_id, s_i_id for update)
  update stock s set
    s_quantity = case when s.s_quantity >= v.qty + 10 then s.s_quantity - v.qty else s.s_quantity - v.qty + 91 end,
    s_ytd = s.s_ytd + v.qty, s_order_cnt = s.s_order_cnt + 1, s_remote_cnt = s.s_remote_cnt + v.remote
  from v join l on l.s_w_id = v.w and l.s_i_id = v.i
  where s.s_w_id = v.w and s.s_i_id = v.i
  returning s.s_w_id, s.s_i_id, s.s_quantity, s.s_data, s.${dist} as dist_info`;
}

export const NO_INSERT_ORDER = `insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
  values ($1, $2, $3, $4, now(), null, $5, $6)`;

export const NO_INSERT_NEW_ORDER = `insert into new_order (no_o_id, no_d_id, no_w_id) values ($1, $2, $3)`;

export const NO_INSERT_LINES = `insert into order_line
    (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
  select $1, $2, $3, n, i, sw, null, q, a, di
  from unnest($4::int[], $5::int[], $6::int[], $7::int[], $8::numeric[], $9::text[]) as l(n, i, sw, q, a, di)`;

/** The customer by last name (clause 2.5.2.2), as a scalar subquery: NULL when nobody has the name. */
const CUSTOMER_BY_NAME = `(${customerByNameQuery('c_w_id = $1 and c_d_id = $2 and c_last = $3', '/')})`;

/**
 * Payment in one statement. The customer comes first (by number or name); the warehouse, the
 * district and the HISTORY row only if it was found, so a customer that is not there (a by-name
 * miss) writes nothing and returns no row, and the client fails the transaction. For bad credit
 * the record of clause 2.5.2.2 goes in front of C_DATA, which keeps its first 500 characters.
 * Locks customer, warehouse, district in that order (no other transaction locks two of them).
 * `$1..$3` find the customer, `$4` amount, `$5`/`$6` the paying warehouse and district.
 */
function payment(customer: string): string {
  return `with c as (
    update customer set c_balance = c_balance - $4::numeric, c_ytd_payment = c_ytd_payment + $4::numeric,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = case when c_credit = 'BC' then left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || $6::int || ' ' ||
        $5::int || ' ' || $4::numeric || ' | ' || c_data, 500) else c_data end
    where c_w_id = $1 and c_d_id = $2 and c_id = ${customer}
    returning c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
      c_credit, c_credit_lim::text, c_discount::text, c_balance::text,
      case when c_credit = 'BC' then left(c_data, 200) end as c_data),
  w as (
    update warehouse set w_ytd = w_ytd + $4::numeric where w_id = $5::int and exists (select from c)
    returning w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
  d as (
    update district set d_ytd = d_ytd + $4::numeric where d_w_id = $5::int and d_id = $6::int and exists (select from c)
    returning d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
  h as (
    insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    select c.c_id, $2::int, $1::int, $6::int, $5::int, now(), $4::numeric, left(w.w_name || '    ' || d.d_name, 24)
    from c, w, d)
  select * from c, w, d`;
}
export const PAYMENT_BY_ID = payment('$3::int');
export const PAYMENT_BY_NAME = payment(CUSTOMER_BY_NAME);

/** Order-Status: `$1..$3` find the customer. */
function osCustomer(customer: string): string {
  return `select c_id, c_balance::text, c_first, c_middle, c_last from customer
  where c_w_id = $1 and c_d_id = $2 and c_id = ${customer}`;
}
function osLastOrder(customer: string): string {
  return `select o_id, o_entry_d, o_carrier_id from orders
  where o_w_id = $1 and o_d_id = $2 and o_c_id = ${customer} order by o_id desc limit 1`;
}
function osLines(customer: string): string {
  return `select ol_i_id, ol_supply_w_id, ol_quantity, ol_amount::text, ol_delivery_d from order_line
  where ol_w_id = $1 and ol_d_id = $2 and ol_o_id = (
    select o_id from orders where o_w_id = $1 and o_d_id = $2 and o_c_id = ${customer} order by o_id desc limit 1)`;
}
export const OS_BY_ID = [osCustomer('$3::int'), osLastOrder('$3::int'), osLines('$3::int')] as const;
export const OS_BY_NAME = [
  osCustomer(CUSTOMER_BY_NAME),
  osLastOrder(CUSTOMER_BY_NAME),
  osLines(CUSTOMER_BY_NAME),
] as const;

/**
 * Delivery of all ten districts in one statement (one database transaction): the oldest NEW-ORDER
 * row per district (a concurrent Delivery holding it makes this one wait, then take the next: the
 * limit sits above the row lock, so a deleted row is passed over, never reported as empty), the
 * order's carrier, its lines' delivery date, and the customer's balance and delivery count.
 * Returns the number of districts delivered; the rest were skipped.
 */
export const DELIVERY = `with picked as materialized (
    select n.no_d_id, n.no_o_id from generate_series(1, 10) as g(d)
    cross join lateral (
      select no_d_id, no_o_id from new_order where no_w_id = $1 and no_d_id = g.d
      order by no_o_id limit 1 for update) n),
  del as (
    delete from new_order n using picked p
    where n.no_w_id = $1 and n.no_d_id = p.no_d_id and n.no_o_id = p.no_o_id
    returning n.no_d_id, n.no_o_id),
  o as (
    update orders set o_carrier_id = $2 from del
    where o_w_id = $1 and o_d_id = del.no_d_id and o_id = del.no_o_id
    returning o_d_id, o_id, o_c_id),
  ol as (
    update order_line set ol_delivery_d = now() from del
    where ol_w_id = $1 and ol_d_id = del.no_d_id and ol_o_id = del.no_o_id
    returning ol_d_id, ol_o_id, ol_amount),
  c as (
    update customer set c_balance = c_balance + t.amount, c_delivery_cnt = c_delivery_cnt + 1
    from (select o.o_d_id, o.o_c_id, sum(ol.ol_amount) as amount
          from o join ol on ol.ol_d_id = o.o_d_id and ol.ol_o_id = o.o_id group by 1, 2) t
    where c_w_id = $1 and c_d_id = t.o_d_id and c_id = t.o_c_id
    returning c_d_id)
  select (select count(*) from c)::int as delivered`;

/** Distinct items of the district's last 20 orders whose home stock is below the threshold. */
export const STOCK_LEVEL = `select count(distinct s.s_i_id)::int as low_stock
  from district d
  join order_line ol on ol.ol_w_id = d.d_w_id and ol.ol_d_id = d.d_id
    and ol.ol_o_id >= d.d_next_o_id - 20 and ol.ol_o_id < d.d_next_o_id
  join stock s on s.s_w_id = d.d_w_id and s.s_i_id = ol.ol_i_id
  where d.d_w_id = $1 and d.d_id = $2 and s.s_quantity < $3`;

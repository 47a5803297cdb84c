/**
 * The client-side SQL of the five transactions for SQLite. Statements run in-process (no round
 * trips), so each is a plain keyed read or write executed per row: a New-Order line is one ITEM
 * read and one STOCK update-returning. Money arrives as numbers of whole cents divided by 100 and
 * every money update rounds to cents, so a stored amount is always the double nearest to its exact
 * decimal value (SQLite keeps NUMERIC values that are not integers as REAL). Timestamps are bound
 * as text in the loader's format (`YYYY-MM-DD HH:MM:SS.SSS`, local time): SQLite's own
 * `strftime(…, 'localtime')` costs a system call per row.
 */
import { BY_NAME_ORDER } from '../customer-by-name.js';

export const NO_DISTRICT = `update district set d_next_o_id = d_next_o_id + 1 where d_w_id = ? and d_id = ?
  returning d_next_o_id - 1 as o_id, d_tax`;
export const NO_WAREHOUSE = `select w_tax from warehouse where w_id = ?`;
export const NO_CUSTOMER = `select c_discount, c_last, c_credit from customer where c_w_id = ? and c_d_id = ? and c_id = ?`;
export const NO_ITEM = `select i_price, i_name, i_data from item where i_id = ?`;

/**
 * The quantity rule of clause 2.4.2.2 and the counters, returning what the line needs.
 * `?`: quantity (three times), remote flag, warehouse, item.
 */
export function noStock(d: number): string {
  const dist = `s_dist_${String(d).padStart(2, '0')}`;
  return `update stock set
    s_quantity = case when s_quantity >= ? + 10 then s_quantity - ? else s_quantity - ? + 91 end,
    s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ?
  where s_w_id = ? and s_i_id = ?
  returning s_quantity, s_data, ${dist} as dist_info`;
}

/** `?`: order, district, warehouse, customer, entry date, line count, all-local flag. */
export const NO_INSERT_ORDER = `insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
  values (?, ?, ?, ?, ?, null, ?, ?)`;
export const NO_INSERT_NEW_ORDER = `insert into new_order (no_o_id, no_d_id, no_w_id) values (?, ?, ?)`;
export const NO_INSERT_LINE = `insert into order_line
    (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
  values (?, ?, ?, ?, ?, ?, null, ?, ?, ?)`;

/** `?`: amount, warehouse. */
export const PAY_WAREHOUSE = `update warehouse set w_ytd = round(w_ytd + ?, 2) where w_id = ?
  returning w_name, w_street_1, w_street_2, w_city, w_state, w_zip`;
/** `?`: amount, warehouse, district. */
export const PAY_DISTRICT = `update district set d_ytd = round(d_ytd + ?, 2) where d_w_id = ? and d_id = ?
  returning d_name, d_street_1, d_street_2, d_city, d_state, d_zip`;

/** Customers of one last name in the by-name order; the executor takes the rule's position (clause 2.5.2.2). */
export const CUSTOMERS_BY_NAME = `select c_id from customer where c_w_id = ? and c_d_id = ? and c_last = ?
  order by ${BY_NAME_ORDER}`;

/**
 * Books the payment on the customer. For bad credit the record of clause 2.5.2.2 (built by the
 * executor) goes in front of C_DATA, which keeps its first 500 characters.
 * `?`: amount (twice), record, warehouse, district, customer.
 */
export const PAY_CUSTOMER = `update customer set c_balance = round(c_balance - ?, 2), c_ytd_payment = round(c_ytd_payment + ?, 2),
    c_payment_cnt = c_payment_cnt + 1,
    c_data = case when c_credit = 'BC' then substr(? || c_data, 1, 500) else c_data end
  where c_w_id = ? and c_d_id = ? and c_id = ?
  returning c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
    c_credit, c_credit_lim, c_discount, c_balance, case when c_credit = 'BC' then substr(c_data, 1, 200) end as c_data`;

/** `?`: customer, its district and warehouse, the paying district and warehouse, date, amount, H_DATA. */
export const PAY_HISTORY = `insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  values (?, ?, ?, ?, ?, ?, ?, ?)`;

/** `?`: warehouse, district, customer. */
export const OS_CUSTOMER = `select c_balance, c_first, c_middle, c_last from customer where c_w_id = ? and c_d_id = ? and c_id = ?`;
export const OS_LAST_ORDER = `select o_id, o_entry_d, o_carrier_id from orders
  where o_w_id = ? and o_d_id = ? and o_c_id = ? order by o_id desc limit 1`;
/** `?`: warehouse, district, order. */
export const OS_LINES = `select ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d from order_line
  where ol_w_id = ? and ol_d_id = ? and ol_o_id = ?`;

/** `?`: warehouse, district. */
export const DL_OLDEST = `select no_o_id from new_order where no_w_id = ? and no_d_id = ? order by no_o_id limit 1`;
/** `?`: warehouse, district, order. */
export const DL_DELETE = `delete from new_order where no_w_id = ? and no_d_id = ? and no_o_id = ?`;
/** `?`: carrier, warehouse, district, order. */
export const DL_ORDER = `update orders set o_carrier_id = ? where o_w_id = ? and o_d_id = ? and o_id = ? returning o_c_id`;
/** `?`: delivery date, warehouse, district, order. */
export const DL_LINES = `update order_line set ol_delivery_d = ? where ol_w_id = ? and ol_d_id = ? and ol_o_id = ?
  returning ol_amount`;
/** `?`: amount, warehouse, district, customer. */
export const DL_CUSTOMER = `update customer set c_balance = round(c_balance + ?, 2), c_delivery_cnt = c_delivery_cnt + 1
  where c_w_id = ? and c_d_id = ? and c_id = ?`;

/** Distinct items of the district's last 20 orders whose home stock is below the threshold. */
export const STOCK_LEVEL = `select count(distinct s.s_i_id) as low_stock
  from district d
  join order_line ol on ol.ol_w_id = d.d_w_id and ol.ol_d_id = d.d_id
    and ol.ol_o_id >= d.d_next_o_id - 20 and ol.ol_o_id < d.d_next_o_id
  join stock s on s.s_w_id = d.d_w_id and s.s_i_id = ol.ol_i_id
  where d.d_w_id = ? and d.d_id = ? and s.s_quantity < ?`;

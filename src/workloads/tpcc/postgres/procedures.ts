import { customerByNameQuery } from '../customer-by-name.js';

/**
 * The five transactions as PL/pgSQL functions for `--procedures`: one round trip per transaction,
 * with exactly the effects of the client-side SQL. New-Order locks its stock rows in key order
 * before the per-line work (no deadlocks between New-Orders) and processes the lines in order, so
 * a repeated item sees the quantity the previous line left. Its unused item number raises TXB01,
 * which rolls the whole transaction back as the spec requires; Payment's missing customer raises
 * TXB02. Order-Status returns what the terminal shows, one row per order line.
 */

/** Bumped whenever a definition changes, so an older installation is replaced. */
export const PROCEDURES_VERSION = 'txbench-procedures-2';

export const ITEM_NOT_FOUND = 'TXB01';
export const CUSTOMER_NOT_FOUND = 'TXB02';

const distColumn = `case p_d when 1 then s_dist_01 when 2 then s_dist_02 when 3 then s_dist_03
  when 4 then s_dist_04 when 5 then s_dist_05 when 6 then s_dist_06 when 7 then s_dist_07
  when 8 then s_dist_08 when 9 then s_dist_09 else s_dist_10 end`;

const NEW_ORDER = `create or replace function tpcc_new_order(
    p_w int, p_d int, p_c int, p_items int[], p_supply int[], p_qty int[])
  returns int language plpgsql as $$
declare
  v_o_id int; v_d_tax numeric; v_w_tax numeric; v_discount numeric; v_last varchar; v_credit char(2);
  v_cnt int := array_length(p_items, 1); v_all_local int := 1;
  v_price numeric; v_name varchar; v_i_data varchar; v_s_qty int; v_s_data varchar; v_dist char(24);
  v_total numeric := 0; v_brand char(1);
begin
  for i in 1..v_cnt loop
    if p_supply[i] <> p_w then v_all_local := 0; end if;
  end loop;
  update district set d_next_o_id = d_next_o_id + 1 where d_w_id = p_w and d_id = p_d
    returning d_next_o_id - 1, d_tax into v_o_id, v_d_tax;
  select w_tax into v_w_tax from warehouse where w_id = p_w;
  select c_discount, c_last, c_credit into v_discount, v_last, v_credit
    from customer where c_w_id = p_w and c_d_id = p_d and c_id = p_c;
  insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    values (v_o_id, p_d, p_w, p_c, now(), null, v_cnt, v_all_local);
  insert into new_order (no_o_id, no_d_id, no_w_id) values (v_o_id, p_d, p_w);
  perform 1 from stock where (s_w_id, s_i_id) in (select * from unnest(p_supply, p_items))
    order by s_w_id, s_i_id for update;
  for i in 1..v_cnt loop
    select i_price, i_name, i_data into v_price, v_name, v_i_data from item where i_id = p_items[i];
    if not found then
      raise exception 'item number is not valid' using errcode = '${ITEM_NOT_FOUND}';
    end if;
    update stock set
        s_quantity = case when s_quantity >= p_qty[i] + 10 then s_quantity - p_qty[i] else s_quantity - p_qty[i] + 91 end,
        s_ytd = s_ytd + p_qty[i], s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + case when p_supply[i] <> p_w then 1 else 0 end
      where s_w_id = p_supply[i] and s_i_id = p_items[i]
      returning s_quantity, s_data, ${distColumn} into v_s_qty, v_s_data, v_dist;
    v_brand := case when v_i_data like '%ORIGINAL%' and v_s_data like '%ORIGINAL%' then 'B' else 'G' end;
    insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
        ol_quantity, ol_amount, ol_dist_info)
      values (v_o_id, p_d, p_w, i, p_items[i], p_supply[i], null, p_qty[i], p_qty[i] * v_price, v_dist);
    v_total := v_total + p_qty[i] * v_price;
  end loop;
  -- total-amount, as the terminal would display it
  v_total := v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax);
  return v_o_id;
end $$`;

const PAYMENT = `create or replace function tpcc_payment(
    p_w int, p_d int, p_c_w int, p_c_d int, p_c int, p_last varchar, p_amount numeric)
  returns int language plpgsql as $$
declare
  v_c int := p_c; v_w_name varchar; v_d_name varchar; v_credit char(2);
begin
  update warehouse set w_ytd = w_ytd + p_amount where w_id = p_w returning w_name into v_w_name;
  update district set d_ytd = d_ytd + p_amount where d_w_id = p_w and d_id = p_d returning d_name into v_d_name;
  if p_c = 0 then
    v_c := (${customerByNameQuery('c_w_id = p_c_w and c_d_id = p_c_d and c_last = p_last', '/')});
  end if;
  update customer set c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = case when c_credit = 'BC' then left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || p_d || ' ' ||
        p_w || ' ' || p_amount || ' | ' || c_data, 500) else c_data end
    where c_w_id = p_c_w and c_d_id = p_c_d and c_id = v_c
    returning c_credit into v_credit;
  if not found then
    raise exception 'Payment found no customer' using errcode = '${CUSTOMER_NOT_FOUND}';
  end if;
  insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    values (v_c, p_c_d, p_c_w, p_d, p_w, now(), p_amount, left(v_w_name || '    ' || v_d_name, 24));
  return v_c;
end $$`;

/**
 * What the terminal shows: the customer, the newest order and its lines, one row per line (one row
 * with NULL order and line columns for a customer without orders; none when there is no such
 * customer). One statement, so one snapshot, as the spec's level-3 read requires.
 */
const ORDER_STATUS = `create or replace function tpcc_order_status(p_w int, p_d int, p_c int, p_last varchar)
  returns table (c_id int, c_balance text, c_first varchar, c_middle char(2), c_last varchar,
    o_id int, o_entry_d timestamp, o_carrier_id int,
    ol_i_id int, ol_supply_w_id int, ol_quantity int, ol_amount text, ol_delivery_d timestamp)
  language sql stable as $$
  with c as (
    select c_id, c_balance, c_first, c_middle, c_last from customer
    where c_w_id = p_w and c_d_id = p_d and c_id = case when p_c = 0
      then (${customerByNameQuery('c_w_id = p_w and c_d_id = p_d and c_last = p_last', '/')}) else p_c end),
  o as (
    select o.o_id, o.o_entry_d, o.o_carrier_id from orders o join c on o.o_c_id = c.c_id
    where o.o_w_id = p_w and o.o_d_id = p_d order by o.o_id desc limit 1)
  select c.c_id, c.c_balance::text, c.c_first, c.c_middle, c.c_last, o.o_id, o.o_entry_d, o.o_carrier_id,
    ol.ol_i_id, ol.ol_supply_w_id, ol.ol_quantity, ol.ol_amount::text, ol.ol_delivery_d
  from c left join o on true
    left join order_line ol on ol.ol_w_id = p_w and ol.ol_d_id = p_d and ol.ol_o_id = o.o_id
  order by ol.ol_number
$$`;

/** Returns the number of districts delivered; the others had no new order and were skipped. */
const DELIVERY = `create or replace function tpcc_delivery(p_w int, p_carrier int)
  returns int language plpgsql as $$
declare
  v_o_id int; v_c int; v_amount numeric; v_delivered int := 0;
begin
  for d in 1..10 loop
    select no_o_id into v_o_id from new_order where no_w_id = p_w and no_d_id = d
      order by no_o_id limit 1 for update;
    if not found then continue; end if;
    delete from new_order where no_w_id = p_w and no_d_id = d and no_o_id = v_o_id;
    update orders set o_carrier_id = p_carrier where o_w_id = p_w and o_d_id = d and o_id = v_o_id
      returning o_c_id into v_c;
    with l as (update order_line set ol_delivery_d = now()
        where ol_w_id = p_w and ol_d_id = d and ol_o_id = v_o_id returning ol_amount)
      select sum(ol_amount) into v_amount from l;
    update customer set c_balance = c_balance + coalesce(v_amount, 0), c_delivery_cnt = c_delivery_cnt + 1
      where c_w_id = p_w and c_d_id = d and c_id = v_c;
    v_delivered := v_delivered + 1;
  end loop;
  return v_delivered;
end $$`;

const STOCK_LEVEL = `create or replace function tpcc_stock_level(p_w int, p_d int, p_threshold int)
  returns int language plpgsql stable as $$
declare
  v_next int; v_low int;
begin
  select d_next_o_id into v_next from district where d_w_id = p_w and d_id = p_d;
  select count(distinct s.s_i_id) into v_low from order_line ol
    join stock s on s.s_w_id = p_w and s.s_i_id = ol.ol_i_id
    where ol.ol_w_id = p_w and ol.ol_d_id = p_d and ol.ol_o_id >= v_next - 20 and ol.ol_o_id < v_next
      and s.s_quantity < p_threshold;
  return v_low;
end $$`;

export const PROCEDURE_DEFINITIONS: readonly { name: string; signature: string; sql: string }[] = [
  { name: 'tpcc_new_order', signature: 'int, int, int, int[], int[], int[]', sql: NEW_ORDER },
  { name: 'tpcc_payment', signature: 'int, int, int, int, int, varchar, numeric', sql: PAYMENT },
  { name: 'tpcc_order_status', signature: 'int, int, int, varchar', sql: ORDER_STATUS },
  { name: 'tpcc_delivery', signature: 'int, int', sql: DELIVERY },
  { name: 'tpcc_stock_level', signature: 'int, int, int', sql: STOCK_LEVEL },
];

export const CALL_NEW_ORDER = 'select tpcc_new_order($1, $2, $3, $4::int[], $5::int[], $6::int[]) as r';
export const CALL_PAYMENT = 'select tpcc_payment($1, $2, $3, $4, $5, $6, $7::numeric) as r';
export const CALL_ORDER_STATUS = 'select * from tpcc_order_status($1, $2, $3, $4)';
export const CALL_DELIVERY = 'select tpcc_delivery($1, $2) as r';
export const CALL_STOCK_LEVEL = 'select tpcc_stock_level($1, $2, $3) as r';

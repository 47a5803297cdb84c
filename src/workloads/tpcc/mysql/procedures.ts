/**
 * Stored-procedure mode for MySQL/MariaDB (`run --procedures`): the five transactions as server-side
 * procedures, one CALL (one round trip) each, with the same effects as the client-side SQL of
 * sql.ts. They are installed when missing or out of date: each carries a hash of its text in its
 * COMMENT, compared against information_schema.routines.
 *
 * Each procedure opens and ends its own transaction; on any SQL error it rolls back and re-raises
 * the error, so a deadlock or lock wait timeout reaches the client with its error number, nothing
 * left open. New-Order takes its lines sorted by stock key (the client sorts them, keeping each
 * line's OL_NUMBER), so stock rows are locked in key order as in client mode.
 */
import { createHash } from 'node:crypto';
import type { Connection } from '../../../dialects/mysql/connect.js';
import { errnoOf, ER } from '../../../dialects/mysql/errors.js';
import type { ParamValue } from '../../../dialects/connections.js';
import type { MysqlSettings } from '../../../dialects/mysql/url.js';
import { DatabaseError, errorMessage } from '../../../errors.js';
import { redactText } from '../../../util/redact.js';
import type { NewOrderInput } from '../inputs.js';
import { customerByNameQuery } from '../customer-by-name.js';
import { cents, int, str, type PaymentValues } from './sql.js';

const DIST_CASE = `case p_d ${Array.from(
  { length: 10 },
  (_, i) => `when ${i + 1} then s_dist_${String(i + 1).padStart(2, '0')}`,
).join(' ')} end`;

/** Unless v_c is given: the customer by last name, by the rule of customer-by-name.ts (clause 2.5.2.2). */
const customerByName = (w: string, d: string): string => `if v_c is null then
    set v_c = (${customerByNameQuery(`c_w_id = ${w} and c_d_id = ${d} and c_last = p_last`, 'div')});
    if v_c is null then
      signal sqlstate '45000' set message_text = 'no customer with this last name';
    end if;
  end if;`;

const ON_ERROR = 'declare exit handler for sqlexception begin rollback; resignal; end;';

interface Procedure {
  params: string;
  access: 'modifies sql data' | 'reads sql data';
  body: string;
}

/** The procedures, by name; `procedureDefinition` puts the parts together with a version comment. */
const PROCEDURES: Readonly<Record<string, Procedure>> = {
  txbench_new_order: {
    params: `in p_w int, in p_d int, in p_c int, in p_all_local int,
    in p_numbers varchar(200), in p_items varchar(200), in p_supply varchar(200), in p_qty varchar(200)`,
    access: 'modifies sql data',
    body: `begin
  declare v_n int default 1 + char_length(p_items) - char_length(replace(p_items, ',', ''));
  declare k int default 0;
  declare v_o, v_i, v_sw, v_q, v_num, v_sq int;
  declare v_d_tax, v_w_tax, v_disc decimal(4,4);
  declare v_last varchar(16);
  declare v_credit char(2);
  declare v_price decimal(5,2);
  declare v_iname varchar(24);
  declare v_idata, v_sdata varchar(50);
  declare v_dist char(24);
  declare v_missing int default 0;
  declare v_found int default 1;
  declare v_total decimal(12,2) default 0;
  declare continue handler for not found set v_found = 0;
  ${ON_ERROR}
  start transaction;
  update district set d_next_o_id = d_next_o_id + 1 where d_w_id = p_w and d_id = p_d;
  select d_next_o_id - 1, d_tax into v_o, v_d_tax from district where d_w_id = p_w and d_id = p_d;
  select w_tax into v_w_tax from warehouse where w_id = p_w;
  select c_discount, c_last, c_credit into v_disc, v_last, v_credit
    from customer where c_w_id = p_w and c_d_id = p_d and c_id = p_c;
  if v_found = 0 then
    signal sqlstate '45000' set message_text = 'New-Order found no district or customer';
  end if;
  insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    values (v_o, p_d, p_w, p_c, now(6), null, v_n, p_all_local);
  insert into new_order (no_o_id, no_d_id, no_w_id) values (v_o, p_d, p_w);
  while k < v_n do
    set k = k + 1;
    set v_num = substring_index(substring_index(p_numbers, ',', k), ',', -1);
    set v_i = substring_index(substring_index(p_items, ',', k), ',', -1);
    set v_sw = substring_index(substring_index(p_supply, ',', k), ',', -1);
    set v_q = substring_index(substring_index(p_qty, ',', k), ',', -1);
    set v_found = 1;
    select i_price, i_name, i_data into v_price, v_iname, v_idata from item where i_id = v_i;
    if v_found = 0 then
      -- The unused item of the 1%: skip its stock and line, roll back after the valid lines.
      set v_missing = 1;
    else
      select s_quantity, s_data, ${DIST_CASE} into v_sq, v_sdata, v_dist
        from stock where s_w_id = v_sw and s_i_id = v_i for update;
      update stock set s_quantity = if(v_sq >= v_q + 10, v_sq - v_q, v_sq - v_q + 91),
          s_ytd = s_ytd + v_q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + if(v_sw = p_w, 0, 1)
        where s_w_id = v_sw and s_i_id = v_i;
      insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
          ol_quantity, ol_amount, ol_dist_info)
        values (v_o, p_d, p_w, v_num, v_i, v_sw, null, v_q, v_q * v_price, v_dist);
      set v_total = v_total + v_q * v_price;
    end if;
  end while;
  -- Only the 1% answer with a result set: a committed order's answer is the CALL's OK alone, one
  -- packet (the server flushes each result set apart from the OK that ends the CALL).
  if v_missing = 1 then
    rollback;
    select 1 as rolled_back;
  else
    commit;
  end if;
end`,
  },

  txbench_payment: {
    params: `in p_w int, in p_d int, in p_cw int, in p_cd int, in p_c int, in p_last varchar(16),
    in p_amount decimal(6,2)`,
    access: 'modifies sql data',
    body: `begin
  declare v_c int default p_c;
  ${ON_ERROR}
  start transaction;
  ${customerByName('p_cw', 'p_cd')}
  update customer set c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = case when c_credit = 'BC' then left(concat(c_id, ' ', c_d_id, ' ', c_w_id, ' ', p_d, ' ', p_w, ' ',
        p_amount, ' | ', c_data), 500) else c_data end
    where c_w_id = p_cw and c_d_id = p_cd and c_id = v_c;
  -- The update always changes the balance, so no row counted means no such customer.
  if row_count() = 0 then
    signal sqlstate '45000' set message_text = 'Payment found no customer';
  end if;
  update district set d_ytd = d_ytd + p_amount where d_w_id = p_w and d_id = p_d;
  update warehouse set w_ytd = w_ytd + p_amount where w_id = p_w;
  insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    select v_c, p_cd, p_cw, p_d, p_w, now(6), p_amount, left(concat(w_name, '    ', d_name), 24)
    from warehouse, district where w_id = p_w and d_w_id = p_w and d_id = p_d;
  -- No result set (as PostgreSQL's tpcc_payment returns none of the rows): the CALL's OK alone.
  commit;
end`,
  },

  txbench_order_status: {
    params: `in p_w int, in p_d int, in p_c int, in p_last varchar(16)`,
    access: 'reads sql data',
    body: `begin
  declare v_c int default p_c;
  declare v_o int;
  ${ON_ERROR}
  set transaction isolation level repeatable read;
  start transaction with consistent snapshot, read only;
  ${customerByName('p_w', 'p_d')}
  select o_id into v_o from orders where o_w_id = p_w and o_d_id = p_d and o_c_id = v_c
    order by o_id desc limit 1;
  -- One result set, as PostgreSQL's tpcc_order_status returns: the customer and the order on every
  -- line (NULLs without an order). The server writes each result set apart from the CALL's OK: three
  -- sets woke the client up to four times per Order-Status, one set wakes it up to twice.
  select c_id, c_balance, c_first, c_middle, c_last, o_id, o_entry_d, o_carrier_id,
      ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
    from customer
    left join orders on o_w_id = p_w and o_d_id = p_d and o_id = v_o
    left join order_line on ol_w_id = p_w and ol_d_id = p_d and ol_o_id = v_o
    where c_w_id = p_w and c_d_id = p_d and c_id = v_c
    order by ol_number;
  commit;
end`,
  },

  txbench_delivery: {
    params: `in p_w int, in p_carrier int`,
    access: 'modifies sql data',
    body: `begin
  declare v_d int default 0;
  declare v_o, v_c int;
  declare v_amount decimal(12,2);
  declare v_delivered int default 0;
  declare v_found int default 1;
  declare continue handler for not found set v_found = 0;
  ${ON_ERROR}
  start transaction;
  while v_d < 10 do
    set v_d = v_d + 1;
    set v_found = 1;
    -- The oldest new order; a concurrent Delivery holding it makes this one wait, then take the next.
    select no_o_id into v_o from new_order where no_w_id = p_w and no_d_id = v_d
      order by no_o_id limit 1 for update;
    if v_found = 1 then
      delete from new_order where no_w_id = p_w and no_d_id = v_d and no_o_id = v_o;
      update orders set o_carrier_id = p_carrier where o_w_id = p_w and o_d_id = v_d and o_id = v_o;
      select o_c_id into v_c from orders where o_w_id = p_w and o_d_id = v_d and o_id = v_o;
      update order_line set ol_delivery_d = now(6) where ol_w_id = p_w and ol_d_id = v_d and ol_o_id = v_o;
      select sum(ol_amount) into v_amount from order_line where ol_w_id = p_w and ol_d_id = v_d and ol_o_id = v_o;
      update customer set c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
        where c_w_id = p_w and c_d_id = v_d and c_id = v_c;
      set v_delivered = v_delivered + 1;
    end if;
  end while;
  commit;
  select v_delivered as delivered;
end`,
  },

  txbench_stock_level: {
    params: `in p_w int, in p_d int, in p_threshold int`,
    access: 'reads sql data',
    body: `begin
  declare v_low int;
  ${ON_ERROR}
  start transaction read only;
  -- Counted into a variable, as PostgreSQL's tpcc_stock_level does: nobody reads it, so the CALL's
  -- OK alone answers.
  select count(distinct s.s_i_id) into v_low
    from district dd
    join order_line ol on ol.ol_w_id = dd.d_w_id and ol.ol_d_id = dd.d_id
      and ol.ol_o_id >= dd.d_next_o_id - 20 and ol.ol_o_id < dd.d_next_o_id
    join stock s on s.s_w_id = dd.d_w_id and s.s_i_id = ol.ol_i_id
    where dd.d_w_id = p_w and dd.d_id = p_d and s.s_quantity < p_threshold;
  commit;
end`,
  },
};

export const PROCEDURE_NAMES: readonly string[] = Object.keys(PROCEDURES);

/** The comment that identifies this version of a procedure. */
export function procedureComment(name: string): string {
  const p = PROCEDURES[name];
  if (p === undefined) throw new RangeError(`no procedure ${name}`);
  const hash = createHash('sha1').update(`${p.params}\n${p.access}\n${p.body}`).digest('hex');
  return `txbench ${hash.slice(0, 16)}`;
}

/** The CREATE PROCEDURE statement for one procedure. */
export function procedureDefinition(name: string): string {
  const p = PROCEDURES[name];
  if (p === undefined) throw new RangeError(`no procedure ${name}`);
  return `create procedure ${name}(${p.params})\n  ${p.access}\n  comment '${procedureComment(name)}'\n${p.body}`;
}

/** Creates the procedures that are missing or differ from this version; one line on a missing privilege. */
export async function installProcedures(conn: Connection, s: MysqlSettings): Promise<void> {
  const [rows] = await conn.query(
    `select routine_name as name, routine_comment as comment from information_schema.routines
      where routine_schema = database() and routine_type = 'PROCEDURE' and routine_name like 'txbench\\_%'`,
  );
  const present = new Map<string, string>();
  for (const r of rows as { name: string; comment: string }[]) present.set(r.name.toLowerCase(), r.comment);
  for (const name of PROCEDURE_NAMES) {
    const comment = present.get(name);
    if (comment === procedureComment(name)) continue;
    try {
      if (comment !== undefined) await conn.query(`drop procedure if exists ${name}`);
      await conn.query(procedureDefinition(name));
    } catch (err) {
      // Another txbench process installed it at the same moment: fine.
      if (errnoOf(err) === ER.SP_ALREADY_EXISTS) continue;
      throw describeProcedureError(err, s, comment === undefined ? 'create' : 'replace');
    }
  }
  // EXECUTE may be missing even where the procedures exist: find out now, not in the middle of a run.
  try {
    await conn.query(callStockLevel(1, 1, 10));
  } catch (err) {
    throw describeProcedureError(err, s, 'call');
  }
}

/** One line saying which privilege or setting --procedures lacks. */
export function describeProcedureError(
  err: unknown,
  s: MysqlSettings,
  action: 'create' | 'replace' | 'call',
): DatabaseError {
  const n = errnoOf(err);
  const grant = `grant create routine, alter routine, execute on ${s.database}.* to ${s.user}`;
  if (n === ER.PROC_ACCESS_DENIED && action === 'call') {
    return new DatabaseError(
      `--procedures needs the EXECUTE privilege, which ${s.user} lacks on the txbench procedures in ${s.database}; grant execute on ${s.database}.* to ${s.user}`,
    );
  }
  if (n === ER.PROC_ACCESS_DENIED) {
    return new DatabaseError(
      `--procedures needs the ALTER ROUTINE privilege to replace the out-of-date txbench procedures in ${s.database}, which ${s.user} lacks; ${grant}`,
    );
  }
  if (n === ER.DB_ACCESS_DENIED || n === ER.TABLE_ACCESS_DENIED || n === ER.SPECIFIC_ACCESS_DENIED) {
    // information_schema only lists routines the user may use, so installed ones it cannot execute look missing.
    return new DatabaseError(
      `--procedures needs the CREATE ROUTINE privilege, which ${s.user} lacks on ${s.database}, to install the txbench procedures (and EXECUTE to use installed ones); ${grant}, or run without --procedures`,
    );
  }
  if (n === ER.BINLOG_ROUTINE_NEEDS_SUPER) {
    return new DatabaseError(
      `binary logging is on and ${s.user} lacks SUPER, so it may not create procedures; set log_bin_trust_function_creators = 1 on the server, or run without --procedures`,
    );
  }
  return new DatabaseError(
    `cannot ${action === 'call' ? 'call' : 'install'} the txbench procedures in ${s.database}: ${redactText(errorMessage(err), s.secrets)}`,
  );
}

/**
 * New-Order's lines as its procedure takes them: sorted by stock key (supplying warehouse, item),
 * each keeping its OL_NUMBER; four lists, which the procedure takes as comma-separated text. An
 * order has at most 15 lines: an insertion sort, stable as the key's ties keep their order, costs
 * less than a comparator's call per comparison.
 */
function newOrderLists(input: NewOrderInput): {
  numbers: number[];
  items: number[];
  supply: number[];
  qty: number[];
} {
  const { itemIds, supplyWarehouses, quantities } = input;
  const lines = itemIds.length;
  const order = new Array<number>(lines);
  for (let k = 0; k < lines; k++) {
    const w = supplyWarehouses[k]!;
    const item = itemIds[k]!;
    let j = k;
    for (; j > 0; j--) {
      const before = order[j - 1]!;
      const beforeW = supplyWarehouses[before]!;
      if (beforeW < w || (beforeW === w && itemIds[before]! <= item)) break;
      order[j] = before;
    }
    order[j] = k;
  }
  const numbers = new Array<number>(lines);
  const items = new Array<number>(lines);
  const supply = new Array<number>(lines);
  const qty = new Array<number>(lines);
  for (let j = 0; j < lines; j++) {
    const k = order[j]!;
    numbers[j] = k + 1;
    items[j] = itemIds[k]!;
    supply[j] = supplyWarehouses[k]!;
    qty[j] = quantities[k]!;
  }
  return { numbers, items, supply, qty };
}

/** A list of integers as the procedure takes it: `1,2,3`. */
const intList = (list: readonly number[]): string => list.map(int).join(',');

/** CALL for a New-Order: lines sorted by stock key, each keeping its OL_NUMBER. */
export function callNewOrder(w: number, input: NewOrderInput): string {
  const { numbers, items, supply, qty } = newOrderLists(input);
  return `call txbench_new_order(${int(w)}, ${int(input.d)}, ${int(input.c)}, ${input.remoteLines === 0 ? 1 : 0}, ${str(
    intList(numbers),
  )}, ${str(intList(items))}, ${str(intList(supply))}, ${str(intList(qty))})`;
}

export function callPayment(p: PaymentValues): string {
  const [c, last] = 'c' in p.customer ? [int(p.customer.c), 'null'] : ['null', str(p.customer.last)];
  return `call txbench_payment(${int(p.w)}, ${int(p.d)}, ${int(p.cW)}, ${int(p.cD)}, ${c}, ${last}, ${cents(p.amountCents)})`;
}

export function callOrderStatus(w: number, d: number, customer: { c: number } | { last: string }): string {
  const [c, last] = 'c' in customer ? [int(customer.c), 'null'] : ['null', str(customer.last)];
  return `call txbench_order_status(${int(w)}, ${int(d)}, ${c}, ${last})`;
}

export function callDelivery(w: number, carrier: number): string {
  return `call txbench_delivery(${int(w)}, ${int(carrier)})`;
}

export function callStockLevel(w: number, d: number, threshold: number): string {
  return `call txbench_stock_level(${int(w)}, ${int(d)}, ${int(threshold)})`;
}

/**
 * The same CALLs as prepared statements (a slot's callback route), with their arguments as
 * parameters: the values the text CALLs above write as literals, numbers and New-Order's lists of
 * numbers as numbers (the route writes them as the literals' text, or an integer as an integer).
 */
export const PREPARED_CALL = {
  newOrder: 'call txbench_new_order(?, ?, ?, ?, ?, ?, ?, ?)',
  payment: 'call txbench_payment(?, ?, ?, ?, ?, ?, ?)',
  orderStatus: 'call txbench_order_status(?, ?, ?, ?)',
  delivery: 'call txbench_delivery(?, ?)',
  stockLevel: 'call txbench_stock_level(?, ?, ?)',
} as const;

export function newOrderParams(w: number, input: NewOrderInput): ParamValue[] {
  const { numbers, items, supply, qty } = newOrderLists(input);
  const allLocal = input.remoteLines === 0 ? 1 : 0;
  return [w, input.d, input.c, allLocal, numbers, items, supply, qty];
}

export function paymentParams(p: PaymentValues): ParamValue[] {
  const customer = p.customer;
  const amount = cents(p.amountCents);
  return 'c' in customer
    ? [p.w, p.d, p.cW, p.cD, customer.c, null, amount]
    : [p.w, p.d, p.cW, p.cD, null, customer.last, amount];
}

export function orderStatusParams(
  w: number,
  d: number,
  customer: { c: number } | { last: string },
): ParamValue[] {
  return 'c' in customer ? [w, d, customer.c, null] : [w, d, null, customer.last];
}

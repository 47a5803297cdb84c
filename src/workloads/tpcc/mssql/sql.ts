/**
 * The T-SQL of TPC-C for SQL Server: the schema's spelling, and each transaction as one batch.
 *
 * Each transaction is a single T-SQL body with named parameters. Client-side mode sends it as a
 * parameterized batch (sp_executesql: one round trip, plan cached by its text); procedure mode
 * installs the same body as a stored procedure with the same parameters (procedures.ts), so both
 * modes have exactly the same effects.
 *
 * Locking (READ COMMITTED, with or without READ_COMMITTED_SNAPSHOT):
 * - New-Order reads WAREHOUSE and CUSTOMER before it updates DISTRICT, so it holds no lock while
 *   it waits behind a Payment (which takes WAREHOUSE, DISTRICT, CUSTOMER in that order).
 * - New-Order updates its STOCK rows in key order (s_w_id, s_i_id): a loop join driven by a table
 *   variable clustered on the key, under FORCE ORDER; a repeated item is applied in a later pass.
 * - Delivery takes each district's oldest NEW-ORDER row with TOP (1) … WITH (UPDLOCK, ROWLOCK)
 *   ORDER BY no_o_id, districts 1..10 in order. A concurrent Delivery waits for the row and then
 *   moves on to the next one. READPAST is not used: skipping a row that a transaction later rolls
 *   back would deliver out of order and leave a hole (condition 3).
 * - Order-Status reads at REPEATABLE READ, so the order and its lines are seen together.
 * - SET XACT_ABORT ON: any error rolls the whole transaction back; deadlock victims (1205) are
 *   retried by the executor.
 */
import { customerByNameQuery } from '../customer-by-name.js';
import { centsToDecimal, type NewOrderInput, type OrderStatusInput, type PaymentInput } from '../inputs.js';

export { mssqlColumnType as columnType, mssqlDdl as MSSQL_DDL } from '../../../dialects/mssql/ddl.js';

/** Parameter types, spelled as T-SQL declares them. */
export type ParamType = 'int' | 'varchar(16)' | 'numeric(6,2)';

export interface ParamDef {
  name: string;
  type: ParamType;
}

export interface ParamValue extends ParamDef {
  value: number | string | null;
}

export interface TransactionSql {
  /** Name of the stored procedure in procedure mode. */
  procedure: string;
  params: readonly ParamDef[];
  /** The T-SQL that both modes run. */
  body: string;
}

/** New-Order's most lines (clause 2.4.1.3); unused line parameters are NULL. */
export const MAX_LINES = 15;

const range = (n: number): number[] => Array.from({ length: n }, (_, k) => k + 1);
const int = (name: string): ParamDef => ({ name, type: 'int' });

/** The customer by last name, by the rule of customer-by-name.ts (clause 2.5.2.2); NULL when nobody has it. */
function customerByName(w: string, d: string): string {
  return `set @c_id = (${customerByNameQuery(`c_w_id = ${w} and c_d_id = ${d} and c_last = @c_last`, '/')});`;
}

const DIST_INFO = `case @d ${range(10)
  .map((d) => `when ${d} then inserted.s_dist_${String(d).padStart(2, '0')}`)
  .join(' ')} end`;

export const NEW_ORDER: TransactionSql = {
  procedure: 'txbench_new_order',
  params: [
    int('w'),
    int('d'),
    int('c'),
    int('ol_cnt'),
    ...range(MAX_LINES).flatMap((k) => [int(`i${k}`), int(`s${k}`), int(`q${k}`)]),
  ],
  body: `set nocount on;
set xact_abort on;
set transaction isolation level read committed;
declare @lines table (k int not null, s int not null, i int not null, n int not null, q int not null,
  primary key (k, s, i));
declare @items table (i_id int not null primary key, i_price numeric(5,2) not null, i_name varchar(24) not null,
  i_data varchar(50) not null);
declare @stock table (k int not null, s int not null, i int not null, s_quantity int not null,
  dist char(24) not null, s_data varchar(50) not null, primary key (k, s, i));
declare @o_id int, @w_tax numeric(4,4), @d_tax numeric(4,4), @c_discount numeric(4,4), @c_last varchar(16),
  @c_credit char(2), @all_local int, @passes int, @pass int = 1, @inserted int,
  @entry_d datetime2 = sysdatetime();
-- One row per order line; k counts repeats of a stock row (1, 2, ...), so that each pass of the
-- stock update touches a row once and a repeated item sees the quantity the line before left.
insert into @lines (k, s, i, n, q)
select row_number() over (partition by v.s, v.i order by v.n), v.s, v.i, v.n, v.q
from (values ${range(MAX_LINES)
    .map((k) => `(${k}, @i${k}, @s${k}, @q${k})`)
    .join(', ')}) as v (n, i, s, q)
where v.n <= @ol_cnt;
select @all_local = case when exists (select 1 from @lines where s <> @w) then 0 else 1 end,
  @passes = (select max(k) from @lines);
begin transaction;
select @w_tax = w_tax from warehouse where w_id = @w;
select @c_discount = c_discount, @c_last = c_last, @c_credit = c_credit
from customer where c_w_id = @w and c_d_id = @d and c_id = @c;
if @@rowcount = 0 throw 50001, 'New-Order: no such customer', 1;
update district set @o_id = d_next_o_id = d_next_o_id + 1, @d_tax = d_tax where d_w_id = @w and d_id = @d;
if @@rowcount = 0 throw 50002, 'New-Order: no such district', 1;
set @o_id = @o_id - 1;
insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
values (@o_id, @d, @w, @c, @entry_d, null, @ol_cnt, @all_local);
insert into new_order (no_o_id, no_d_id, no_w_id) values (@o_id, @d, @w);
insert into @items (i_id, i_price, i_name, i_data)
select i_id, i_price, i_name, i_data from item where i_id in (select i from @lines);
while @pass <= @passes
begin
  update st set
    s_quantity = case when st.s_quantity >= l.q + 10 then st.s_quantity - l.q else st.s_quantity - l.q + 91 end,
    s_ytd = st.s_ytd + l.q,
    s_order_cnt = st.s_order_cnt + 1,
    s_remote_cnt = st.s_remote_cnt + case when l.s = @w then 0 else 1 end
  output l.k, l.s, l.i, inserted.s_quantity, ${DIST_INFO}, inserted.s_data
    into @stock (k, s, i, s_quantity, dist, s_data)
  from @lines as l join stock as st with (rowlock) on st.s_w_id = l.s and st.s_i_id = l.i
  where l.k = @pass
  option (loop join, force order);
  set @pass = @pass + 1;
end;
insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
  ol_quantity, ol_amount, ol_dist_info)
select @o_id, @d, @w, l.n, l.i, l.s, null, l.q, l.q * it.i_price, st.dist
from @lines as l
join @items as it on it.i_id = l.i
join @stock as st on st.k = l.k and st.s = l.s and st.i = l.i;
set @inserted = @@rowcount;
if @inserted < @ol_cnt
begin
  -- An item number that is not in ITEM (clause 2.4.2.3): the valid lines were processed in full,
  -- now all of it is undone, the D_NEXT_O_ID increment included.
  rollback transaction;
  select 1 as rolled_back, @o_id as o_id, @c_last as c_last, @c_credit as c_credit;
end
else
begin
  commit transaction;
  select 0 as rolled_back, @o_id as o_id, @c_last as c_last, @c_credit as c_credit, @entry_d as o_entry_d,
    cast(@c_discount as varchar(12)) as c_discount, cast(@w_tax as varchar(12)) as w_tax,
    cast(@d_tax as varchar(12)) as d_tax,
    cast(cast((select sum(l.q * it.i_price) from @lines as l join @items as it on it.i_id = l.i)
      * (1 - @c_discount) * (1 + @w_tax + @d_tax) as numeric(12,2)) as varchar(20)) as total_amount;
  select l.n as ol_number, l.s as ol_supply_w_id, l.i as ol_i_id, it.i_name, l.q as ol_quantity, st.s_quantity,
    case when it.i_data like '%ORIGINAL%' and st.s_data like '%ORIGINAL%' then 'B' else 'G' end as brand_generic,
    cast(it.i_price as varchar(12)) as i_price, cast(l.q * it.i_price as varchar(12)) as ol_amount
  from @lines as l
  join @items as it on it.i_id = l.i
  join @stock as st on st.k = l.k and st.s = l.s and st.i = l.i
  order by l.n;
end;`,
};

export const PAYMENT: TransactionSql = {
  procedure: 'txbench_payment',
  params: [
    int('w'),
    int('d'),
    int('c_w'),
    int('c_d'),
    int('c_id'),
    { name: 'c_last', type: 'varchar(16)' },
    { name: 'amount', type: 'numeric(6,2)' },
  ],
  body: `set nocount on;
set xact_abort on;
set transaction isolation level read committed;
declare @w_row table (w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20), w_city varchar(20),
  w_state char(2), w_zip char(9));
declare @d_row table (d_name varchar(10), d_street_1 varchar(20), d_street_2 varchar(20), d_city varchar(20),
  d_state char(2), d_zip char(9));
declare @c_row table (c_id int, c_first varchar(16), c_middle char(2), c_last varchar(16), c_street_1 varchar(20),
  c_street_2 varchar(20), c_city varchar(20), c_state char(2), c_zip char(9), c_phone char(16),
  c_since datetime2, c_credit char(2), c_credit_lim numeric(12,2), c_discount numeric(4,4),
  c_balance numeric(12,2), c_data varchar(200));
declare @h_date datetime2 = sysdatetime();
begin transaction;
-- The payment is booked where it is entered (W_ID, D_ID), the customer may live elsewhere.
update warehouse set w_ytd = w_ytd + @amount
output inserted.w_name, inserted.w_street_1, inserted.w_street_2, inserted.w_city, inserted.w_state,
  inserted.w_zip into @w_row
where w_id = @w;
update district set d_ytd = d_ytd + @amount
output inserted.d_name, inserted.d_street_1, inserted.d_street_2, inserted.d_city, inserted.d_state,
  inserted.d_zip into @d_row
where d_w_id = @w and d_id = @d;
if @c_id is null
  ${customerByName('@c_w', '@c_d')}
-- Bad credit only: the record goes in front of C_DATA, which keeps its first 500 characters.
update customer set
  c_balance = c_balance - @amount,
  c_ytd_payment = c_ytd_payment + @amount,
  c_payment_cnt = c_payment_cnt + 1,
  c_data = case when c_credit = 'BC'
    then left(concat(c_id, ' ', c_d_id, ' ', c_w_id, ' ', @d, ' ', @w, ' ', @amount, ' | ', c_data), 500)
    else c_data end
output inserted.c_id, inserted.c_first, inserted.c_middle, inserted.c_last, inserted.c_street_1,
  inserted.c_street_2, inserted.c_city, inserted.c_state, inserted.c_zip, inserted.c_phone, inserted.c_since,
  inserted.c_credit, inserted.c_credit_lim, inserted.c_discount, inserted.c_balance,
  case when inserted.c_credit = 'BC' then left(inserted.c_data, 200) end into @c_row
where c_w_id = @c_w and c_d_id = @c_d and c_id = @c_id;
if @@rowcount = 0 throw 50003, 'Payment: no such customer', 1;
insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
select @c_id, @c_d, @c_w, @d, @w, @h_date, @amount, left(concat(w.w_name, '    ', d.d_name), 24)
from @w_row as w cross join @d_row as d;
if @@rowcount = 0 throw 50004, 'Payment: no such warehouse or district', 1;
commit transaction;
select w.w_name, w.w_street_1, w.w_street_2, w.w_city, w.w_state, w.w_zip,
  d.d_name, d.d_street_1, d.d_street_2, d.d_city, d.d_state, d.d_zip,
  c.c_id, c.c_first, c.c_middle, c.c_last, c.c_street_1, c.c_street_2, c.c_city, c.c_state, c.c_zip, c.c_phone,
  c.c_since, c.c_credit, cast(c.c_credit_lim as varchar(20)) as c_credit_lim,
  cast(c.c_discount as varchar(12)) as c_discount, cast(c.c_balance as varchar(20)) as c_balance, c.c_data,
  cast(@amount as varchar(12)) as h_amount, @h_date as h_date
from @w_row as w cross join @d_row as d cross join @c_row as c;`,
};

export const ORDER_STATUS: TransactionSql = {
  procedure: 'txbench_order_status',
  params: [int('w'), int('d'), int('c_id'), { name: 'c_last', type: 'varchar(16)' }],
  body: `set nocount on;
set xact_abort on;
set transaction isolation level repeatable read;
declare @o_id int;
begin transaction;
if @c_id is null
  ${customerByName('@w', '@d')}
select c_id, cast(c_balance as varchar(20)) as c_balance, c_first, c_middle, c_last
from customer where c_w_id = @w and c_d_id = @d and c_id = @c_id;
if @@rowcount = 0 throw 50005, 'Order-Status: no such customer', 1;
select top (1) @o_id = o_id from orders where o_w_id = @w and o_d_id = @d and o_c_id = @c_id order by o_id desc;
select o_id, o_entry_d, o_carrier_id from orders where o_w_id = @w and o_d_id = @d and o_id = @o_id;
select ol_i_id, ol_supply_w_id, ol_quantity, cast(ol_amount as varchar(12)) as ol_amount, ol_delivery_d
from order_line where ol_w_id = @w and ol_d_id = @d and ol_o_id = @o_id
order by ol_number;
commit transaction;`,
};

export const DELIVERY: TransactionSql = {
  procedure: 'txbench_delivery',
  params: [int('w'), int('carrier')],
  body: `set nocount on;
set xact_abort on;
set transaction isolation level read committed;
declare @picked table (d int not null primary key, o int not null);
declare @orders table (d int not null primary key, o int not null, c int not null);
declare @amounts table (d int not null, amount numeric(6,2) not null);
declare @delivery_d datetime2 = sysdatetime();
begin transaction;
-- Per district, the oldest undelivered order; a district without one is skipped (clause 2.7.4.2).
insert into @picked (d, o)
select g.d, n.no_o_id
from (values ${range(10)
    .map((d) => `(${d})`)
    .join(', ')}) as g (d)
cross apply (select top (1) no_o_id from new_order with (updlock, rowlock)
  where no_w_id = @w and no_d_id = g.d order by no_o_id) as n
option (force order);
delete n from new_order as n join @picked as p on n.no_w_id = @w and n.no_d_id = p.d and n.no_o_id = p.o;
update o set o_carrier_id = @carrier
output inserted.o_d_id, inserted.o_id, inserted.o_c_id into @orders (d, o, c)
from orders as o join @picked as p on o.o_w_id = @w and o.o_d_id = p.d and o.o_id = p.o;
update l set ol_delivery_d = @delivery_d
output inserted.ol_d_id, inserted.ol_amount into @amounts (d, amount)
from order_line as l join @picked as p on l.ol_w_id = @w and l.ol_d_id = p.d and l.ol_o_id = p.o;
update c set c_balance = c.c_balance + t.amount, c_delivery_cnt = c.c_delivery_cnt + 1
from customer as c
join (select o.d, o.c, coalesce(sum(a.amount), 0) as amount
  from @orders as o left join @amounts as a on a.d = o.d group by o.d, o.c) as t
  on c.c_w_id = @w and c.c_d_id = t.d and c.c_id = t.c;
commit transaction;
-- The result file's content: each delivered (D_ID, O_ID); the districts missing were skipped.
select d as d_id, o as o_id from @picked order by d;`,
};

export const STOCK_LEVEL: TransactionSql = {
  procedure: 'txbench_stock_level',
  params: [int('w'), int('d'), int('threshold')],
  body: `set nocount on;
set transaction isolation level read committed;
select count(distinct s.s_i_id) as low_stock
from district as d
join order_line as ol on ol.ol_w_id = d.d_w_id and ol.ol_d_id = d.d_id
  and ol.ol_o_id >= d.d_next_o_id - 20 and ol.ol_o_id < d.d_next_o_id
join stock as s on s.s_w_id = d.d_w_id and s.s_i_id = ol.ol_i_id
where d.d_w_id = @w and d.d_id = @d and s.s_quantity < @threshold;`,
};

export const TRANSACTIONS: readonly TransactionSql[] = [
  NEW_ORDER,
  PAYMENT,
  ORDER_STATUS,
  DELIVERY,
  STOCK_LEVEL,
];

function values(
  defs: readonly ParamDef[],
  byName: Readonly<Record<string, number | string | null>>,
): ParamValue[] {
  return defs.map((p) => {
    const value = byName[p.name];
    if (value === undefined) throw new Error(`no value for parameter @${p.name}`);
    return { ...p, value };
  });
}

export function newOrderParams(w: number, input: NewOrderInput): ParamValue[] {
  const byName: Record<string, number | null> = { w, d: input.d, c: input.c, ol_cnt: input.itemIds.length };
  for (let k = 1; k <= MAX_LINES; k++) {
    byName[`i${k}`] = input.itemIds[k - 1] ?? null;
    byName[`s${k}`] = input.supplyWarehouses[k - 1] ?? null;
    byName[`q${k}`] = input.quantities[k - 1] ?? null;
  }
  return values(NEW_ORDER.params, byName);
}

/** H_AMOUNT goes as numeric(6,2): the driver sends round(value × 100), exactly the cents. */
export function paymentParams(w: number, input: PaymentInput): ParamValue[] {
  const { customer } = input;
  return values(PAYMENT.params, {
    w,
    d: input.d,
    c_w: input.cW,
    c_d: input.cD,
    c_id: customer.byName ? null : customer.c,
    c_last: customer.byName ? customer.last : null,
    amount: centsToDecimal(input.amountCents),
  });
}

export function orderStatusParams(w: number, input: OrderStatusInput): ParamValue[] {
  const { customer } = input;
  return values(ORDER_STATUS.params, {
    w,
    d: input.d,
    c_id: customer.byName ? null : customer.c,
    c_last: customer.byName ? customer.last : null,
  });
}

export function deliveryParams(w: number, carrier: number): ParamValue[] {
  return values(DELIVERY.params, { w, carrier });
}

export function stockLevelParams(w: number, d: number, threshold: number): ParamValue[] {
  return values(STOCK_LEVEL.params, { w, d, threshold });
}

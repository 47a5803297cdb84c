/**
 * TPC-C consistency conditions (clause 3.3.2, tpcc-facts.md §11) and after-load population checks.
 * Each check is one query that counts violations, so a failure says how much is wrong. The SQL is
 * written once for every database: LEFT JOINs only, GROUP BY by name, and the few spellings that
 * differ (IS DISTINCT FROM, string length, concatenation, integer division) from the dialect.
 */
import type { Db, SqlFlavor } from '../../dialects/dialect.js';
import { SYLLABLES } from './random.js';

export interface CheckDefinition {
  id: string;
  title: string;
  /** Returns the number of violating groups or rows, as column `v`. */
  sql: string;
}

export interface CheckResult {
  id: string;
  title: string;
  violations: number;
  pass: boolean;
}

function deliveredAmountByCustomer(): string {
  return `select o.o_w_id w, o.o_d_id d, o.o_c_id c, sum(l.ol_amount) s
    from orders o join order_line l on l.ol_w_id = o.o_w_id and l.ol_d_id = o.o_d_id and l.ol_o_id = o.o_id
    where l.ol_delivery_d is not null group by o.o_w_id, o.o_d_id, o.o_c_id`;
}

/** Conditions 1-10 and 12 hold in every transaction-consistent state; 11 only right after a load. */
export function consistencyConditions(f: SqlFlavor): CheckDefinition[] {
  return [
    {
      id: '1',
      title: 'W_YTD = sum(D_YTD)',
      sql: `select count(*) as v from warehouse w
        left join (select d_w_id, sum(d_ytd) s from district group by d_w_id) d on d.d_w_id = w.w_id
        where ${f.distinct(f.money('w.w_ytd'), f.money('d.s'))}`,
    },
    {
      id: '2',
      title: 'D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)',
      sql: `select count(*) as v from district d
        left join (select o_w_id, o_d_id, max(o_id) m from orders group by o_w_id, o_d_id) o
          on o.o_w_id = d.d_w_id and o.o_d_id = d.d_id
        left join (select no_w_id, no_d_id, max(no_o_id) m from new_order group by no_w_id, no_d_id) n
          on n.no_w_id = d.d_w_id and n.no_d_id = d.d_id
        where ${f.distinct('o.m', 'd.d_next_o_id - 1')} or (n.m is not null and n.m <> d.d_next_o_id - 1)`,
    },
    {
      id: '3',
      title: 'NEW-ORDER ids contiguous: max - min + 1 = count',
      sql: `select count(*) as v from (select no_w_id, no_d_id from new_order group by no_w_id, no_d_id
        having max(no_o_id) - min(no_o_id) + 1 <> count(*)) x`,
    },
    {
      id: '4',
      title: 'sum(O_OL_CNT) = count(ORDER-LINE) per district',
      sql: `select count(*) as v
        from (select o_w_id w, o_d_id d, sum(o_ol_cnt) s from orders group by o_w_id, o_d_id) o
        left join (select ol_w_id w, ol_d_id d, count(*) c from order_line group by ol_w_id, ol_d_id) l
          on l.w = o.w and l.d = o.d
        where ${f.distinct('o.s', 'l.c')}`,
    },
    {
      id: '5',
      title: 'O_CARRIER_ID null <=> NEW-ORDER row exists',
      sql: `select (select count(*) from orders o
          left join new_order n on n.no_w_id = o.o_w_id and n.no_d_id = o.o_d_id and n.no_o_id = o.o_id
          where (o.o_carrier_id is null and n.no_o_id is null) or (o.o_carrier_id is not null and n.no_o_id is not null))
        + (select count(*) from new_order n where not exists (select 1 from orders o
          where o.o_w_id = n.no_w_id and o.o_d_id = n.no_d_id and o.o_id = n.no_o_id)) as v`,
    },
    {
      id: '6',
      title: 'O_OL_CNT = count(ORDER-LINE) per order',
      sql: `select (select count(*) from orders o
          left join (select ol_w_id, ol_d_id, ol_o_id, count(*) c from order_line group by ol_w_id, ol_d_id, ol_o_id) l
            on l.ol_w_id = o.o_w_id and l.ol_d_id = o.o_d_id and l.ol_o_id = o.o_id
          where ${f.distinct('o.o_ol_cnt', 'l.c')})
        + (select count(*) from (select ol_w_id, ol_d_id, ol_o_id from order_line group by ol_w_id, ol_d_id, ol_o_id) l
          where not exists (select 1 from orders o
            where o.o_w_id = l.ol_w_id and o.o_d_id = l.ol_d_id and o.o_id = l.ol_o_id)) as v`,
    },
    {
      id: '7',
      title: 'OL_DELIVERY_D null <=> O_CARRIER_ID null',
      sql: `select count(*) as v from order_line l
        join orders o on o.o_w_id = l.ol_w_id and o.o_d_id = l.ol_d_id and o.o_id = l.ol_o_id
        where (l.ol_delivery_d is null and o.o_carrier_id is not null)
          or (l.ol_delivery_d is not null and o.o_carrier_id is null)`,
    },
    {
      id: '8',
      title: 'W_YTD = sum(H_AMOUNT) by H_W_ID',
      sql: `select count(*) as v from warehouse w
        left join (select h_w_id, sum(h_amount) s from history group by h_w_id) h on h.h_w_id = w.w_id
        where ${f.distinct(f.money('w.w_ytd'), f.money('h.s'))}`,
    },
    {
      id: '9',
      title: 'D_YTD = sum(H_AMOUNT) by (H_W_ID, H_D_ID)',
      sql: `select count(*) as v from district d
        left join (select h_w_id, h_d_id, sum(h_amount) s from history group by h_w_id, h_d_id) h
          on h.h_w_id = d.d_w_id and h.h_d_id = d.d_id
        where ${f.distinct(f.money('d.d_ytd'), f.money('h.s'))}`,
    },
    {
      id: '10',
      title: 'C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)',
      sql: `select count(*) as v from customer c
        left join (${deliveredAmountByCustomer()}) ol on ol.w = c.c_w_id and ol.d = c.c_d_id and ol.c = c.c_id
        left join (select h_c_w_id w, h_c_d_id d, h_c_id c, sum(h_amount) s from history
          group by h_c_w_id, h_c_d_id, h_c_id) h on h.w = c.c_w_id and h.d = c.c_d_id and h.c = c.c_id
        where ${f.money('c.c_balance')} <> ${f.money('coalesce(ol.s, 0) - coalesce(h.s, 0)')}`,
    },
    {
      id: '12',
      title: 'C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)',
      sql: `select count(*) as v from customer c
        left join (${deliveredAmountByCustomer()}) ol on ol.w = c.c_w_id and ol.d = c.c_d_id and ol.c = c.c_id
        where ${f.money('c.c_balance + c.c_ytd_payment')} <> ${f.money('coalesce(ol.s, 0)')}`,
    },
  ];
}

export const LOAD_ONLY_CONDITION: CheckDefinition = {
  id: '11',
  title: 'count(ORDER) - count(NEW-ORDER) = 2100 per district',
  sql: `select count(*) as v from district d
    left join (select o_w_id, o_d_id, count(*) c from orders group by o_w_id, o_d_id) o
      on o.o_w_id = d.d_w_id and o.o_d_id = d.d_id
    left join (select no_w_id, no_d_id, count(*) c from new_order group by no_w_id, no_d_id) n
      on n.no_w_id = d.d_w_id and n.no_d_id = d.d_id
    where coalesce(o.c, 0) - coalesce(n.c, 0) <> 2100`,
};

/** Expected rows per table: a fixed count plus a count per warehouse. */
const CARDINALITIES: readonly [table: string, fixed: number, perWarehouse: number][] = [
  ['item', 100_000, 0],
  ['warehouse', 0, 1],
  ['district', 0, 10],
  ['customer', 0, 30_000],
  ['history', 0, 30_000],
  ['orders', 0, 30_000],
  ['new_order', 0, 9_000],
  ['stock', 0, 100_000],
];

/** The "10% of rows" rules, accepted within 5% of the target (9.5%..10.5%). */
const TEN_PERCENT_RULES: readonly [string, string, string][] = [
  ['I_DATA contains ORIGINAL', 'item', "i_data like '%ORIGINAL%'"],
  ['S_DATA contains ORIGINAL', 'stock', "s_data like '%ORIGINAL%'"],
  ["C_CREDIT = 'BC'", 'customer', "c_credit = 'BC'"],
];

/** The syllable name of customer c_id - 1, as SQL (clause 4.3.2.3). */
function syllableName(f: SqlFlavor, n: string): string {
  const digit = (d: string): string =>
    `case ${d} ${SYLLABLES.map((s, i) => `when ${i} then '${s}'`).join(' ')} end`;
  return f.concat(digit(f.intDiv(n, '100')), digit(`${f.intDiv(n, '10')} % 10`), digit(`${n} % 10`));
}

/** Initial values of clause 4.3.3.1: each query counts the rows that break the rule. */
function initialValues(f: SqlFlavor): [string, string][] {
  const len = f.length;
  return [
    [
      'W_YTD = 300,000.00, W_TAX in [0, 0.2]',
      `select count(*) as v from warehouse where w_ytd <> 300000 or w_tax < 0 or w_tax > 0.2`,
    ],
    [
      'D_YTD = 30,000.00, D_NEXT_O_ID = 3,001, D_TAX in [0, 0.2]',
      `select count(*) as v from district where d_ytd <> 30000 or d_next_o_id <> 3001 or d_tax < 0 or d_tax > 0.2`,
    ],
    [
      'customer fixed values (OE, 50,000.00, -10.00, 10.00, 1, 0, discount <= 0.5, data 300..500)',
      `select count(*) as v from customer where c_middle <> 'OE' or c_credit_lim <> 50000 or c_balance <> -10
        or c_ytd_payment <> 10 or c_payment_cnt <> 1 or c_delivery_cnt <> 0 or c_discount < 0 or c_discount > 0.5
        or c_credit not in ('GC', 'BC') or ${len('c_data')} < 300 or ${len('c_data')} > 500
        or ${len('c_first')} < 8 or ${len('c_first')} > 16`,
    ],
    [
      'C_LAST of customers 1..1,000 is the name of C_ID - 1',
      `select count(*) as v from customer where c_id <= 1000 and c_last <> ${syllableName(f, '(c_id - 1)')}`,
    ],
    ['H_AMOUNT = 10.00', `select count(*) as v from history where h_amount <> 10`],
    [
      'each customer has exactly one order',
      `select count(*) as v from (select o_w_id, o_d_id, o_c_id from orders group by o_w_id, o_d_id, o_c_id
        having count(*) <> 1) x`,
    ],
    [
      'O_CARRIER_ID in 1..10 before order 2,101, null after; O_OL_CNT in 5..15',
      `select count(*) as v from orders where o_ol_cnt < 5 or o_ol_cnt > 15 or o_all_local <> 1
        or (o_id < 2101 and (o_carrier_id is null or o_carrier_id < 1 or o_carrier_id > 10))
        or (o_id >= 2101 and o_carrier_id is not null)`,
    ],
    [
      'NEW-ORDER holds orders 2,101..3,000',
      `select count(*) as v from new_order where no_o_id < 2101 or no_o_id > 3000`,
    ],
    [
      'order lines: delivered with 0.00 before order 2,101, undelivered with 0.01..9,999.99 after',
      `select count(*) as v from order_line where ol_quantity <> 5 or ol_supply_w_id <> ol_w_id
        or ol_i_id < 1 or ol_i_id > 100000
        or (ol_o_id < 2101 and (ol_delivery_d is null or ol_amount <> 0))
        or (ol_o_id >= 2101 and (ol_delivery_d is not null or ol_amount < 0.01 or ol_amount > 9999.99))`,
    ],
    [
      'stock initial values (quantity 10..100, zero counters, data 26..50)',
      `select count(*) as v from stock where s_quantity < 10 or s_quantity > 100 or s_ytd <> 0 or s_order_cnt <> 0
        or s_remote_cnt <> 0 or ${len('s_data')} < 26 or ${len('s_data')} > 50 or ${len('s_dist_05')} <> 24`,
    ],
    [
      'item initial values (im_id 1..10,000, price 1.00..100.00, data 26..50)',
      `select count(*) as v from item where i_im_id < 1 or i_im_id > 10000 or i_price < 1 or i_price > 100
        or ${len('i_data')} < 26 or ${len('i_data')} > 50 or ${len('i_name')} < 14 or ${len('i_name')} > 24`,
    ],
  ];
}

/** The population checks for a database right after `txbench load` of `warehouses`. */
export function populationChecks(f: SqlFlavor, warehouses: number): CheckDefinition[] {
  const checks: CheckDefinition[] = CARDINALITIES.map(([table, fixed, perWarehouse]) => {
    const expected = fixed + perWarehouse * warehouses;
    return {
      id: `rows:${table}`,
      title: `${table} has ${expected.toLocaleString('en-US')} rows`,
      sql: `select abs(count(*) - ${expected}) as v from ${table}`,
    };
  });
  checks.push({
    id: 'rows:order_line',
    title: `order_line has ${(300_000 * warehouses).toLocaleString('en-US')} rows within 1%`,
    sql: `select case when abs(count(*) - ${300_000 * warehouses}) <= ${3000 * warehouses} then 0
      else abs(count(*) - ${300_000 * warehouses}) end as v from order_line`,
  });
  for (const [title, table, predicate] of TEN_PERCENT_RULES) {
    checks.push({
      id: `ten-percent:${table}`,
      title: `${title} in 9.5%..10.5% of rows`,
      sql: `select case when 20 * sum(case when ${predicate} then 1 else 0 end) between 1.9 * count(*) and 2.1 * count(*)
        then 0 else abs(sum(case when ${predicate} then 1 else 0 end) - count(*) / 10.0) end as v from ${table}`,
    });
  }
  initialValues(f).forEach(([title, sql], i) => checks.push({ id: `initial:${i + 1}`, title, sql }));
  return checks;
}

/** Runs the checks, a few at a time on the pool, keeping the given order in the results. */
export async function runChecks(db: Db, checks: readonly CheckDefinition[]): Promise<CheckResult[]> {
  return Promise.all(
    checks.map(async (check) => {
      const [row] = await db.query<{ v: unknown }>(check.sql);
      const violations = Number(row?.v ?? 0);
      return { id: check.id, title: check.title, violations, pass: violations === 0 };
    }),
  );
}

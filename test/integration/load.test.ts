/**
 * `loadTpcc` against a real embedded PostgreSQL: every cardinality and initial-value rule of
 * tpcc-facts.md §1 and §3, checked with this file's own SQL (not the queries of check.ts).
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../dist/errors.js';
import { dropTpcc, loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import { startTempServer, type TempServer } from './helpers.js';

const SEED = 20240601;

const SYLLABLES = ['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING'];
/** Clause 4.3.2.3, written out independently of src/workloads/tpcc/random.ts. */
function syllableName(n: number): string {
  const digits = String(n).padStart(3, '0');
  return [...digits].map((d) => SYLLABLES[Number(d)]).join('');
}
const ALL_NAMES = new Set(Array.from({ length: 1000 }, (_, n) => syllableName(n)));

const TABLES = [
  'warehouse',
  'district',
  'customer',
  'history',
  'orders',
  'new_order',
  'order_line',
  'stock',
  'item',
];

describe('loadTpcc: 1 warehouse into embedded PostgreSQL', () => {
  let pg: TempServer;
  let sql: postgres.Sql;
  let result: Awaited<ReturnType<typeof loadTpcc>>;

  /** Runs a query that returns one row and gives back its first column as a number. */
  async function num(query: string): Promise<number> {
    const rows = await sql.unsafe<Record<string, unknown>[]>(query);
    const row = rows[0];
    expect(row, query).toBeDefined();
    return Number(Object.values(row!)[0]);
  }

  async function one<T extends Record<string, unknown>>(query: string): Promise<T> {
    const rows = await sql.unsafe<T[]>(query);
    expect(rows, query).toHaveLength(1);
    return rows[0]!;
  }

  beforeAll(async () => {
    pg = await startTempServer();
    result = await loadTpcc(pg.url, { warehouses: 1, seed: SEED });
    sql = postgres(pg.url, { max: 2, onnotice: () => undefined });
  });

  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await pg?.stop();
  });

  describe('keys and ANALYZE overlapping the data', () => {
    it('the phases (data, then the tails of keys and of ANALYZE) add up to the whole load', () => {
      const { data, indexes, analyze } = result.phaseSeconds;
      for (const s of [data, indexes, analyze]) expect(s).toBeGreaterThanOrEqual(0);
      expect(data + indexes + analyze).toBeCloseTo(result.seconds, 6);
    });

    it('every table was analyzed once its rows were in (an empty table gets no column statistics)', async () => {
      const rows = await sql<{ tablename: string }[]>`
        select distinct tablename from pg_stats where schemaname = 'public' and tablename in ${sql(TABLES)}`;
      expect(rows.map((r) => r.tablename).sort()).toEqual([...TABLES].sort());
    });
  });

  describe('cardinalities (§1)', () => {
    it.each([
      ['item', 100_000],
      ['warehouse', 1],
      ['district', 10],
      ['customer', 30_000],
      ['history', 30_000],
      ['orders', 30_000],
      ['new_order', 9_000],
      ['stock', 100_000],
    ])('%s has %i rows', async (table, expected) => {
      expect(await num(`select count(*)::int from ${table}`)).toBe(expected);
    });

    it('order_line has sum(o_ol_cnt) rows, within 1% of 300,000', async () => {
      const lines = await num('select count(*)::int from order_line');
      const expected = await num('select sum(o_ol_cnt)::int from orders');
      expect(lines).toBe(expected);
      expect(Math.abs(lines - 300_000)).toBeLessThanOrEqual(3_000);
    });

    it('each order has exactly lines 1..o_ol_cnt', async () => {
      const bad = await num(`select count(*)::int from orders o
        left join (select ol_w_id, ol_d_id, ol_o_id, count(*) c, min(ol_number) lo, max(ol_number) hi
                   from order_line group by 1, 2, 3) l
          on l.ol_w_id = o.o_w_id and l.ol_d_id = o.o_d_id and l.ol_o_id = o.o_id
        where l.c is distinct from o.o_ol_cnt or l.lo <> 1 or l.hi <> o.o_ol_cnt`);
      expect(bad).toBe(0);
      const orphans = await num(`select count(*)::int from order_line l
        where not exists (select 1 from orders o
          where o.o_w_id = l.ol_w_id and o.o_d_id = l.ol_d_id and o.o_id = l.ol_o_id)`);
      expect(orphans).toBe(0);
    });
  });

  describe('WAREHOUSE and DISTRICT (§3.1, §3.2)', () => {
    it('warehouse 1: W_YTD 300,000.00, W_TAX in [0, 0.2], name and address rules', async () => {
      const w = await one<Record<string, string | number>>('select * from warehouse');
      expect(w.w_id).toBe(1);
      expect(w.w_ytd).toBe('300000.00');
      expect(Number(w.w_tax)).toBeGreaterThanOrEqual(0);
      expect(Number(w.w_tax)).toBeLessThanOrEqual(0.2);
      expect(String(w.w_name)).toMatch(/^[A-Za-z0-9]{6,10}$/);
      for (const col of ['w_street_1', 'w_street_2', 'w_city'])
        expect(String(w[col])).toMatch(/^[A-Za-z0-9]{10,20}$/);
      expect(w.w_state).toMatch(/^[A-Z]{2}$/);
      expect(w.w_zip).toMatch(/^[0-9]{4}11111$/);
    });

    it('districts 1..10: D_YTD 30,000.00, D_NEXT_O_ID 3,001, D_TAX in [0, 0.2]', async () => {
      const rows = await sql<Record<string, string | number>[]>`select * from district order by d_id`;
      expect(rows.map((d) => d.d_id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      for (const d of rows) {
        expect(d.d_w_id).toBe(1);
        expect(d.d_ytd).toBe('30000.00');
        expect(d.d_next_o_id).toBe(3001);
        expect(Number(d.d_tax)).toBeGreaterThanOrEqual(0);
        expect(Number(d.d_tax)).toBeLessThanOrEqual(0.2);
        expect(String(d.d_name)).toMatch(/^[A-Za-z0-9]{6,10}$/);
        for (const col of ['d_street_1', 'd_street_2', 'd_city'])
          expect(String(d[col])).toMatch(/^[A-Za-z0-9]{10,20}$/);
        expect(d.d_state).toMatch(/^[A-Z]{2}$/);
        expect(d.d_zip).toMatch(/^[0-9]{4}11111$/);
      }
    });
  });

  describe('CUSTOMER (§3.3)', () => {
    it('customers 1..3,000 in every district', async () => {
      const rows = await sql<{ d: number; n: number; lo: number; hi: number; distinct: number }[]>`
        select c_d_id d, count(*)::int n, min(c_id) lo, max(c_id) hi, count(distinct c_id)::int "distinct"
        from customer where c_w_id = 1 group by c_d_id order by c_d_id`;
      expect(rows).toHaveLength(10);
      for (const r of rows) expect(r).toMatchObject({ n: 3000, lo: 1, hi: 3000, distinct: 3000 });
    });

    it('fixed values in every row: OE, 50,000.00, -10.00, 10.00, 1, 0', async () => {
      const bad = await num(`select count(*)::int from customer where
        c_middle is distinct from 'OE' or c_credit_lim is distinct from 50000.00
        or c_balance is distinct from -10.00 or c_ytd_payment is distinct from 10.00
        or c_payment_cnt is distinct from 1 or c_delivery_cnt is distinct from 0`);
      expect(bad).toBe(0);
      // The exact text, not just the value: two decimals as in the spec.
      const texts = await sql<{ lim: string; bal: string; ytd: string }[]>`
        select distinct c_credit_lim::text lim, c_balance::text bal, c_ytd_payment::text ytd from customer`;
      expect(texts).toEqual([{ lim: '50000.00', bal: '-10.00', ytd: '10.00' }]);
    });

    it('random fields: discount in [0, 0.5], first name 8..16, address, phone, since', async () => {
      const bad = await num(`select count(*)::int from customer where
        c_discount is null or c_discount not between 0 and 0.5
        or c_first !~ '^[A-Za-z0-9]{8,16}$'
        or c_street_1 !~ '^[A-Za-z0-9]{10,20}$' or c_street_2 !~ '^[A-Za-z0-9]{10,20}$'
        or c_city !~ '^[A-Za-z0-9]{10,20}$' or c_state !~ '^[A-Z]{2}$' or c_zip !~ '^[0-9]{4}11111$'
        or c_phone !~ '^[0-9]{16}$' or c_since is null
        or c_since not between localtimestamp - interval '2 days' and localtimestamp + interval '2 days'`);
      expect(bad).toBe(0);
    });

    it('C_LAST of C_ID 1..1,000 is the syllable name of C_ID - 1', async () => {
      const rows = await sql<{ c_d_id: number; c_id: number; c_last: string }[]>`
        select c_d_id, c_id, c_last from customer where c_id <= 1000 order by c_d_id, c_id`;
      expect(rows).toHaveLength(10_000);
      const wrong = rows.filter((r) => r.c_last !== syllableName(r.c_id - 1));
      expect(wrong.slice(0, 5)).toEqual([]);
      expect(syllableName(371)).toBe('PRICALLYOUGHT');
      expect(syllableName(40)).toBe('BARPRESBAR');
    });

    it('C_LAST of C_ID 1,001..3,000 is a valid syllable name, NURand-spread', async () => {
      const rows = await sql<{ c_last: string; n: number }[]>`
        select c_last, count(*)::int n from customer where c_id > 1000 group by c_last`;
      const invalid = rows.filter((r) => !ALL_NAMES.has(r.c_last));
      expect(invalid).toEqual([]);
      expect(rows.reduce((s, r) => s + r.n, 0)).toBe(20_000);
      // NURand(255, 0, 999) reaches most of the 1,000 names, unevenly.
      expect(rows.length).toBeGreaterThan(500);
      expect(Math.max(...rows.map((r) => r.n))).toBeGreaterThan(20_000 / 1000);
    });

    it("C_CREDIT is 'BC' for 10% (within 5%) of each district, 'GC' otherwise", async () => {
      const rows = await sql<{ d: number; bc: number; gc: number }[]>`
        select c_d_id d, count(*) filter (where c_credit = 'BC')::int bc,
          count(*) filter (where c_credit = 'GC')::int gc
        from customer group by c_d_id order by c_d_id`;
      expect(rows).toHaveLength(10);
      for (const r of rows) {
        expect(r.bc + r.gc).toBe(3000);
        expect(r.bc).toBeGreaterThanOrEqual(285);
        expect(r.bc).toBeLessThanOrEqual(315);
      }
    });

    it('C_DATA is an a-string of 300..500 characters', async () => {
      const r = await one<{ lo: number; hi: number; bad: number }>(`select min(length(c_data)) lo,
        max(length(c_data)) hi, count(*) filter (where c_data !~ '^[A-Za-z0-9]+$')::int bad from customer`);
      // With 30,000 draws both ends of the inclusive range occur.
      expect(r).toEqual({ lo: 300, hi: 500, bad: 0 });
    });
  });

  describe('HISTORY (§3.4)', () => {
    it('one row per customer, booked in its own district, H_AMOUNT 10.00, H_DATA 12..24', async () => {
      const perCustomer = await num(`select count(*)::int from customer c
        left join (select h_c_w_id, h_c_d_id, h_c_id, count(*) n from history group by 1, 2, 3) h
          on h.h_c_w_id = c.c_w_id and h.h_c_d_id = c.c_d_id and h.h_c_id = c.c_id
        where h.n is distinct from 1`);
      expect(perCustomer).toBe(0);
      const bad = await num(`select count(*)::int from history where h_d_id is distinct from h_c_d_id
        or h_w_id is distinct from h_c_w_id or h_amount is distinct from 10.00 or h_date is null
        or h_data !~ '^[A-Za-z0-9]{12,24}$'`);
      expect(bad).toBe(0);
      const r = await one<{ lo: number; hi: number }>(
        'select min(length(h_data)) lo, max(length(h_data)) hi from history',
      );
      expect(r).toEqual({ lo: 12, hi: 24 });
    });
  });

  describe('ORDER, NEW-ORDER, ORDER-LINE (§3.5 to §3.7)', () => {
    it('orders 1..3,000 per district; O_C_ID is a permutation of 1..3,000', async () => {
      const rows = await sql<{ n: number; lo: number; hi: number; c: number; clo: number; chi: number }[]>`
        select count(*)::int n, min(o_id) lo, max(o_id) hi,
          count(distinct o_c_id)::int c, min(o_c_id) clo, max(o_c_id) chi
        from orders group by o_w_id, o_d_id`;
      expect(rows).toHaveLength(10);
      for (const r of rows) expect(r).toEqual({ n: 3000, lo: 1, hi: 3000, c: 3000, clo: 1, chi: 3000 });
      const customersWithoutOneOrder = await num(`select count(*)::int from customer c
        left join (select o_w_id, o_d_id, o_c_id, count(*) n from orders group by 1, 2, 3) o
          on o.o_w_id = c.c_w_id and o.o_d_id = c.c_d_id and o.o_c_id = c.c_id
        where o.n is distinct from 1`);
      expect(customersWithoutOneOrder).toBe(0);
    });

    it('O_CARRIER_ID is null exactly for O_ID >= 2,101, and in 1..10 before', async () => {
      const bad = await num(`select count(*)::int from orders where
        (o_id >= 2101 and o_carrier_id is not null)
        or (o_id < 2101 and (o_carrier_id is null or o_carrier_id not between 1 and 10))`);
      expect(bad).toBe(0);
      const carriers = await sql<{ c: number }[]>`
        select distinct o_carrier_id c from orders where o_carrier_id is not null order by 1`;
      expect(carriers.map((r) => r.c)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await num('select count(*)::int from orders where o_carrier_id is null')).toBe(9000);
    });

    it('O_OL_CNT in 5..15 (both ends occur), O_ALL_LOCAL 1, O_ENTRY_D set', async () => {
      const r = await one<{ lo: number; hi: number; avg: string; bad: number }>(`select min(o_ol_cnt) lo,
        max(o_ol_cnt) hi, round(avg(o_ol_cnt), 1)::text avg,
        count(*) filter (where o_all_local is distinct from 1 or o_entry_d is null)::int bad from orders`);
      expect(r.lo).toBe(5);
      expect(r.hi).toBe(15);
      expect(r.bad).toBe(0);
      expect(Number(r.avg)).toBeGreaterThan(9.8);
      expect(Number(r.avg)).toBeLessThan(10.2);
    });

    it('NEW-ORDER holds exactly orders 2,101..3,000 of every district', async () => {
      const outside = await num(
        'select count(*)::int from new_order where no_o_id not between 2101 and 3000',
      );
      expect(outside).toBe(0);
      const missing = await num(`select count(*)::int from orders o where o.o_id between 2101 and 3000
        and not exists (select 1 from new_order n
          where n.no_w_id = o.o_w_id and n.no_d_id = o.o_d_id and n.no_o_id = o.o_id)`);
      expect(missing).toBe(0);
      const dup = await num(`select count(*)::int from (select 1 from new_order
        group by no_w_id, no_d_id, no_o_id having count(*) > 1) x`);
      expect(dup).toBe(0);
    });

    it('lines of orders < 2,101 are delivered at O_ENTRY_D with 0.00', async () => {
      const bad = await num(`select count(*)::int from order_line l
        join orders o on o.o_w_id = l.ol_w_id and o.o_d_id = l.ol_d_id and o.o_id = l.ol_o_id
        where l.ol_o_id < 2101 and (l.ol_delivery_d is null or l.ol_delivery_d <> o.o_entry_d
          or l.ol_amount is distinct from 0.00)`);
      expect(bad).toBe(0);
    });

    it('lines of orders >= 2,101 are undelivered with OL_AMOUNT in 0.01..9,999.99', async () => {
      const r = await one<{ n: number; bad: number; lo: string; hi: string }>(`select count(*)::int n,
        count(*) filter (where ol_delivery_d is not null or ol_amount is null
          or ol_amount not between 0.01 and 9999.99)::int bad,
        min(ol_amount)::text lo, max(ol_amount)::text hi
        from order_line where ol_o_id >= 2101`);
      expect(r.n).toBeGreaterThan(80_000);
      expect(r.bad).toBe(0);
      expect(Number(r.lo)).toBeGreaterThanOrEqual(0.01);
      expect(Number(r.hi)).toBeLessThanOrEqual(9999.99);
      expect(Number(r.hi)).toBeGreaterThan(9900);
    });

    it('every line: OL_QUANTITY 5, OL_SUPPLY_W_ID = W_ID, OL_I_ID in 1..100,000, dist info 24 chars', async () => {
      const bad = await num(`select count(*)::int from order_line where ol_quantity is distinct from 5
        or ol_supply_w_id is distinct from ol_w_id or ol_i_id not between 1 and 100000 or ol_i_id is null
        or ol_dist_info !~ '^[A-Za-z0-9]{24}$'`);
      expect(bad).toBe(0);
    });
  });

  describe('STOCK and ITEM (§3.8, §3.9)', () => {
    it('stock: one row per item of warehouse 1, S_QUANTITY 10..100, counters 0', async () => {
      const r = await one<Record<string, number>>(`select count(distinct s_i_id)::int items,
        min(s_i_id) lo, max(s_i_id) hi, min(s_quantity) qlo, max(s_quantity) qhi,
        count(*) filter (where s_w_id <> 1 or s_ytd is distinct from 0 or s_order_cnt is distinct from 0
          or s_remote_cnt is distinct from 0)::int bad from stock`);
      expect(r).toEqual({ items: 100_000, lo: 1, hi: 100_000, qlo: 10, qhi: 100, bad: 0 });
    });

    it('S_DIST_01..S_DIST_10 are exactly 24 characters', async () => {
      const cols = Array.from({ length: 10 }, (_, i) => `s_dist_${String(i + 1).padStart(2, '0')}`);
      // char(n) pads with spaces: the regex requires 24 real characters.
      const bad = await num(
        `select count(*)::int from stock where ${cols.map((c) => `${c} !~ '^[A-Za-z0-9]{24}$'`).join(' or ')}`,
      );
      expect(bad).toBe(0);
    });

    it('item: I_IM_ID 1..10,000, I_PRICE 1.00..100.00, I_NAME 14..24', async () => {
      const r = await one<Record<string, number | string>>(`select count(distinct i_id)::int items,
        min(i_id) lo, max(i_id) hi, min(i_im_id) imlo, max(i_im_id) imhi,
        min(i_price)::text plo, max(i_price)::text phi,
        min(length(i_name)) nlo, max(length(i_name)) nhi,
        count(*) filter (where i_name !~ '^[A-Za-z0-9]+$')::int bad from item`);
      expect(r).toEqual({
        items: 100_000,
        lo: 1,
        hi: 100_000,
        imlo: 1,
        imhi: 10_000,
        plo: '1.00',
        phi: '100.00',
        nlo: 14,
        nhi: 24,
        bad: 0,
      });
    });

    it.each([
      ['item', 'i_data'],
      ['stock', 's_data'],
    ])('%s: %s is 26..50 characters, 10%% (within 5%) contain ORIGINAL', async (table, col) => {
      const r = await one<{ n: number; orig: number; lo: number; hi: number; bad: number }>(
        `select count(*)::int n, count(*) filter (where ${col} like '%ORIGINAL%')::int orig,
          min(length(${col})) lo, max(length(${col})) hi,
          count(*) filter (where ${col} !~ '^[A-Za-z0-9]+$')::int bad from ${table}`,
      );
      expect(r.lo).toBe(26);
      expect(r.hi).toBe(50);
      expect(r.bad).toBe(0);
      expect(r.orig / r.n).toBeGreaterThanOrEqual(0.095);
      expect(r.orig / r.n).toBeLessThanOrEqual(0.105);
    });
  });

  describe('schema', () => {
    it('money columns are exact numeric (§2)', async () => {
      const money = [
        ['warehouse', 'w_ytd'],
        ['district', 'd_ytd'],
        ['customer', 'c_balance'],
        ['customer', 'c_ytd_payment'],
        ['customer', 'c_credit_lim'],
        ['history', 'h_amount'],
        ['order_line', 'ol_amount'],
        ['item', 'i_price'],
      ];
      const rows = await sql<{ table_name: string; column_name: string; data_type: string }[]>`
        select table_name, column_name, data_type from information_schema.columns
        where table_schema = current_schema() and column_name in ${sql(money.map(([, c]) => c!))}`;
      const types = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r.data_type]));
      for (const [t, c] of money) expect(types.get(`${t}.${c}`), `${t}.${c}`).toBe('numeric');
    });

    it('primary keys exist on the 8 keyed tables (HISTORY has none)', async () => {
      const rows = await sql<{ table_name: string; cols: string }[]>`
        select tc.table_name, string_agg(k.column_name, ',' order by k.ordinal_position) cols
        from information_schema.table_constraints tc
        join information_schema.key_column_usage k
          on k.constraint_name = tc.constraint_name and k.table_schema = tc.table_schema
        where tc.constraint_type = 'PRIMARY KEY' and tc.table_schema = current_schema()
        group by tc.table_name`;
      const keys = Object.fromEntries(rows.map((r) => [r.table_name, r.cols.split(',').sort()]));
      const expected: Record<string, string[]> = {
        warehouse: ['w_id'],
        district: ['d_w_id', 'd_id'],
        customer: ['c_w_id', 'c_d_id', 'c_id'],
        orders: ['o_w_id', 'o_d_id', 'o_id'],
        new_order: ['no_w_id', 'no_d_id', 'no_o_id'],
        order_line: ['ol_w_id', 'ol_d_id', 'ol_o_id', 'ol_number'],
        stock: ['s_w_id', 's_i_id'],
        item: ['i_id'],
      };
      for (const [table, cols] of Object.entries(expected)) expect(keys[table], table).toEqual(cols.sort());
      expect(keys.history).toBeUndefined();
    });

    it('secondary indexes on customer (c_w_id, c_d_id, c_last, c_first) and orders (o_w_id, o_d_id, o_c_id, o_id)', async () => {
      const rows = await sql<{ tablename: string; indexdef: string }[]>`
        select tablename, indexdef from pg_indexes
        where schemaname = current_schema() and tablename in ('customer', 'orders')`;
      const defs = rows.map((r) => `${r.tablename}: ${r.indexdef}`);
      expect(
        defs.some((d) => /^customer: .*\(c_w_id, c_d_id, c_last, c_first\)$/.test(d)),
        defs.join('\n'),
      ).toBe(true);
      expect(
        defs.some((d) => /^orders: .*\(o_w_id, o_d_id, o_c_id, o_id\)$/.test(d)),
        defs.join('\n'),
      ).toBe(true);
    });

    it('txbench_meta records a complete load of 1 warehouse with the seed', async () => {
      const [row] = await sql<
        { meta_value: string }[]
      >`select meta_value from txbench_meta where meta_key = 'load'`;
      expect(JSON.parse(row!.meta_value)).toMatchObject({ status: 'complete', warehouses: 1, seed: SEED });
    });
  });

  describe('reload and drop', () => {
    /** Digests of the seeded columns (not the load-time timestamps). */
    async function fingerprint(): Promise<Record<string, string>> {
      const [r] = await sql<Record<string, string>[]>`select
        (select md5(string_agg(concat_ws('|', i_id, i_im_id, i_name, i_price, i_data), ',' order by i_id))
          from item) item,
        (select md5(string_agg(concat_ws('|', c_d_id, c_id, c_first, c_last, c_credit, c_discount, c_data),
          ',' order by c_d_id, c_id)) from customer) customer,
        (select md5(string_agg(concat_ws('|', o_d_id, o_id, o_c_id, o_carrier_id, o_ol_cnt),
          ',' order by o_d_id, o_id)) from orders) orders,
        (select md5(string_agg(concat_ws('|', ol_d_id, ol_o_id, ol_number, ol_i_id, ol_amount, ol_dist_info),
          ',' order by ol_d_id, ol_o_id, ol_number)) from order_line) order_line,
        (select md5(string_agg(concat_ws('|', s_i_id, s_quantity, s_dist_01, s_dist_10, s_data), ','
          order by s_i_id)) from stock) stock`;
      return r!;
    }

    it('refuses to load over a loaded schema, pointing at `txbench drop`, and leaves it intact', async () => {
      const err: unknown = await loadTpcc(pg.url, { warehouses: 1, seed: SEED }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
      expect((err as UsageError).message).toMatch(/txbench drop/);
      expect(await num('select count(*)::int from warehouse')).toBe(1);
      expect(await num('select count(*)::int from order_line')).toBeGreaterThan(290_000);
    });

    it('--replace with the same seed reproduces the same population', async () => {
      const before = await fingerprint();
      await loadTpcc(pg.url, { warehouses: 1, seed: SEED, replace: true });
      expect(await fingerprint()).toEqual(before);
    });

    /** Every column of every table but the load-time timestamps, one digest per table. */
    async function everyColumn(): Promise<Record<string, string>> {
      const out: Record<string, string> = {};
      for (const table of TABLES) {
        const cols = await sql<{ c: string; t: string }[]>`
          select column_name as c, data_type as t from information_schema.columns
          where table_name = ${table} order by ordinal_position`;
        const kept = cols.filter((c) => !c.t.startsWith('timestamp')).map((c) => c.c);
        const row = `concat_ws('|', ${kept.map((c) => `coalesce(${c}::text, 'NULL')`).join(', ')})`;
        const [r] = await sql.unsafe<{ d: string }[]>(
          `select md5(string_agg(r, ',' order by r)) as d from (select ${row} as r from ${table}) x`,
        );
        out[table] = r!.d;
      }
      return out;
    }

    /** The distinct load-time timestamps, as epoch seconds. */
    async function loadTimes(): Promise<number[]> {
      const rows = await sql<{ t: number }[]>`select distinct extract(epoch from t)::float8 as t from (
          select c_since t from customer union all select h_date from history
          union all select o_entry_d from orders
          union all select ol_delivery_d from order_line where ol_delivery_d is not null) x`;
      return rows.map((r) => r.t);
    }

    it('binary COPY (the default) and text COPY (TXBENCH_COPY_FORMAT=text) load the same rows', async () => {
      expect(result.copyFormat).toBe('binary');
      const binary = await everyColumn();
      const [binaryTime] = await loadTimes();
      process.env.TXBENCH_COPY_FORMAT = 'text';
      let text: Awaited<ReturnType<typeof loadTpcc>>;
      try {
        text = await loadTpcc(pg.url, { warehouses: 1, seed: SEED, replace: true });
      } finally {
        delete process.env.TXBENCH_COPY_FORMAT;
      }
      expect(text.copyFormat).toBe('text');
      expect(await everyColumn()).toEqual(binary);
      // One load time per load; the text load's a little after the binary one's (a wrong epoch or
      // unit in the binary timestamps would put them years or hours apart).
      const times = await loadTimes();
      expect(times).toHaveLength(1);
      expect(times[0]! - binaryTime!).toBeGreaterThan(0);
      expect(times[0]! - binaryTime!).toBeLessThan(600);
    });

    it('dropTpcc removes every TPC-C table and the metadata', async () => {
      await dropTpcc(pg.url);
      const names = [...TABLES, 'txbench_meta'];
      const rows = await sql<{ name: string; reg: string | null }[]>`
        select n as name, to_regclass(n)::text reg from unnest(${names}::text[]) n`;
      expect(rows).toHaveLength(names.length);
      for (const r of rows) expect(r.reg, r.name).toBeNull();
    });
  });
});

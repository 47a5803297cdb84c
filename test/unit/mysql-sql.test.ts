import { describe, expect, it } from 'vitest';
import * as Q from '../../src/workloads/tpcc/mysql/sql.js';

/** The statements of a batch (none of txbench's contain a semicolon of their own). */
const statements = (batch: string): string[] => batch.split(';\n').map((s) => s.replace(/\s+/g, ' ').trim());

describe('SQL literals', () => {
  it('writes integers, exact decimals from cents and quoted strings', () => {
    expect(Q.int(42)).toBe('42');
    expect(() => Q.int(1.5)).toThrow(TypeError);
    expect(() => Q.int(Number.NaN)).toThrow(TypeError);
    expect(Q.cents(123456)).toBe('1234.56');
    expect(Q.cents(5)).toBe('0.05');
    expect(Q.cents(-1000)).toBe('-10.00');
    expect(() => Q.cents(0.5)).toThrow(TypeError);
    expect(Q.str('BARBARBAR')).toBe("'BARBARBAR'");
    expect(Q.str("it's")).toBe("'it''s'");
    expect(() => Q.str('a\\b')).toThrow(TypeError);
    expect(() => Q.str('a\nb')).toThrow(TypeError);
  });

  it('names the S_DIST column of a district', () => {
    expect(Q.distColumn(1)).toBe('s_dist_01');
    expect(Q.distColumn(10)).toBe('s_dist_10');
    expect(() => Q.distColumn(11)).toThrow(RangeError);
  });
});

describe('New-Order', () => {
  it('reads header and items and locks stock in key order in one batch, without touching the district row', () => {
    const s = statements(
      Q.newOrderRead(
        1,
        3,
        42,
        [7, 5],
        [
          { w: 2, i: 9 },
          { w: 1, i: 7 },
          { w: 1, i: 5 },
        ],
      ),
    );
    expect(s[0]).toBe('start transaction');
    expect(s[1]).toMatch(/^select d\.d_tax, w\.w_tax, c\.c_discount, c\.c_last, c\.c_credit from district d/);
    expect(s[1]).toContain('c.c_id = 42');
    expect(s[2]).toBe('select i_id, i_price, i_name, i_data from item where i_id in (7, 5)');
    expect(s[3]).toBe(
      'select s_w_id, s_i_id, s_quantity, s_data, s_dist_03 as dist_info from stock ' +
        'where (s_w_id, s_i_id) in ((1, 5), (1, 7), (2, 9)) order by s_w_id, s_i_id for update',
    );
    expect(s).toHaveLength(4);
    expect(s.join(' ')).not.toContain('update district');
  });

  const changes = [
    { w: 1, i: 5, quantity: 20, ytd: 4, orders: 1, remote: 0 },
    { w: 2, i: 9, quantity: 91, ytd: 3, orders: 1, remote: 1 },
  ];

  const lines = [
    { number: 1, i: 5, supplyW: 1, quantity: 4, amountCents: 1000, distInfo: 'A'.repeat(24) },
    { number: 2, i: 9, supplyW: 2, quantity: 3, amountCents: 29997, distInfo: 'B'.repeat(24) },
  ];
  const write = { w: 1, d: 3, c: 42, olCnt: 2, allLocal: false, changes, lines };

  it('writes stock, claims the order number, inserts order, new-order and lines, then commits', () => {
    const s = statements(Q.newOrderWrite({ ...write, end: 'commit' }));
    expect(s[0]).toBe(
      'update stock set s_quantity = case when s_w_id = 1 and s_i_id = 5 then 20 when s_w_id = 2 and s_i_id = 9 then 91 end, ' +
        's_ytd = s_ytd + case when s_w_id = 1 and s_i_id = 5 then 4 when s_w_id = 2 and s_i_id = 9 then 3 end, ' +
        's_order_cnt = s_order_cnt + case when s_w_id = 1 and s_i_id = 5 then 1 when s_w_id = 2 and s_i_id = 9 then 1 end, ' +
        's_remote_cnt = s_remote_cnt + case when s_w_id = 1 and s_i_id = 5 then 0 when s_w_id = 2 and s_i_id = 9 then 1 end ' +
        'where (s_w_id, s_i_id) in ((1, 5), (2, 9))',
    );
    expect(s[1]).toBe('update district set d_next_o_id = d_next_o_id + 1 where d_w_id = 1 and d_id = 3');
    expect(s[2]).toBe('set @o = (select d_next_o_id - 1 from district where d_w_id = 1 and d_id = 3)');
    expect(s[3]).toBe(
      'insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) ' +
        'values (@o, 3, 1, 42, now(6), null, 2, 0)',
    );
    expect(s[4]).toBe('insert into new_order (no_o_id, no_d_id, no_w_id) values (@o, 3, 1)');
    expect(s[5]).toContain(
      `values (@o, 3, 1, 1, 5, 1, null, 4, 10.00, '${'A'.repeat(24)}'), (@o, 3, 1, 2, 9, 2, null, 3, 299.97, '${'B'.repeat(24)}')`,
    );
    expect(s[6]).toBe('select @o as o_id');
    expect(s[7]).toBe('commit');
  });

  it('for the 1% with an unused item, does the same work for the valid lines and then rolls back', () => {
    const s = statements(Q.newOrderWrite({ ...write, olCnt: 3, end: 'rollback' }));
    expect(s[0]).toMatch(/^update stock set/);
    expect(s[1]).toMatch(/^update district set d_next_o_id = d_next_o_id \+ 1/);
    // O_OL_CNT counts the lines entered, the unused item's included.
    expect(s[3]).toMatch(/^insert into orders .* values \(@o, 3, 1, 42, now\(6\), null, 3, 0\)$/);
    expect(s[4]).toBe('insert into new_order (no_o_id, no_d_id, no_w_id) values (@o, 3, 1)');
    expect(s[5]).toMatch(/^insert into order_line .* values \(@o, 3, 1, 1, 5, .*\), \(@o, 3, 1, 2, 9, .*\)$/);
    expect(s.at(-1)).toBe('rollback');
  });
});

describe('Payment', () => {
  const base = { w: 1, d: 2, cW: 3, cD: 4, amountCents: 123456 };

  it('books the payment on customer, district and warehouse in that order, by customer number', () => {
    const batch = Q.payment({ ...base, customer: { c: 99 } });
    const s = statements(batch);
    expect(s[0]).toBe('start transaction');
    expect(s[1]).toBe('set @c = (select c_id from customer where c_w_id = 3 and c_d_id = 4 and c_id = 99)');
    expect(s[2]).toMatch(
      /^update customer set c_balance = c_balance - 1234\.56, c_ytd_payment = c_ytd_payment \+ 1234\.56/,
    );
    expect(s[2]).toContain(
      "left(concat(c_id, ' ', c_d_id, ' ', c_w_id, ' ', 2, ' ', 1, ' ', 1234.56, ' | ', c_data), 500)",
    );
    expect(s[2]).toMatch(/where c_w_id = 3 and c_d_id = 4 and c_id = @c$/);
    expect(s[4]).toBe(
      'update district set d_ytd = d_ytd + 1234.56 where d_w_id = 1 and d_id = 2 and @c is not null',
    );
    expect(s[5]).toBe('update warehouse set w_ytd = w_ytd + 1234.56 where w_id = 1 and @c is not null');
    expect(s[6]).toMatch(
      /^insert into history .* select @c, 4, 3, 2, 1, now\(6\), 1234\.56, left\(concat\(w_name, .* and @c is not null$/,
    );
    // H_DATA: W_NAME, four spaces, D_NAME, at most 24 characters.
    expect(batch).toContain("left(concat(w_name, '    ', d_name), 24)");
    expect(s.at(-1)).toBe('commit');
  });

  it('chooses the customer by last name at position ceil(n/2) by first name', () => {
    const s = statements(Q.payment({ ...base, customer: { last: 'BARBARBAR' } }));
    expect(s[1]).toBe(
      'set @c = (select c_id from ( select c_id, row_number() over (order by c_first, c_id) as rn, count(*) over () as n ' +
        "from customer where c_w_id = 3 and c_d_id = 4 and c_last = 'BARBARBAR') x where rn = (n + 1) div 2)",
    );
    expect(s[2]).toMatch(/c_id = @c$/);
    expect(s[6]).toContain('select @c, 4, 3, 2, 1');
    expect(s[6]).toMatch(/and @c is not null$/);
  });
});

describe('Order-Status, Delivery, Stock-Level', () => {
  it('reads Order-Status from one repeatable-read snapshot', () => {
    const s = statements(Q.orderStatus(1, 2, { c: 7 }));
    expect(s.slice(0, 2)).toEqual([
      'set transaction isolation level repeatable read',
      'start transaction with consistent snapshot, read only',
    ]);
    expect(s[3]).toBe(
      'set @o = (select o_id from orders where o_w_id = 1 and o_d_id = 2 and o_c_id = 7 order by o_id desc limit 1)',
    );
    expect(s.at(-1)).toBe('commit');
    expect(statements(Q.orderStatus(1, 2, { last: 'ABLEABLEABLE' }))[2]).toMatch(/^set @c = /);
  });

  it('delivers ten districts in one transaction, the oldest new order of each locked and waited for', () => {
    const s = statements(Q.delivery(4, 7));
    expect(s[0]).toBe('start transaction');
    expect(s[1]).toBe(
      'set @o1 = (select no_o_id from new_order where no_w_id = 4 and no_d_id = 1 order by no_o_id limit 1 for update)',
    );
    expect(s[2]).toBe('delete from new_order where no_w_id = 4 and no_d_id = 1 and no_o_id = @o1');
    expect(s[3]).toBe('update orders set o_carrier_id = 7 where o_w_id = 4 and o_d_id = 1 and o_id = @o1');
    expect(s[4]).toBe(
      'update order_line set ol_delivery_d = now(6) where ol_w_id = 4 and ol_d_id = 1 and ol_o_id = @o1',
    );
    expect(s[5]).toContain('c_delivery_cnt = c_delivery_cnt + 1');
    expect(s[46]).toMatch(/^set @o10 = /);
    expect(s[51]).toMatch(/^select @o1 as d1, .* @o10 as d10$/);
    expect(s[52]).toBe('commit');
    expect(s).toHaveLength(53);
    expect(s.join(' ')).not.toContain('skip locked');
  });

  it('counts distinct low-stock items of the last 20 orders', () => {
    const s = statements(Q.stockLevel(1, 2, 15));
    expect(s[0]).toBe('start transaction read only');
    expect(s[1]).toContain('count(distinct s.s_i_id) as low_stock');
    expect(s[1]).toContain('ol.ol_o_id >= dd.d_next_o_id - 20 and ol.ol_o_id < dd.d_next_o_id');
    expect(s[1]).toMatch(/where dd\.d_w_id = 1 and dd\.d_id = 2 and s\.s_quantity < 15$/);
    expect(s[2]).toBe('commit');
  });
});

/**
 * TPC-C on SQL Server without a server: the DDL, each transaction's T-SQL and its parameters for
 * given inputs, the stored procedures (same body, the spec's rules in it), their installation,
 * and the executor over a stand-in pool (both modes, retries, counters).
 */
import { describe, expect, it } from 'vitest';
import type { Db, Row } from '../../src/dialects/dialect.js';
import {
  loadMssql,
  type MssqlModule,
  type MssqlPool,
  type MssqlRequest,
  type MssqlResult,
  type MssqlTypeSpec,
} from '../../src/dialects/mssql/driver.js';
import { RetriesExhaustedError, TxnTimeoutError, type TerminalContext } from '../../src/engine/types.js';
import { DatabaseError } from '../../src/errors.js';
import {
  newOrderInput,
  UNUSED_ITEM_ID,
  type NewOrderInput,
  type RunInputContext,
} from '../../src/workloads/tpcc/inputs.js';
import { mssqlTpcc } from '../../src/workloads/tpcc/mssql/index.js';
import {
  deliveredDistricts,
  mssqlTpccTransactions,
  newOrderOutcome,
} from '../../src/workloads/tpcc/mssql/executor.js';
import { MAX_RETRIES, WorkloadExecutor } from '../../src/workloads/executor.js';
import type { FaultPolicy } from '../../src/workloads/fault-policy.js';
import type { TpccRunState, TpccTerminal } from '../../src/workloads/tpcc/bodies.js';
import {
  INSTALLED_SQL,
  installProcedures,
  procedureDefinition,
  PROCEDURES,
  proceduresToInstall,
} from '../../src/workloads/tpcc/mssql/procedures.js';
import {
  DELIVERY,
  deliveryParams,
  MSSQL_DDL,
  NEW_ORDER,
  newOrderParams,
  ORDER_STATUS,
  orderStatusParams,
  PAYMENT,
  paymentParams,
  STOCK_LEVEL,
  stockLevelParams,
  TRANSACTIONS,
  type ParamValue,
} from '../../src/workloads/tpcc/mssql/sql.js';
import { newTpccCounters, type TpccCounters } from '../../src/workloads/tpcc/profile.js';
import { Rng } from '../../src/random/rng.js';
import {
  afterDataStatements,
  createTableStatement,
  dropStatements,
  TABLES,
} from '../../src/workloads/tpcc/schema.js';

const sql = loadMssql();
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();
const valuesOf = (params: ParamValue[]): Record<string, unknown> =>
  Object.fromEntries(params.map((p) => [p.name, p.value]));

describe('DDL', () => {
  it('creates heaps with T-SQL types: int, varchar, char, exact numeric, datetime2; key columns NOT NULL', () => {
    expect(createTableStatement(MSSQL_DDL, 'warehouse')).toBe(
      'create table warehouse (w_id int not null, w_name varchar(10), w_street_1 varchar(20), ' +
        'w_street_2 varchar(20), w_city varchar(20), w_state char(2), w_zip char(9), w_tax numeric(4,4), ' +
        'w_ytd numeric(12,2))',
    );
    const customer = createTableStatement(MSSQL_DDL, 'customer');
    expect(customer).toContain('c_w_id int not null');
    expect(customer).toContain('c_since datetime2');
    expect(customer).toContain('c_balance numeric(12,2)');
    expect(customer).toContain('c_data varchar(500)');
    expect(createTableStatement(MSSQL_DDL, 'history')).not.toContain('not null');
    for (const t of TABLES)
      expect(createTableStatement(MSSQL_DDL, t)).not.toMatch(/primary key|timestamp|text/);
  });

  it('adds clustered primary keys and the secondary indexes after the data', () => {
    const groups = afterDataStatements(MSSQL_DDL);
    expect(groups.map((g) => g.table)).toEqual([
      'order_line',
      'stock',
      'customer',
      'orders',
      'new_order',
      'item',
      'district',
      'warehouse',
    ]);
    const all = groups.flatMap((g) => g.statements);
    expect(all).toContain(
      'alter table order_line add constraint pk_order_line primary key clustered (ol_w_id, ol_d_id, ol_o_id, ol_number)',
    );
    expect(all).toContain('alter table stock add constraint pk_stock primary key clustered (s_w_id, s_i_id)');
    expect(all).toContain(
      'alter table new_order add constraint pk_new_order primary key clustered (no_w_id, no_d_id, no_o_id)',
    );
    expect(all).toContain(
      'create nonclustered index customer_name_idx on customer (c_w_id, c_d_id, c_last, c_first)',
    );
    expect(all).toContain(
      'create unique nonclustered index orders_customer_idx on orders (o_w_id, o_d_id, o_c_id, o_id)',
    );
    // The key comes before the index on the same table, so the index is built once, on the clustered key.
    const customer = groups.find((g) => g.table === 'customer')!.statements;
    expect(customer[0]).toMatch(/^alter table customer add constraint pk_customer primary key clustered/);
    expect(customer[1]).toMatch(/^create nonclustered index customer_name_idx/);
  });

  it('drops with IF EXISTS and refreshes statistics with UPDATE STATISTICS', () => {
    expect(dropStatements()).toContain('drop table if exists order_line');
    expect(mssqlTpcc.analyze('stock')).toEqual(['update statistics stock']);
    expect(mssqlTpcc.ddl.keysInCreateTable).toBe(false);
    expect(mssqlTpcc.dialect.name).toBe('mssql');
  });
});

describe('transaction T-SQL', () => {
  it('uses T-SQL only: no LIMIT, RETURNING, $n, :: casts or ||', () => {
    for (const tx of TRANSACTIONS) {
      expect(tx.body, tx.procedure).not.toMatch(/\blimit\b|\breturning\b|\$\d|::|\|\||\bnow\(\)/i);
      expect(tx.body, tx.procedure).toMatch(/^set nocount on;/);
      for (const p of tx.params) expect(tx.body, `${tx.procedure} @${p.name}`).toContain(`@${p.name}`);
    }
  });

  it('runs the read-write transactions with XACT_ABORT in one explicit transaction', () => {
    for (const tx of [NEW_ORDER, PAYMENT, DELIVERY, ORDER_STATUS]) {
      expect(tx.body).toContain('set xact_abort on;');
      expect(tx.body).toContain('begin transaction;');
      expect(tx.body).toContain('commit transaction;');
    }
    expect(NEW_ORDER.body).toContain('set transaction isolation level read committed;');
    expect(ORDER_STATUS.body).toContain('set transaction isolation level repeatable read;');
    expect(STOCK_LEVEL.body).toContain('set transaction isolation level read committed;');
  });

  describe('New-Order', () => {
    const body = squash(NEW_ORDER.body);

    it('takes the 15 line slots as a VALUES list, ranked so a repeated stock row is applied in a later pass', () => {
      expect(body).toContain('(1, @i1, @s1, @q1), (2, @i2, @s2, @q2),');
      expect(body).toContain('(15, @i15, @s15, @q15)) as v (n, i, s, q) where v.n <= @ol_cnt;');
      expect(body).toContain('row_number() over (partition by v.s, v.i order by v.n)');
      expect(body).toContain('primary key (k, s, i)');
    });

    it('reads WAREHOUSE and CUSTOMER before it claims the order number from DISTRICT', () => {
      const w = body.indexOf('select @w_tax = w_tax from warehouse where w_id = @w;');
      const c = body.indexOf('from customer where c_w_id = @w and c_d_id = @d and c_id = @c;');
      const d = body.indexOf(
        'update district set @o_id = d_next_o_id = d_next_o_id + 1, @d_tax = d_tax where d_w_id = @w and d_id = @d;',
      );
      expect(w).toBeGreaterThan(0);
      expect(c).toBeGreaterThan(w);
      expect(d).toBeGreaterThan(c);
      expect(body).toContain('set @o_id = @o_id - 1;');
    });

    it('inserts ORDER (O_ALL_LOCAL from the lines) and NEW-ORDER with the claimed number', () => {
      expect(body).toContain('values (@o_id, @d, @w, @c, @entry_d, null, @ol_cnt, @all_local);');
      expect(body).toContain('case when exists (select 1 from @lines where s <> @w) then 0 else 1 end');
      expect(body).toContain('insert into new_order (no_o_id, no_d_id, no_w_id) values (@o_id, @d, @w);');
    });

    it('updates STOCK in key order with the replenish rule (+91 below quantity + 10) and the counters', () => {
      expect(body).toContain(
        's_quantity = case when st.s_quantity >= l.q + 10 then st.s_quantity - l.q else st.s_quantity - l.q + 91 end',
      );
      expect(body).toContain('s_ytd = st.s_ytd + l.q');
      expect(body).toContain('s_order_cnt = st.s_order_cnt + 1');
      expect(body).toContain('s_remote_cnt = st.s_remote_cnt + case when l.s = @w then 0 else 1 end');
      expect(body).toContain(
        'from @lines as l join stock as st with (rowlock) on st.s_w_id = l.s and st.s_i_id = l.i where l.k = @pass option (loop join, force order);',
      );
      expect(body).toContain('case @d when 1 then inserted.s_dist_01');
      expect(body).toContain('when 10 then inserted.s_dist_10 end');
    });

    it('prices each line as quantity × I_PRICE, with S_DIST_xx as OL_DIST_INFO', () => {
      expect(body).toContain('select @o_id, @d, @w, l.n, l.i, l.s, null, l.q, l.q * it.i_price, st.dist');
    });

    it('rolls everything back when an item is not in ITEM, after processing the valid lines', () => {
      const rollback = body.indexOf('if @inserted < @ol_cnt begin');
      expect(rollback).toBeGreaterThan(body.indexOf('insert into order_line'));
      expect(body).toContain('rollback transaction; select 1 as rolled_back');
      expect(body).toContain('commit transaction; select 0 as rolled_back');
      expect(body).toContain(
        "case when it.i_data like '%ORIGINAL%' and st.s_data like '%ORIGINAL%' then 'B' else 'G' end",
      );
      expect(body).toContain('* (1 - @c_discount) * (1 + @w_tax + @d_tax)');
    });

    it('binds every line slot, NULL past the order’s lines', () => {
      const input: NewOrderInput = {
        d: 4,
        c: 1234,
        itemIds: [10, 20, 10, 30, 40],
        supplyWarehouses: [1, 1, 1, 2, 1],
        quantities: [5, 6, 7, 8, 9],
        rollback: false,
        remoteLines: 1,
      };
      const params = newOrderParams(1, input);
      expect(params).toHaveLength(4 + 45);
      expect(params.slice(0, 7)).toEqual([
        { name: 'w', type: 'int', value: 1 },
        { name: 'd', type: 'int', value: 4 },
        { name: 'c', type: 'int', value: 1234 },
        { name: 'ol_cnt', type: 'int', value: 5 },
        { name: 'i1', type: 'int', value: 10 },
        { name: 's1', type: 'int', value: 1 },
        { name: 'q1', type: 'int', value: 5 },
      ]);
      const v = valuesOf(params);
      expect([v.i4, v.s4, v.q4]).toEqual([30, 2, 8]);
      expect([v.i5, v.s5, v.q5]).toEqual([40, 1, 9]);
      expect([v.i6, v.s6, v.q6]).toEqual([null, null, null]);
      expect([v.i15, v.s15, v.q15]).toEqual([null, null, null]);
    });
  });

  describe('Payment', () => {
    const body = squash(PAYMENT.body);

    it('books the amount on the paying warehouse and district, in that order, before the customer', () => {
      const w = body.indexOf('update warehouse set w_ytd = w_ytd + @amount');
      const d = body.indexOf('update district set d_ytd = d_ytd + @amount');
      const c = body.indexOf('update customer set');
      expect(w).toBeGreaterThan(0);
      expect(d).toBeGreaterThan(w);
      expect(c).toBeGreaterThan(d);
      expect(body).toContain('where w_id = @w;');
      expect(body).toContain('where d_w_id = @w and d_id = @d;');
    });

    it('finds a customer by name at position ceil(n/2) by C_FIRST, then C_ID', () => {
      expect(body).toContain(
        'if @c_id is null set @c_id = (select c_id from ( select c_id, row_number() over (order by c_first, c_id) as rn, count(*) over () as n from customer where c_w_id = @c_w and c_d_id = @c_d and c_last = @c_last) x where rn = (n + 1) / 2);',
      );
    });

    it('subtracts from the balance, adds to YTD and the count, and prefixes C_DATA for bad credit only, to 500 characters', () => {
      expect(body).toContain('c_balance = c_balance - @amount');
      expect(body).toContain('c_ytd_payment = c_ytd_payment + @amount');
      expect(body).toContain('c_payment_cnt = c_payment_cnt + 1');
      expect(body).toContain(
        "c_data = case when c_credit = 'BC' then left(concat(c_id, ' ', c_d_id, ' ', c_w_id, ' ', @d, ' ', @w, ' ', @amount, ' | ', c_data), 500) else c_data end",
      );
      expect(body).toContain('where c_w_id = @c_w and c_d_id = @c_d and c_id = @c_id;');
      expect(body).toContain("case when inserted.c_credit = 'BC' then left(inserted.c_data, 200) end");
    });

    it('inserts HISTORY with H_DATA = W_NAME, four spaces, D_NAME, at most 24 characters', () => {
      expect(body).toContain(
        'insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) select @c_id, @c_d, @c_w, @d, @w, @h_date, @amount,',
      );
      // Checked on the text as sent: the four spaces are a literal.
      expect(PAYMENT.body).toContain("left(concat(w.w_name, '    ', d.d_name), 24)");
    });

    it('binds the amount as exact numeric(6,2) text and the customer by id or by name', () => {
      const byId = paymentParams(3, {
        d: 2,
        cW: 5,
        cD: 9,
        customer: { byName: false, c: 77 },
        amountCents: 123456,
      });
      expect(byId).toEqual([
        { name: 'w', type: 'int', value: 3 },
        { name: 'd', type: 'int', value: 2 },
        { name: 'c_w', type: 'int', value: 5 },
        { name: 'c_d', type: 'int', value: 9 },
        { name: 'c_id', type: 'int', value: 77 },
        { name: 'c_last', type: 'varchar(16)', value: null },
        { name: 'amount', type: 'numeric(6,2)', value: '1234.56' },
      ]);
      const byName = valuesOf(
        paymentParams(3, {
          d: 2,
          cW: 3,
          cD: 2,
          customer: { byName: true, last: 'BARBARBAR' },
          amountCents: 100,
        }),
      );
      expect(byName).toMatchObject({ c_id: null, c_last: 'BARBARBAR', amount: '1.00' });
    });
  });

  describe('Order-Status', () => {
    const body = squash(ORDER_STATUS.body);
    it('reads the customer, the newest order with TOP (1) … ORDER BY o_id DESC, and its lines', () => {
      expect(body).toContain('order by c_first, c_id');
      expect(body).toContain('where rn = (n + 1) / 2);');
      expect(body).toContain('and c_last = @c_last');
      expect(body).toContain("if @@rowcount = 0 throw 50005, 'Order-Status: no such customer', 1;");
      expect(body).toContain(
        'select top (1) @o_id = o_id from orders where o_w_id = @w and o_d_id = @d and o_c_id = @c_id order by o_id desc;',
      );
      expect(body).toContain('from order_line where ol_w_id = @w and ol_d_id = @d and ol_o_id = @o_id');
    });
    it('binds the customer by id or by name', () => {
      expect(valuesOf(orderStatusParams(2, { d: 7, customer: { byName: false, c: 42 } }))).toEqual({
        w: 2,
        d: 7,
        c_id: 42,
        c_last: null,
      });
      expect(valuesOf(orderStatusParams(2, { d: 7, customer: { byName: true, last: 'ESEPRI' } }))).toEqual({
        w: 2,
        d: 7,
        c_id: null,
        c_last: 'ESEPRI',
      });
    });
  });

  describe('Delivery', () => {
    const body = squash(DELIVERY.body);
    it('takes each district’s oldest NEW-ORDER with TOP (1) under UPDLOCK, ROWLOCK, never READPAST', () => {
      expect(body).toContain('from (values (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)) as g (d)');
      expect(body).toContain(
        'cross apply (select top (1) no_o_id from new_order with (updlock, rowlock) where no_w_id = @w and no_d_id = g.d order by no_o_id) as n',
      );
      expect(body).not.toMatch(/readpast/i);
    });
    it('deletes it, sets the carrier, dates the lines and credits their sum to the customer', () => {
      expect(body).toContain('delete n from new_order as n join @picked as p on n.no_w_id = @w');
      expect(body).toContain(
        'update o set o_carrier_id = @carrier output inserted.o_d_id, inserted.o_id, inserted.o_c_id',
      );
      expect(body).toContain(
        'update l set ol_delivery_d = @delivery_d output inserted.ol_d_id, inserted.ol_amount',
      );
      expect(body).toContain(
        'update c set c_balance = c.c_balance + t.amount, c_delivery_cnt = c.c_delivery_cnt + 1',
      );
      expect(body).toContain('coalesce(sum(a.amount), 0) as amount');
    });
    it('returns one row per delivered district, so skipped districts can be counted', () => {
      expect(body).toMatch(/commit transaction; .*select d as d_id, o as o_id from @picked order by d;$/);
      expect(valuesOf(deliveryParams(4, 9))).toEqual({ w: 4, carrier: 9 });
      expect(deliveredDistricts({ recordsets: [[{ d_id: 1 }, { d_id: 3 }]], rowsAffected: [] })).toBe(2);
      expect(deliveredDistricts({ recordsets: [[]], rowsAffected: [] })).toBe(0);
    });
  });

  describe('Stock-Level', () => {
    it('counts distinct low-stock items of the last 20 orders', () => {
      const body = squash(STOCK_LEVEL.body);
      expect(body).toContain('select count(distinct s.s_i_id) as low_stock');
      expect(body).toContain('and ol.ol_o_id >= d.d_next_o_id - 20 and ol.ol_o_id < d.d_next_o_id');
      expect(body).toContain('where d.d_w_id = @w and d.d_id = @d and s.s_quantity < @threshold;');
      expect(valuesOf(stockLevelParams(1, 5, 15))).toEqual({ w: 1, d: 5, threshold: 15 });
    });
  });
});

describe('stored procedures', () => {
  it('defines each procedure with CREATE OR ALTER, the same typed parameters and the same body', () => {
    expect(PROCEDURES.map((p) => p.name)).toEqual([
      'txbench_new_order',
      'txbench_payment',
      'txbench_order_status',
      'txbench_delivery',
      'txbench_stock_level',
    ]);
    for (const [i, p] of PROCEDURES.entries()) {
      const tx = TRANSACTIONS[i]!;
      expect(p.sql.startsWith(`create or alter procedure ${tx.procedure}\n`)).toBe(true);
      for (const param of tx.params) expect(p.sql).toContain(`@${param.name} ${param.type} = null`);
      expect(squash(p.sql)).toContain(squash(tx.body));
      expect(p.sql).toContain(p.marker);
      expect(p.marker).toMatch(/^-- txbench [0-9a-f]{16}$/);
      expect(p.sql.trimEnd().endsWith('end')).toBe(true);
    }
    expect(PROCEDURES[1]!.sql).toContain('@amount numeric(6,2) = null');
    expect(PROCEDURES[1]!.sql).toContain('@c_last varchar(16) = null');
  });

  it('carries the rules of the spec', () => {
    const [no, pay, os, del] = PROCEDURES.map((p) => squash(p.sql));
    expect(no).toContain('else st.s_quantity - l.q + 91 end');
    expect(no).toContain('rollback transaction; select 1 as rolled_back');
    expect(pay).toContain('where rn = (n + 1) / 2');
    expect(os).toContain('where rn = (n + 1) / 2');
    expect(pay).toContain("case when c_credit = 'BC' then left(concat(");
    expect(pay).toContain("' | ', c_data), 500) else c_data end");
    expect(del).toContain('with (updlock, rowlock)');
    expect(del).toContain('select d as d_id, o as o_id from @picked order by d;');
  });

  it('changes the marker when the text changes', () => {
    const other = procedureDefinition({ ...STOCK_LEVEL, body: STOCK_LEVEL.body.replace('20', '21') });
    expect(other.marker).not.toBe(PROCEDURES[4]!.marker);
    expect(procedureDefinition(STOCK_LEVEL).marker).toBe(PROCEDURES[4]!.marker);
  });

  it('installs the missing and outdated ones only', () => {
    const [a, b, c, d, e] = PROCEDURES;
    const current = (p: typeof a) => ({ name: p!.name, def: p!.sql });
    expect(proceduresToInstall([current(a), current(b), current(c), current(d), current(e)])).toEqual([]);
    expect(proceduresToInstall([]).map((p) => p.name)).toEqual(PROCEDURES.map((p) => p.name));
    const stale = { name: 'TXBENCH_PAYMENT', def: 'create procedure txbench_payment as select 1' };
    const unreadable = { name: 'txbench_delivery', def: null };
    expect(proceduresToInstall([current(a), stale, current(c), unreadable]).map((p) => p.name)).toEqual([
      'txbench_payment',
      'txbench_stock_level',
    ]);
  });

  function scriptedDb(installed: Row[], fail?: Error): Db & { texts: string[] } {
    const texts: string[] = [];
    return {
      texts,
      query<T extends Row = Row>(text: string): Promise<T[]> {
        texts.push(text);
        if (text === INSTALLED_SQL) return Promise.resolve(installed as T[]);
        return fail ? Promise.reject(fail) : Promise.resolve([]);
      },
      transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
        return work(this);
      },
      close: () => Promise.resolve(),
    };
  }

  it('creates each missing procedure in its own batch', async () => {
    const db = scriptedDb([{ name: 'txbench_new_order', def: PROCEDURES[0]!.sql }]);
    expect(await installProcedures(db, 'tpcc')).toEqual([
      'txbench_payment',
      'txbench_order_status',
      'txbench_delivery',
      'txbench_stock_level',
    ]);
    expect(db.texts).toEqual([INSTALLED_SQL, ...PROCEDURES.slice(1).map((p) => p.sql)]);
  });

  it('turns a missing privilege into one line that says what to grant', async () => {
    const denied = Object.assign(new Error("CREATE PROCEDURE permission denied in database 'tpcc'."), {
      number: 262,
      class: 14,
    });
    const err = await installProcedures(scriptedDb([], denied), 'tpcc').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DatabaseError);
    expect((err as Error).message).toBe(
      "cannot create the stored procedures for --procedures in tpcc: CREATE PROCEDURE permission denied in database 'tpcc'.; grant CREATE PROCEDURE and ALTER on the schema (or run without --procedures)",
    );
    const other = new Error('boom');
    await expect(installProcedures(scriptedDb([], other), 'tpcc')).rejects.toBe(other);
  });
});

interface Call {
  text?: string;
  procedure?: string;
  inputs: { name: string; type: MssqlTypeSpec; value: unknown }[];
}

/** 'hang': the server never answers, until the request is cancelled (then ECANCEL, as the driver's). */
type Answer = (call: Call) => MssqlResult | Error | 'hang';

function scriptedPool(answer: Answer, calls: Call[]): MssqlPool {
  const pool: MssqlPool = {
    connect: () => Promise.resolve(pool),
    close: () => Promise.resolve(),
    acquire: () => Promise.resolve({}),
    release: () => pool,
    on: () => pool,
    request() {
      const call: Call = { inputs: [] };
      let cancel = (): void => undefined;
      const respond = (): Promise<MssqlResult> => {
        calls.push(call);
        const out = answer(call);
        if (out === 'hang') {
          return new Promise((_, reject) => {
            cancel = () =>
              reject(Object.assign(new Error('Canceled.'), { code: 'ECANCEL', name: 'RequestError' }));
          });
        }
        return out instanceof Error ? Promise.reject(out) : Promise.resolve(out);
      };
      const request: MssqlRequest = {
        input(name, type, value) {
          call.inputs.push({ name, type, value });
          return request;
        },
        query(text) {
          call.text = text;
          return respond();
        },
        execute(procedure) {
          call.procedure = procedure;
          return respond();
        },
        bulk: () => Promise.reject(new Error('not used')),
        cancel: () => cancel(),
      };
      return request;
    },
  };
  return pool;
}

const CTX: RunInputContext = { warehouses: 4, constants: { cLast: 100, cId: 200, olIId: 300 } };
const rows = (...r: Row[]): MssqlResult => ({ recordsets: [r], recordset: r, rowsAffected: [] });
const deadlock = (): Error => Object.assign(new Error('deadlock victim'), { number: 1205, class: 13 });

function terminal(seed: number, w = 2, d = 3): TerminalContext & TpccTerminal {
  return { id: 0, w, d, rng: new Rng(seed) };
}

/** The generic executor over the SQL Server transactions, with the terminal's home taken from the call. */
const MssqlTpccExecutor = {
  onPool(
    sql: MssqlModule,
    pool: MssqlPool,
    slots: number,
    ctx: RunInputContext,
    procedures: boolean,
    faults: Partial<FaultPolicy> = {},
  ) {
    const run: TpccRunState = { ctx, committedNewOrders: 0 };
    const homes: TpccTerminal[] = [];
    const ex = new WorkloadExecutor(
      mssqlTpccTransactions(sql, pool, slots, run, { procedures }),
      homes,
      faults,
    );
    return {
      get committedNewOrders(): number {
        return run.committedNewOrders;
      },
      get connections(): number {
        return ex.connections;
      },
      classify: (err: unknown) => ex.classify(err),
      execute(slot: number, type: number, t: TerminalContext & TpccTerminal, counters: TpccCounters) {
        homes[t.id] = { w: t.w, d: t.d };
        return ex.execute(slot, type, t, counters);
      },
    };
  },
};

/** A seed whose first New-Order input has (or has not) the unused item. */
function seedFor(rollback: boolean): number {
  for (let s = 1; ; s++) if (newOrderInput(new Rng(s), 2, CTX).rollback === rollback) return s;
}

describe('MssqlTpccExecutor', () => {
  it('cancels a request the server does not answer within the transaction timeout, as a timeout', async () => {
    const calls: Call[] = [];
    const ex = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => 'hang', calls),
      2,
      CTX,
      false,
      {
        txnTimeoutMs: 100,
      },
    );
    const err = await ex.execute(1, 1, terminal(7), newTpccCounters()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TxnTimeoutError);
    expect(ex.classify(err)).toBe('timeout');
    expect(((err as TxnTimeoutError).lastError as { code: string }).code).toBe('ECANCEL');
    expect(calls).toHaveLength(1);
  });

  it('sends New-Order as one parameterized batch and counts a commit', async () => {
    const calls: Call[] = [];
    const ex = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => rows({ rolled_back: 0, o_id: 3001 }), calls),
      8,
      CTX,
      false,
    );
    const counters = newTpccCounters();
    const seed = seedFor(false);
    const input = newOrderInput(new Rng(seed), 2, CTX);
    expect(await ex.execute(0, 0, terminal(seed), counters)).toBe(0);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.text).toBe(NEW_ORDER.body);
    expect(calls[0]!.inputs.map((i) => i.name)).toEqual(NEW_ORDER.params.map((p) => p.name));
    expect(calls[0]!.inputs[0]).toEqual({ name: 'w', type: sql.Int(), value: 2 });
    expect(calls[0]!.inputs[3]!.value).toBe(input.itemIds.length);
    expect(ex.committedNewOrders).toBe(1);
    expect(counters.orderLines).toBe(input.itemIds.length);
    expect(counters.newOrderRollbacks).toBe(0);
    expect(ex.connections).toBe(8);
  });

  it('counts the 1% rollback as a completed New-Order, and refuses an unexpected outcome', async () => {
    const seed = seedFor(true);
    const input = newOrderInput(new Rng(seed), 2, CTX);
    expect(input.itemIds[input.itemIds.length - 1]).toBe(UNUSED_ITEM_ID);
    const ex = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => rows({ rolled_back: 1 }), []),
      1,
      CTX,
      false,
    );
    const counters = newTpccCounters();
    await ex.execute(0, 0, terminal(seed), counters);
    expect(counters.newOrderRollbacks).toBe(1);
    expect(ex.committedNewOrders).toBe(0);
    await expect(ex.execute(0, 0, terminal(seedFor(false)), newTpccCounters())).rejects.toThrow(
      /missing from ITEM/,
    );
    expect(() => newOrderOutcome(rows({ rolled_back: 0 }), true)).toThrow(/should not exist/);
    expect(() => newOrderOutcome({ recordsets: [], rowsAffected: [] }, false)).toThrow(/no outcome/);
  });

  it('calls the procedure with the same parameters in procedure mode', async () => {
    const calls: Call[] = [];
    const ex = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => rows({ low_stock: 3 }), calls),
      1,
      CTX,
      true,
    );
    await ex.execute(0, 4, terminal(5, 2, 7), newTpccCounters());
    expect(calls[0]!.procedure).toBe('txbench_stock_level');
    expect(calls[0]!.text).toBeUndefined();
    expect(calls[0]!.inputs.slice(0, 2).map((i) => i.value)).toEqual([2, 7]);
    const payment: Call[] = [];
    const ex2 = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => rows({}), payment),
      1,
      CTX,
      true,
    );
    await ex2.execute(0, 1, terminal(9), newTpccCounters());
    expect(payment[0]!.procedure).toBe('txbench_payment');
    const amount = payment[0]!.inputs.find((i) => i.name === 'amount')!;
    expect(amount.type).toEqual(sql.Numeric(6, 2));
    expect(amount.value).toMatch(/^\d+\.\d\d$/);
  });

  it('retries a deadlock and reports the retries', async () => {
    let n = 0;
    const ex = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => (++n <= 2 ? deadlock() : rows({ d_id: 1 }, { d_id: 2 })), []),
      1,
      CTX,
      false,
    );
    const counters = newTpccCounters();
    expect(await ex.execute(0, 3, terminal(1), counters)).toBe(2);
    expect(counters.deliveredDistricts).toBe(2);
    expect(counters.skippedDistricts).toBe(8);
    expect(counters.deliveriesWithSkips).toBe(1);
  });

  it('gives up after MAX_RETRIES deadlocks, and does not retry other errors', async () => {
    const calls: Call[] = [];
    const ex = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => deadlock(), calls),
      1,
      CTX,
      false,
    );
    const err = await ex.execute(0, 2, terminal(1), newTpccCounters()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetriesExhaustedError);
    expect((err as RetriesExhaustedError).retries).toBe(MAX_RETRIES);
    expect((err as RetriesExhaustedError).errorClass).toBe('deadlock');
    expect(calls).toHaveLength(MAX_RETRIES + 1);

    const lost = Object.assign(new Error('Connection lost'), { code: 'ESOCKET' });
    const once: Call[] = [];
    const ex2 = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => lost, once),
      1,
      CTX,
      false,
    );
    await expect(ex2.execute(0, 1, terminal(1), newTpccCounters())).rejects.toBe(lost);
    // Not retried; the slot's reconnect proves the pool can connect again with one `select 1`.
    expect(once.filter((c) => c.text !== 'select 1')).toHaveLength(1);
    expect(ex2.classify(lost)).toBe('connection');
  });

  it('counts a full Delivery without skips', async () => {
    const ten = rows(...Array.from({ length: 10 }, (_, i) => ({ d_id: i + 1, o_id: 2101 })));
    const ex = MssqlTpccExecutor.onPool(
      sql,
      scriptedPool(() => ten, []),
      1,
      CTX,
      false,
    );
    const counters = newTpccCounters();
    await ex.execute(0, 3, terminal(1), counters);
    expect(counters).toMatchObject({ deliveredDistricts: 10, skippedDistricts: 0, deliveriesWithSkips: 0 });
  });
});

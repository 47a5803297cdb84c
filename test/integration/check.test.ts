/**
 * The consistency conditions of check.ts (tpcc-facts.md §11) against a real loaded database:
 * a fresh load passes everything; each targeted corruption fails exactly the conditions it
 * should; the legal TPC-C transactions (Payment, New-Order, Delivery) keep 1-10 and 12.
 *
 * Corruptions run inside a transaction that is always rolled back, with the checks evaluated on
 * that transaction's connection, so every case starts from the pristine load.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresDb, postgresDialect } from '../../dist/dialects/postgres/dialect.js';
import type { Sql } from '../../dist/dialects/postgres/connect.js';
import { checkDatabase } from '../../dist/workloads/tpcc/check-database.js';
import { UsageError } from '../../dist/errors.js';
import {
  consistencyConditions,
  LOAD_ONLY_CONDITION,
  populationChecks,
  runChecks,
  type CheckDefinition,
  type CheckResult,
} from '../../dist/workloads/tpcc/check.js';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import { startTempServer, withDatabase, type TempServer } from './helpers.js';

const CONSISTENCY_CONDITIONS = consistencyConditions(postgresDialect.sql);
const ALL_CONDITIONS: readonly CheckDefinition[] = [...CONSISTENCY_CONDITIONS, LOAD_ONLY_CONDITION];

class Rollback extends Error {
  constructor(readonly results: CheckResult[]) {
    super('rollback');
  }
}

/** The ids that failed, with their violation counts. */
function failures(results: readonly CheckResult[]): Record<string, number> {
  return Object.fromEntries(results.filter((r) => !r.pass).map((r) => [r.id, r.violations]));
}

/** Delivery (§6) of order `o` of warehouse 1, district `d`, optionally without its NEW-ORDER delete. */
function delivery(d: number, o: number, { deleteNewOrder = true } = {}): string[] {
  const order = `o_w_id = 1 and o_d_id = ${d} and o_id = ${o}`;
  const lines = `ol_w_id = 1 and ol_d_id = ${d} and ol_o_id = ${o}`;
  return [
    ...(deleteNewOrder
      ? [`delete from new_order where no_w_id = 1 and no_d_id = ${d} and no_o_id = ${o}`]
      : []),
    `update orders set o_carrier_id = 3 where ${order}`,
    `update order_line set ol_delivery_d = localtimestamp where ${lines}`,
    `update customer set c_balance = c_balance + (select sum(ol_amount) from order_line where ${lines}),
       c_delivery_cnt = c_delivery_cnt + 1
     where c_w_id = 1 and c_d_id = ${d} and c_id = (select o_c_id from orders where ${order})`,
  ];
}

interface Case {
  name: string;
  statements: string[];
  /** Exactly the conditions that must fail, with their violation counts where they are certain. */
  fails: Record<string, number | 'any'>;
}

const CASES: Case[] = [
  {
    name: '1 (and 8): W_YTD + 1',
    statements: ['update warehouse set w_ytd = w_ytd + 1 where w_id = 1'],
    fails: { '1': 1, '8': 1 },
  },
  {
    name: '2: D_NEXT_O_ID + 1',
    statements: ['update district set d_next_o_id = d_next_o_id + 1 where d_w_id = 1 and d_id = 1'],
    fails: { '2': 1 },
  },
  {
    name: '2 (and 11): a delivered order appears without a NEW-ORDER row, so max(NO_O_ID) lags',
    statements: [
      `update district set d_next_o_id = d_next_o_id + 1 where d_w_id = 1 and d_id = 4`,
      `insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
         values (3001, 4, 1, 9, localtimestamp, 5, 1, 1)`,
      `insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
         ol_quantity, ol_amount, ol_dist_info)
       values (3001, 4, 1, 1, 8, 1, localtimestamp, 5, 0.00, 'abcdefghijklmnopqrstuvwx')`,
    ],
    fails: { '2': 1, '11': 1 },
  },
  {
    name: '3 (and 5, 11): a NEW-ORDER row deleted from the middle',
    statements: ['delete from new_order where no_w_id = 1 and no_d_id = 1 and no_o_id = 2500'],
    fails: { '3': 1, '5': 1, '11': 1 },
  },
  {
    name: '3 (and 11): a middle order delivered out of turn',
    statements: delivery(2, 2500),
    fails: { '3': 1, '11': 1 },
  },
  {
    name: '4 and 6: an undelivered order loses a line',
    statements: [
      'delete from order_line where ol_w_id = 1 and ol_d_id = 1 and ol_o_id = 2500 and ol_number = 1',
    ],
    fails: { '4': 1, '6': 1 },
  },
  {
    name: '6 only: a line moves to another order of the same district',
    statements: [
      `update order_line set ol_o_id = 2501, ol_number = 99
       where ol_w_id = 1 and ol_d_id = 1 and ol_o_id = 2500 and ol_number = 1`,
    ],
    fails: { '6': 2 },
  },
  {
    name: '5 (and 7): an undelivered order gets a carrier',
    statements: ['update orders set o_carrier_id = 1 where o_w_id = 1 and o_d_id = 1 and o_id = 2500'],
    fails: { '5': 1, '7': 'any' },
  },
  {
    name: '5 only: an order delivered but still queued in NEW-ORDER',
    statements: delivery(3, 2500, { deleteNewOrder: false }),
    fails: { '5': 1 },
  },
  {
    name: '7 only: a delivered line (amount 0.00) loses its delivery date',
    statements: [
      `update order_line set ol_delivery_d = null
       where ol_w_id = 1 and ol_d_id = 1 and ol_o_id = 1 and ol_number = 1`,
    ],
    fails: { '7': 1 },
  },
  {
    name: '7 (and 10, 12): an undelivered line gets a delivery date',
    statements: [
      `update order_line set ol_delivery_d = localtimestamp
       where ol_w_id = 1 and ol_d_id = 1 and ol_o_id = 2500 and ol_number = 1`,
    ],
    fails: { '7': 1, '10': 1, '12': 1 },
  },
  {
    name: '8 (and 9): W_YTD and one D_YTD + 1 together',
    statements: [
      'update warehouse set w_ytd = w_ytd + 1 where w_id = 1',
      'update district set d_ytd = d_ytd + 1 where d_w_id = 1 and d_id = 5',
    ],
    fails: { '8': 1, '9': 1 },
  },
  {
    name: '9 only: 1.00 of D_YTD moved between districts',
    statements: [
      'update district set d_ytd = d_ytd - 1 where d_w_id = 1 and d_id = 1',
      'update district set d_ytd = d_ytd + 1 where d_w_id = 1 and d_id = 2',
    ],
    fails: { '9': 2 },
  },
  {
    name: '10 and 12: C_BALANCE + 1',
    statements: [
      'update customer set c_balance = c_balance + 1 where c_w_id = 1 and c_d_id = 1 and c_id = 1',
    ],
    fails: { '10': 1, '12': 1 },
  },
  {
    name: '10 only: C_BALANCE + 1 with C_YTD_PAYMENT - 1',
    statements: [
      `update customer set c_balance = c_balance + 1, c_ytd_payment = c_ytd_payment - 1
       where c_w_id = 1 and c_d_id = 6 and c_id = 77`,
    ],
    fails: { '10': 1 },
  },
  {
    name: '12 only: C_YTD_PAYMENT + 1',
    statements: [
      'update customer set c_ytd_payment = c_ytd_payment + 1 where c_w_id = 1 and c_d_id = 7 and c_id = 3000',
    ],
    fails: { '12': 1 },
  },
  {
    name: '11 only: the oldest undelivered order delivered (a legal Delivery)',
    statements: delivery(1, 2101),
    fails: { '11': 1 },
  },
  {
    name: 'none: a legal Payment (remote district, 5.00)',
    statements: [
      'update warehouse set w_ytd = w_ytd + 5.00 where w_id = 1',
      'update district set d_ytd = d_ytd + 5.00 where d_w_id = 1 and d_id = 2',
      `update customer set c_balance = c_balance - 5.00, c_ytd_payment = c_ytd_payment + 5.00,
         c_payment_cnt = c_payment_cnt + 1 where c_w_id = 1 and c_d_id = 8 and c_id = 7`,
      `insert into history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
         values (7, 8, 1, 2, 1, localtimestamp, 5.00, 'payment')`,
    ],
    fails: {},
  },
  {
    name: 'none: a legal New-Order of 2 lines',
    statements: [
      'update district set d_next_o_id = d_next_o_id + 1 where d_w_id = 1 and d_id = 3',
      `insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
         values (3001, 3, 1, 42, localtimestamp, null, 2, 1)`,
      'insert into new_order (no_o_id, no_d_id, no_w_id) values (3001, 3, 1)',
      `insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
         ol_quantity, ol_amount, ol_dist_info)
       values (3001, 3, 1, 1, 17, 1, null, 3, 12.34, 'abcdefghijklmnopqrstuvwx'),
              (3001, 3, 1, 2, 99, 1, null, 1, 5.00, 'abcdefghijklmnopqrstuvwx')`,
    ],
    fails: {},
  },
  {
    name: 'none but 11: a legal New-Order followed by two Deliveries',
    statements: [
      'update district set d_next_o_id = d_next_o_id + 1 where d_w_id = 1 and d_id = 9',
      `insert into orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
         values (3001, 9, 1, 5, localtimestamp, null, 1, 1)`,
      'insert into new_order (no_o_id, no_d_id, no_w_id) values (3001, 9, 1)',
      `insert into order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
         ol_quantity, ol_amount, ol_dist_info)
       values (3001, 9, 1, 1, 3, 1, null, 2, 40.00, 'abcdefghijklmnopqrstuvwx')`,
      ...delivery(9, 2101),
      ...delivery(9, 2102),
    ],
    fails: { '11': 1 },
  },
];

describe('consistency checks on a loaded database', () => {
  let pg: TempServer;
  let sql: postgres.Sql;

  /** Applies `statements` in a transaction, evaluates `checks` inside it, and rolls back. */
  async function checkAfter(
    statements: readonly string[],
    checks: readonly CheckDefinition[] = ALL_CONDITIONS,
  ): Promise<CheckResult[]> {
    try {
      await sql.begin(async (tx) => {
        for (const statement of statements) await tx.unsafe(statement);
        // A transaction has `unsafe` on its own connection, which is all the Db adapter uses.
        throw new Rollback(await runChecks(postgresDb(tx as unknown as Sql), checks));
      });
    } catch (err) {
      if (err instanceof Rollback) return err.results;
      throw err;
    }
    throw new Error('unreachable: the transaction always rolls back');
  }

  beforeAll(async () => {
    pg = await startTempServer();
    await loadTpcc(pg.url, { warehouses: 1, seed: 7 });
    sql = postgres(pg.url, { max: 2, onnotice: () => undefined });
  });

  afterAll(async () => {
    await sql?.end({ timeout: 5 });
    await pg?.stop();
  });

  it('checkDatabase(url, true): a fresh load passes 1-12 and every population check', async () => {
    const results = await checkDatabase(pg.url, true);
    expect(failures(results)).toEqual({});
    const ids = results.map((r) => r.id);
    for (const id of ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12'])
      expect(ids).toContain(id);
    for (const p of populationChecks(postgresDialect.sql, 1)) expect(ids).toContain(p.id);
    expect(ids.length).toBe(12 + populationChecks(postgresDialect.sql, 1).length);
  });

  it('checkDatabase(url, false): conditions 1-10 and 12 only', async () => {
    const results = await checkDatabase(pg.url, false);
    expect(results.map((r) => r.id).sort()).toEqual(
      ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '12'].sort(),
    );
    expect(failures(results)).toEqual({});
  });

  it.each(CASES)('condition $name', async ({ statements, fails }) => {
    const failed = failures(await checkAfter(statements));
    expect(Object.keys(failed).sort()).toEqual(Object.keys(fails).sort());
    for (const [id, count] of Object.entries(fails)) {
      if (count === 'any') expect(failed[id]).toBeGreaterThan(0);
      else expect(failed[id], `violations of ${id}`).toBe(count);
    }
  });

  it('population checks catch a missing item and a changed initial value', async () => {
    const results = await checkAfter(
      [
        'delete from item where i_id = 500',
        "update customer set c_middle = 'XX' where c_w_id = 1 and c_d_id = 1 and c_id = 1",
      ],
      populationChecks(postgresDialect.sql, 1),
    );
    const failed = failures(results);
    expect(failed['rows:item']).toBe(1);
    const customerRule = results.find((r) => r.title.startsWith('customer fixed values'));
    expect(customerRule?.violations).toBe(1);
    expect(Object.keys(failed)).toHaveLength(2);
  });

  it('checkDatabase sees a committed corruption, and passes again once it is undone', async () => {
    await sql`update warehouse set w_ytd = w_ytd + 1 where w_id = 1`;
    try {
      const results = await checkDatabase(pg.url, false);
      expect(failures(results)).toEqual({ '1': 1, '8': 1 });
      // The same through runChecks on this test's own pool.
      expect(failures(await runChecks(postgresDb(sql as unknown as Sql), CONSISTENCY_CONDITIONS))).toEqual({
        '1': 1,
        '8': 1,
      });
    } finally {
      await sql`update warehouse set w_ytd = w_ytd - 1 where w_id = 1`;
    }
    expect(failures(await checkDatabase(pg.url, true))).toEqual({});
  });

  it('every rolled-back case left the load untouched', async () => {
    const [w] = await sql<{ ytd: string }[]>`select w_ytd::text ytd from warehouse`;
    expect(w?.ytd).toBe('300000.00');
    expect(failures(await checkDatabase(pg.url, true))).toEqual({});
  });

  it('refuses an empty database and an interrupted load with a UsageError', async () => {
    await sql.unsafe('create database txbench_empty');
    await sql.unsafe('create database txbench_interrupted');
    const interrupted = postgres(withDatabase(pg.url, 'txbench_interrupted'), {
      max: 1,
      onnotice: () => undefined,
    });
    try {
      await interrupted`create table txbench_meta (meta_key varchar(64) primary key, meta_value varchar(4000))`;
      const meta = {
        status: 'loading',
        warehouses: 1,
        seed: 1,
        loadConstants: { cLast: 100, cId: 200, olIId: 300 },
        startedAt: new Date().toISOString(),
      };
      await interrupted`insert into txbench_meta values ('load', ${JSON.stringify(meta)})`;
    } finally {
      await interrupted.end({ timeout: 5 });
    }
    const empty = await checkDatabase(withDatabase(pg.url, 'txbench_empty'), false).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(UsageError);
    expect((empty as Error).message).toMatch(/txbench load/);
    const partial = await checkDatabase(withDatabase(pg.url, 'txbench_interrupted'), false).catch(
      (e: unknown) => e,
    );
    expect(partial).toBeInstanceOf(UsageError);
    expect((partial as Error).message).toMatch(/interrupted/);
  });
});

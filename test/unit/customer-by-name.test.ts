/**
 * One by-name rule (clauses 2.5.2.2 and 2.6.2.2) in every dialect and mode: customers sorted by
 * C_FIRST then C_ID, the one at position ceil(n/2). Equal first names must not leave the choice
 * to a database's scan order.
 */
import { describe, expect, it } from 'vitest';
import {
  BY_NAME_ORDER,
  byNamePosition,
  customerByNameQuery,
  describeCustomer,
} from '../../src/workloads/tpcc/customer-by-name.js';
import {
  ORDER_STATUS as MSSQL_ORDER_STATUS,
  PAYMENT as MSSQL_PAYMENT,
} from '../../src/workloads/tpcc/mssql/sql.js';
import { procedureDefinition as mysqlProcedure } from '../../src/workloads/tpcc/mysql/procedures.js';
import * as MQ from '../../src/workloads/tpcc/mysql/sql.js';
import { PROCEDURE_DEFINITIONS as PG_PROCEDURES } from '../../src/workloads/tpcc/postgres/procedures.js';
import * as PQ from '../../src/workloads/tpcc/postgres/sql.js';
import { CUSTOMERS_BY_NAME as SQLITE_CUSTOMERS_BY_NAME } from '../../src/workloads/tpcc/sqlite/sql.js';

const squash = (s: string): string => s.replace(/\s+/g, ' ');

/** Every ORDER BY that starts at C_FIRST, in the text. */
function byNameOrders(sql: string): string[] {
  return [...squash(sql).matchAll(/order by c_first[a-z_, ]*/g)].map((m) =>
    m[0].replace(/[ ,]+(as|rn)?$/, ''),
  );
}

const pgProcedure = (name: string): string => PG_PROCEDURES.find((p) => p.name === name)!.sql;

const BY_NAME_SQL: Record<string, string> = {
  'PostgreSQL client-SQL Payment': PQ.PAYMENT_BY_NAME,
  'PostgreSQL client-SQL Order-Status': PQ.OS_BY_NAME.join('\n'),
  'PostgreSQL procedure Payment': pgProcedure('tpcc_payment'),
  'PostgreSQL procedure Order-Status': pgProcedure('tpcc_order_status'),
  'MySQL client-SQL Payment': MQ.payment({
    w: 1,
    d: 2,
    cW: 1,
    cD: 2,
    customer: { last: 'BAR' },
    amountCents: 100,
  }),
  'MySQL client-SQL Order-Status': MQ.orderStatus(1, 2, { last: 'BAR' }),
  'MySQL procedure Payment': mysqlProcedure('txbench_payment'),
  'MySQL procedure Order-Status': mysqlProcedure('txbench_order_status'),
  'SQL Server Payment (both modes)': MSSQL_PAYMENT.body,
  'SQL Server Order-Status (both modes)': MSSQL_ORDER_STATUS.body,
  'SQLite Payment and Order-Status': SQLITE_CUSTOMERS_BY_NAME,
};

describe('the by-name rule', () => {
  it('takes position ceil(n/2), 1-based', () => {
    expect([1, 2, 3, 4, 5, 6].map(byNamePosition)).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('renders one window query per dialect, with the integer division of each', () => {
    const pg = squash(customerByNameQuery('c_w_id = $1 and c_d_id = $2 and c_last = $3', '/'));
    expect(pg).toBe(
      'select c_id from ( select c_id, row_number() over (order by c_first, c_id) as rn, count(*) over () as n ' +
        'from customer where c_w_id = $1 and c_d_id = $2 and c_last = $3) x where rn = (n + 1) / 2',
    );
    expect(squash(customerByNameQuery('true', 'div'))).toMatch(/where rn = \(n \+ 1\) div 2$/);
  });

  for (const [where, sql] of Object.entries(BY_NAME_SQL)) {
    it(`orders by C_FIRST, then C_ID: ${where}`, () => {
      const orders = byNameOrders(sql);
      expect(orders.length).toBeGreaterThan(0);
      for (const o of orders) expect(o).toBe(`order by ${BY_NAME_ORDER}`);
    });
  }

  it('names the customer it looked for in errors', () => {
    expect(describeCustomer(1, 2, { byName: true, last: 'BARBARBAR' })).toBe('named BARBARBAR in (1, 2)');
    expect(describeCustomer(1, 2, { byName: false, c: 3 })).toBe('(1, 2, 3)');
  });
});

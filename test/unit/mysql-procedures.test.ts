import { describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/errors.js';
import { parseMysqlUrl } from '../../src/dialects/mysql/url.js';
import {
  callDelivery,
  callNewOrder,
  callOrderStatus,
  callPayment,
  callStockLevel,
  describeProcedureError,
  procedureComment,
  procedureDefinition,
  PROCEDURE_NAMES,
} from '../../src/workloads/tpcc/mysql/procedures.js';

describe('procedure definitions', () => {
  it('defines the five transactions', () => {
    expect(PROCEDURE_NAMES).toEqual([
      'txbench_new_order',
      'txbench_payment',
      'txbench_order_status',
      'txbench_delivery',
      'txbench_stock_level',
    ]);
  });

  it('marks each with a comment that changes with its text', () => {
    const comments = PROCEDURE_NAMES.map(procedureComment);
    for (const c of comments) expect(c).toMatch(/^txbench [0-9a-f]{16}$/);
    expect(new Set(comments).size).toBe(5);
    expect(() => procedureComment('nope')).toThrow(RangeError);
  });

  it('writes CREATE PROCEDURE with parameters, data access, comment and body', () => {
    for (const name of PROCEDURE_NAMES) {
      const sql = procedureDefinition(name);
      expect(sql).toMatch(new RegExp(`^create procedure ${name}\\(in p_w int, `));
      expect(sql).toContain(`comment '${procedureComment(name)}'\nbegin`);
      expect(sql).toMatch(/\nend$/);
      // Every error rolls back and reaches the client with its own number (deadlocks are retried).
      expect(sql).toContain('declare exit handler for sqlexception begin rollback; resignal; end;');
    }
  });

  it('locks what the client-side SQL locks', () => {
    expect(procedureDefinition('txbench_new_order')).toContain(
      'from stock where s_w_id = v_sw and s_i_id = v_i for update',
    );
    expect(procedureDefinition('txbench_delivery')).toMatch(/order by no_o_id limit 1 for update/);
    expect(procedureDefinition('txbench_delivery')).not.toContain('skip locked');
    expect(procedureDefinition('txbench_order_status')).toContain(
      'set transaction isolation level repeatable read',
    );
    expect(procedureDefinition('txbench_payment')).toContain('order by c_first, c_id');
    expect(procedureDefinition('txbench_payment')).toContain('where rn = (n + 1) div 2');
  });
});

describe('procedure calls', () => {
  it('passes a New-Order’s lines sorted by stock key, each with its own OL_NUMBER', () => {
    const sql = callNewOrder(1, {
      d: 3,
      c: 42,
      itemIds: [500, 20, 100001, 7, 20],
      supplyWarehouses: [1, 2, 1, 1, 1],
      quantities: [1, 2, 3, 4, 5],
      rollback: true,
      remoteLines: 1,
    });
    expect(sql).toBe(
      "call txbench_new_order(1, 3, 42, 0, '4,5,1,3,2', '7,20,500,100001,20', '1,1,1,1,2', '4,5,1,3,2')",
    );
  });

  it('marks an all-local order', () => {
    const sql = callNewOrder(2, {
      d: 1,
      c: 1,
      itemIds: [3, 1],
      supplyWarehouses: [2, 2],
      quantities: [9, 8],
      rollback: false,
      remoteLines: 0,
    });
    expect(sql).toBe("call txbench_new_order(2, 1, 1, 1, '2,1', '1,3', '2,2', '8,9')");
  });

  it('passes the customer by number or by name, and money as an exact decimal', () => {
    const base = { w: 1, d: 2, cW: 3, cD: 4, amountCents: 100 };
    expect(callPayment({ ...base, customer: { c: 5 } })).toBe(
      'call txbench_payment(1, 2, 3, 4, 5, null, 1.00)',
    );
    expect(callPayment({ ...base, customer: { last: 'PRICALLYOUGHT' } })).toBe(
      "call txbench_payment(1, 2, 3, 4, null, 'PRICALLYOUGHT', 1.00)",
    );
    expect(callOrderStatus(1, 2, { c: 9 })).toBe('call txbench_order_status(1, 2, 9, null)');
    expect(callOrderStatus(1, 2, { last: 'BAR' })).toBe("call txbench_order_status(1, 2, null, 'BAR')");
    expect(callDelivery(1, 10)).toBe('call txbench_delivery(1, 10)');
    expect(callStockLevel(1, 2, 15)).toBe('call txbench_stock_level(1, 2, 15)');
  });
});

describe('procedure errors', () => {
  const s = parseMysqlUrl('mysql://bench:pw@h/tpcc', {});
  const err = (errno: number): Error => Object.assign(new Error('denied'), { errno });

  it('names the missing privilege in one line', () => {
    expect(describeProcedureError(err(1044), s, 'create').message).toMatch(
      /^--procedures needs the CREATE ROUTINE privilege, which bench lacks on tpcc.*grant create routine, alter routine, execute on tpcc\.\* to bench/,
    );
    expect(describeProcedureError(err(1370), s, 'replace').message).toMatch(
      /needs the ALTER ROUTINE privilege/,
    );
    expect(describeProcedureError(err(1370), s, 'call').message).toMatch(/needs the EXECUTE privilege/);
    expect(describeProcedureError(err(1419), s, 'create').message).toMatch(/log_bin_trust_function_creators/);
    for (const n of [1044, 1370, 1419, 1064]) {
      const e = describeProcedureError(err(n), s, 'create');
      expect(e).toBeInstanceOf(DatabaseError);
      expect(e.message).not.toContain('\n');
    }
  });
});

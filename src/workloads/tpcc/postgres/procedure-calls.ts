/**
 * `--procedures`: each transaction is one call of a PL/pgSQL function (procedures.ts), so one
 * round trip; the functions are installed (or replaced by a newer version) on first use.
 */
import { DatabaseError, errorMessage } from '../../../errors.js';
import { describeCustomer } from '../customer-by-name.js';
import { centsToDecimal } from '../inputs.js';
import { orderStatusOutput } from '../order-status-output.js';
import {
  CALL_DELIVERY,
  CALL_NEW_ORDER,
  CALL_ORDER_STATUS,
  CALL_PAYMENT,
  CALL_STOCK_LEVEL,
  ITEM_NOT_FOUND,
  PROCEDURE_DEFINITIONS,
  PROCEDURES_VERSION,
} from './procedures.js';
import type { Conn, PgTransactions } from './transactions.js';

const codeOf = (err: unknown): string =>
  typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';

export const procedureTransactions: PgTransactions = {
  async newOrder(conn, w, input) {
    try {
      await conn.unsafe(
        CALL_NEW_ORDER,
        [w, input.d, input.c, input.itemIds, input.supplyWarehouses, input.quantities],
        {
          prepare: true,
        },
      );
    } catch (err) {
      // The function raised "item number is not valid": the spec's 1% rollback, a complete transaction.
      if (input.rollback && codeOf(err) === ITEM_NOT_FOUND) return;
      throw err;
    }
  },

  async payment(conn, w, input) {
    const { d, cW, cD, customer } = input;
    await conn.unsafe(
      CALL_PAYMENT,
      [
        w,
        d,
        cW,
        cD,
        customer.byName ? 0 : customer.c,
        customer.byName ? customer.last : '',
        centsToDecimal(input.amountCents),
      ],
      { prepare: true },
    );
  },

  async orderStatus(conn, w, input) {
    const { d, customer } = input;
    const rows = await conn.unsafe(
      CALL_ORDER_STATUS,
      [w, d, customer.byName ? 0 : customer.c, customer.byName ? customer.last : ''],
      { prepare: true },
    );
    const output = orderStatusOutput(rows[0], rows[0], rows);
    if (output === undefined)
      throw new Error(`Order-Status found no customer ${describeCustomer(w, d, customer)}`);
    return output;
  },

  async delivery(conn, w, carrier) {
    const [row] = await conn.unsafe<{ r: number }[]>(CALL_DELIVERY, [w, carrier], { prepare: true });
    return row?.r ?? 0;
  },

  async stockLevel(conn, w, d, threshold) {
    await conn.unsafe(CALL_STOCK_LEVEL, [w, d, threshold], { prepare: true });
  },
};

/** Installs the functions unless this version of them is already there. */
export async function installProcedures(conn: Conn): Promise<void> {
  const [row] = await conn.unsafe<{ n: number }[]>(
    `select count(*)::int as n from pg_proc p join pg_namespace s on s.oid = p.pronamespace
      where s.nspname = current_schema() and obj_description(p.oid, 'pg_proc') = $1`,
    [PROCEDURES_VERSION],
  );
  if (row?.n === PROCEDURE_DEFINITIONS.length) return;
  try {
    // One transaction: a concurrent installer waits for this one instead of finding a function dropped.
    await conn.unsafe('begin');
    for (const p of PROCEDURE_DEFINITIONS) {
      // CREATE OR REPLACE cannot change a function's result type, which a newer version may do.
      await conn.unsafe(`drop function if exists ${p.name}(${p.signature})`);
      await conn.unsafe(p.sql);
      await conn.unsafe(`comment on function ${p.name}(${p.signature}) is '${PROCEDURES_VERSION}'`);
    }
    await conn.unsafe('commit');
  } catch (err) {
    await conn.unsafe('rollback').catch(() => undefined);
    if (codeOf(err) === '42501') {
      throw new DatabaseError(
        'the database user may not create the txbench functions (CREATE on the schema is needed); grant it, or have the schema owner run txbench once with --procedures',
      );
    }
    throw new DatabaseError(`could not install the txbench functions: ${errorMessage(err)}`);
  }
}

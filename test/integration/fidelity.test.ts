/**
 * TPC-C fidelity on real servers, PostgreSQL and MariaDB, in client-SQL and procedure mode:
 * - a rolled-back New-Order (unused item, clause 2.4.2.3) does all of the work, then leaves the
 *   database as it was (PostgreSQL's n_tup_ins and MariaDB's Handler_write count the inserts of
 *   aborted transactions too);
 * - Order-Status returns the customer, the newest order and its lines in both modes;
 * - a Payment for a last name nobody has fails and writes nothing;
 * - by-name ties in C_FIRST are broken by C_ID, so both servers pick the same customer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type postgres from 'postgres';
import { connect } from '../../dist/dialects/postgres/connect.js';
import type { Connection } from '../../dist/dialects/mysql/connect.js';
import { parseMysqlUrl } from '../../dist/dialects/mysql/url.js';
import { UNUSED_ITEM_ID, type NewOrderInput } from '../../dist/workloads/tpcc/inputs.js';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import { mysqlSession } from '../../dist/dialects/mysql/connections.js';
import { openSlot } from '../../dist/workloads/tpcc/mysql/executor.js';
import { procedureCallTransactions as mysqlRouteProcedures } from '../../dist/workloads/tpcc/mysql/procedure-callbacks.js';
import {
  callNewOrder,
  callPayment,
  callStockLevel,
  installProcedures as installMysqlProcedures,
} from '../../dist/workloads/tpcc/mysql/procedures.js';
import * as mysqlTx from '../../dist/workloads/tpcc/mysql/transactions.js';
import {
  clientSqlTransactions as pgClientSql,
  wireClientSqlTransactions as wireClientSql,
} from '../../dist/workloads/tpcc/postgres/client-sql.js';
import {
  WIRE_PROCEDURE_STATEMENTS,
  wireProcedureTransactions as wireProcedures,
} from '../../dist/workloads/tpcc/postgres/wire-procedure-calls.js';
import { WireConnection } from '../../dist/dialects/postgres/wire/connection.js';
import { WireSlot } from '../../dist/dialects/postgres/wire/session.js';
import { wireTarget } from '../../dist/dialects/postgres/wire/target.js';
import type { TpccOperations } from '../../dist/workloads/tpcc/bodies.js';
import {
  installProcedures as installPgProcedures,
  procedureTransactions as pgProcedures,
} from '../../dist/workloads/tpcc/postgres/procedure-calls.js';
import type { OrderStatusOutput } from '../../dist/workloads/tpcc/order-status-output.js';
import { dialectsUnderTest, startTestTarget, type TestTarget } from './targets/index.js';

type Row = Record<string, unknown>;
type Mode =
  | 'client-SQL'
  | 'procedure'
  | 'client-SQL on the wire path'
  | 'procedure on the wire path'
  | 'procedure on the callback route';
const MODES: readonly Mode[] = ['client-SQL', 'procedure'];
/** PostgreSQL's modes on both of its drivers: postgres.js and the wire path. */
const PG_MODES: readonly Mode[] = [...MODES, 'client-SQL on the wire path', 'procedure on the wire path'];
/** MariaDB's modes: the procedures through the promise wrapper and on the slot's callback route. */
const MARIADB_MODES: readonly Mode[] = [...MODES, 'procedure on the callback route'];

/** The transactions under test on one connection of one server, and plain queries beside them. */
interface Server {
  newOrder(mode: Mode, input: NewOrderInput): Promise<void>;
  payment(mode: Mode, last: string): Promise<void>;
  orderStatus(mode: Mode, customer: { c: number } | { last: string }): Promise<OrderStatusOutput>;
  query(sql: string): Promise<Row[]>;
  /** Rows inserted (into ORDERS, NEW-ORDER and ORDER-LINE, by New-Order) so far, committed or not. */
  rowsInserted(): Promise<number>;
  close(): Promise<void>;
}

const W = 1;
const D = 1;

function paymentInput(last: string) {
  return { d: D, cW: W, cD: D, customer: { byName: true as const, last }, amountCents: 12_345 };
}

function customerRef(customer: { c: number } | { last: string }) {
  return 'c' in customer
    ? { byName: false as const, c: customer.c }
    : { byName: true as const, last: customer.last };
}

async function postgresServer(url: string): Promise<Server> {
  const sql = connect(url, { max: 1 });
  const conn = await sql.reserve();
  await installPgProcedures(conn);
  const target = wireTarget(url);
  if (!('target' in target)) throw new Error(`the wire path does not take ${url}: ${target.unsupported}`);
  const slot = new WireSlot(await WireConnection.open(target.target, 10_000));
  await slot.prepareAll(WIRE_PROCEDURE_STATEMENTS);
  type Ops = { ops: TpccOperations<unknown>; handle: unknown };
  const on = <H>(ops: TpccOperations<H>, handle: H): Ops => ({
    ops: ops as TpccOperations<unknown>,
    handle,
  });
  const byMode: Partial<Record<Mode, Ops>> = {
    'client-SQL': on(pgClientSql(), conn),
    procedure: on(pgProcedures, conn),
    'client-SQL on the wire path': on(wireClientSql(), slot),
    'procedure on the wire path': on(wireProcedures, slot),
  };
  const opsOf = (mode: Mode): Ops => {
    const ops = byMode[mode];
    if (ops === undefined) throw new Error(`no ${mode} mode on PostgreSQL`);
    return ops;
  };
  const query = async (text: string): Promise<Row[]> => [...(await conn.unsafe<postgres.Row[]>(text))];
  return {
    newOrder: async (mode, input) => void (await opsOf(mode).ops.newOrder(opsOf(mode).handle, W, input)),
    payment: async (mode, last) =>
      void (await opsOf(mode).ops.payment(opsOf(mode).handle, W, paymentInput(last))),
    orderStatus: async (mode, customer) =>
      (await opsOf(mode).ops.orderStatus(opsOf(mode).handle, W, {
        d: D,
        customer: customerRef(customer),
      })) as OrderStatusOutput,
    query,
    async rowsInserted() {
      // Each backend's counts reach the shared statistics when it goes idle after this call.
      await slot.query('select pg_stat_force_next_flush()');
      await query('select pg_stat_force_next_flush()');
      const [row] = await query(`select sum(n_tup_ins)::int as n from pg_stat_user_tables
        where relname in ('orders', 'new_order', 'order_line')`);
      return Number(row!.n);
    },
    async close() {
      await slot.conn.end();
      conn.release();
      await sql.end({ timeout: 5 });
    },
  };
}

async function mariadbServer(url: string): Promise<Server> {
  const settings = parseMysqlUrl(url);
  const conn: Connection = await openSlot(settings);
  await installMysqlProcedures(conn, settings);
  const route = mysqlSession(conn).callbacks;
  if (route === undefined) throw new Error('no callback route on a MariaDB slot');
  type Ops = { ops: TpccOperations<unknown>; handle: unknown };
  const on = <H>(ops: TpccOperations<H>, handle: H): Ops => ({ ops: ops as TpccOperations<unknown>, handle });
  const tx = (mode: Mode): Ops =>
    mode === 'procedure on the callback route'
      ? on(mysqlRouteProcedures, route)
      : on(mode === 'procedure' ? mysqlTx.procedureTransactions : mysqlTx.clientSqlTransactions, conn);
  const query = async (text: string): Promise<Row[]> => (await conn.query(text))[0] as Row[];
  return {
    async newOrder(mode, input) {
      try {
        await tx(mode).ops.newOrder(tx(mode).handle, W, input);
      } catch (err) {
        await conn.query('rollback');
        throw err;
      }
    },
    payment: async (mode, last) => void (await tx(mode).ops.payment(tx(mode).handle, W, paymentInput(last))),
    orderStatus: async (mode, customer) =>
      (await tx(mode).ops.orderStatus(tx(mode).handle, W, {
        d: D,
        customer: customerRef(customer),
      })) as OrderStatusOutput,
    query,
    async rowsInserted() {
      // Every row this session asked a storage engine to insert, whatever became of its transaction
      // (MariaDB 10.6+ has no Innodb_rows_inserted); New-Order inserts into no other table.
      const [row] = await query("show session status like 'Handler_write'");
      return Number(row!.Value);
    },
    close: () => conn.end(),
  };
}

/** What a New-Order could change: the district's next order number, the order tables, the stock rows. */
async function snapshot(server: Server, items: readonly number[]): Promise<Row[][]> {
  return Promise.all([
    server.query(`select d_next_o_id from district where d_w_id = ${W} and d_id = ${D}`),
    server.query(`select count(*) as n from orders where o_w_id = ${W} and o_d_id = ${D}`),
    server.query(`select count(*) as n from new_order where no_w_id = ${W} and no_d_id = ${D}`),
    server.query(`select count(*) as n from order_line where ol_w_id = ${W} and ol_d_id = ${D}`),
    server.query(`select s_i_id, s_quantity, s_ytd, s_order_cnt, s_remote_cnt from stock
      where s_w_id = ${W} and s_i_id in (${items.join(', ')}) order by s_i_id`),
  ]).then((parts) =>
    parts.map((rows) =>
      rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)]))),
    ),
  );
}

const servers = dialectsUnderTest().filter((n) => n === 'postgres' || n === 'mysql');
/** The customer each server chose by name among tied first names, per mode. */
const tieChoices = new Map<string, number>();

for (const name of servers) {
  describe(`TPC-C fidelity on ${name === 'mysql' ? 'MariaDB' : 'PostgreSQL'}`, () => {
    let target: TestTarget;
    let server: Server;

    beforeAll(async () => {
      target = await startTestTarget(name);
      await loadTpcc(target.url, { warehouses: 1, seed: 7, replace: true });
      server = name === 'postgres' ? await postgresServer(target.url) : await mariadbServer(target.url);
    });

    afterAll(async () => {
      await server?.close();
      await target?.stop();
    });

    const modes = name === 'postgres' ? PG_MODES : MARIADB_MODES;
    for (const mode of modes) {
      it(`${mode}: a rolled-back New-Order writes its order, new-order and valid lines, then undoes all of it`, async () => {
        // Four valid lines (item 2 twice) and the unused item last, as the inputs draw them.
        const input: NewOrderInput = {
          d: D,
          c: 1,
          itemIds: [1, 2, 3, 2, UNUSED_ITEM_ID],
          supplyWarehouses: [W, W, W, W, W],
          quantities: [5, 6, 7, 8, 9],
          rollback: true,
          remoteLines: 0,
        };
        const before = await snapshot(server, [1, 2, 3]);
        const insertedBefore = await server.rowsInserted();
        await server.newOrder(mode, input);
        // ORDER, NEW-ORDER and the four valid ORDER-LINEs were inserted before the rollback.
        expect((await server.rowsInserted()) - insertedBefore).toBe(1 + 1 + 4);
        expect(await snapshot(server, [1, 2, 3])).toEqual(before);
      });
    }

    it('a committed New-Order still commits (the control for the rollback test)', async () => {
      const before = await snapshot(server, [4]);
      await server.newOrder('client-SQL', {
        d: D,
        c: 2,
        itemIds: [4, 5, 6, 7, 8],
        supplyWarehouses: [W, W, W, W, W],
        quantities: [1, 1, 1, 1, 1],
        rollback: false,
        remoteLines: 0,
      });
      const after = await snapshot(server, [4]);
      expect(after[0]![0]!.d_next_o_id).toBe(Number(before[0]![0]!.d_next_o_id) + 1);
      expect(after[3]![0]!.n).toBe(Number(before[3]![0]!.n) + 5);
    });

    for (const mode of modes) {
      it(`${mode}: Order-Status returns the customer, the newest order and its lines`, async () => {
        const [c] = await server.query(
          `select c_id, c_balance, c_first, c_middle, c_last from customer where c_w_id = ${W} and c_d_id = ${D} and c_id = 7`,
        );
        const [o] = await server.query(
          `select o_id, o_carrier_id from orders where o_w_id = ${W} and o_d_id = ${D} and o_c_id = 7 order by o_id desc limit 1`,
        );
        const lines = await server.query(
          `select ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d from order_line
            where ol_w_id = ${W} and ol_d_id = ${D} and ol_o_id = ${Number(o!.o_id)} order by ol_number`,
        );
        const output = await server.orderStatus(mode, { c: 7 });
        expect(output.customer).toEqual({
          c: 7,
          balance: String(c!.c_balance),
          first: c!.c_first,
          middle: c!.c_middle,
          last: c!.c_last,
        });
        expect(output.order?.id).toBe(Number(o!.o_id));
        expect(output.order?.carrier).toBe(o!.o_carrier_id === null ? null : Number(o!.o_carrier_id));
        expect(output.order?.entryDate).toBeInstanceOf(Date);
        expect(output.lines.length).toBeGreaterThanOrEqual(5);
        expect(output.lines.map((l) => [l.item, l.supplyW, l.quantity, l.amount])).toEqual(
          lines.map((l) => [
            Number(l.ol_i_id),
            Number(l.ol_supply_w_id),
            Number(l.ol_quantity),
            String(l.ol_amount),
          ]),
        );
        expect(output.lines.map((l) => l.deliveryDate === null)).toEqual(
          lines.map((l) => l.ol_delivery_d === null),
        );
        // Both modes show the same.
        expect(output).toEqual(
          await server.orderStatus(mode === 'procedure' ? 'client-SQL' : 'procedure', { c: 7 }),
        );
      });

      it(`${mode}: a Payment for a last name nobody has fails and writes nothing`, async () => {
        const read = () =>
          Promise.all([
            server.query('select count(*) as n from history'),
            server.query(`select w_ytd from warehouse where w_id = ${W}`),
            server.query(`select d_ytd from district where d_w_id = ${W} and d_id = ${D}`),
          ]);
        const before = await read();
        await expect(server.payment(mode, 'NOSUCHNAME')).rejects.toThrow();
        expect(await read()).toEqual(before);
        await expect(server.orderStatus(mode, { last: 'NOSUCHNAME' })).rejects.toThrow(/no customer/);
      });
    }

    if (name === 'mysql') {
      it("answers a committed New-Order's, a Payment's and a Stock-Level's CALL with its OK alone, a rolled-back New-Order's with one row", async () => {
        // A result set is flushed apart from the OK that ends the CALL: one more packet to wake for.
        const order = (rollback: boolean): NewOrderInput => ({
          d: D,
          c: 3,
          itemIds: rollback ? [9, UNUSED_ITEM_ID] : [9, 10],
          supplyWarehouses: [W, W],
          quantities: [1, 1],
          rollback,
          remoteLines: 0,
        });
        const answer = (sql: string): Promise<unknown> => server.query(sql);
        expect(Array.isArray(await answer(callNewOrder(W, order(false))))).toBe(false);
        expect(await answer(callNewOrder(W, order(true)))).toEqual([[{ rolled_back: 1 }], expect.anything()]);
        const payment = { w: W, d: D, cW: W, cD: D, customer: { c: 3 }, amountCents: 100 };
        expect(Array.isArray(await answer(callPayment(payment)))).toBe(false);
        expect(Array.isArray(await answer(callStockLevel(W, D, 15)))).toBe(false);
      });
    }

    it('breaks ties in C_FIRST by C_ID in both modes, whatever order the rows are stored in', async () => {
      // Four customers with one last name and one first name, rewritten last to first so that the
      // storage order runs against C_ID: position ceil(4/2) = 2 by C_ID is customer 12.
      for (const c of [14, 13, 12, 11]) {
        await server.query(`update customer set c_last = 'TXBTIE', c_first = 'TIEDFIRST'
          where c_w_id = ${W} and c_d_id = ${D} and c_id = ${c}`);
      }
      const paymentCounts = () =>
        server.query(
          `select c_id, c_payment_cnt from customer where c_w_id = ${W} and c_d_id = ${D} and c_last = 'TXBTIE' order by c_id`,
        );
      for (const mode of modes) {
        const before = await paymentCounts();
        await server.payment(mode, 'TXBTIE');
        const after = await paymentCounts();
        const paid = after.filter((r, i) => Number(r.c_payment_cnt) !== Number(before[i]!.c_payment_cnt));
        expect(paid).toHaveLength(1);
        tieChoices.set(`${name} ${mode} Payment`, Number(paid[0]!.c_id));
      }
      expect(tieChoices.get(`${name} client-SQL Payment`)).toBe(12);
      expect(tieChoices.get(`${name} procedure Payment`)).toBe(12);
      for (const mode of modes) {
        const output = await server.orderStatus(mode, { last: 'TXBTIE' });
        tieChoices.set(`${name} ${mode} Order-Status`, output.customer.c);
      }
      expect(tieChoices.get(`${name} client-SQL Order-Status`)).toBe(12);
      expect(tieChoices.get(`${name} procedure Order-Status`)).toBe(12);
    });
  });
}

if (servers.length === 2) {
  describe('by-name ties across servers', () => {
    it('PostgreSQL and MariaDB choose the same customer', () => {
      const choices = [...tieChoices.values()];
      // Payment and Order-Status in each mode: four on PostgreSQL (two drivers), three on MariaDB.
      expect(choices).toHaveLength(2 * (PG_MODES.length + MARIADB_MODES.length));
      expect(new Set(choices)).toEqual(new Set([12]));
    });
  });
}

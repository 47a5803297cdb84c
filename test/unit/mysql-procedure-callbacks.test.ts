/**
 * TPC-C's procedure mode on a MySQL/MariaDB slot's callback route (procedure-callbacks.ts): the
 * same CALLs as the text ones of the promise path, prepared once per connection, their answers
 * read as the promise path reads them, and the driver's errors handed on as they came.
 */
import { describe, expect, it } from 'vitest';
import type {
  CallbackRoute,
  ParamValue,
  PreparedStatement,
  StatementCallback,
  TextResult,
  TextValue,
} from '../../src/dialects/connections.js';
import type { NewOrderInput } from '../../src/workloads/tpcc/inputs.js';
import { procedureCallTransactions as viaRoute } from '../../src/workloads/tpcc/mysql/procedure-callbacks.js';
import {
  callDelivery,
  callNewOrder,
  callOrderStatus,
  callPayment,
  callStockLevel,
  newOrderParams,
} from '../../src/workloads/tpcc/mysql/procedures.js';
import { Rng } from '../../src/random/rng.js';

interface Sent {
  sql: string;
  values: readonly ParamValue[];
  counted: boolean;
}

/** A route that answers every statement with `answer`, a turn later, and records what it ran. */
class FakeRoute implements CallbackRoute {
  readonly sent: Sent[] = [];
  readonly prepared: string[] = [];
  private readonly statements = new Map<string, PreparedStatement>();

  constructor(private readonly answer: (sql: string) => { err?: Error; result?: TextResult }) {}

  prepare(sql: string): Promise<PreparedStatement> {
    this.prepared.push(sql);
    const statement = { name: sql };
    this.statements.set(sql, statement);
    return Promise.resolve(statement);
  }

  preparedFor(sql: string): PreparedStatement | undefined {
    return this.statements.get(sql);
  }

  run(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void {
    this.send(statement, values, false, done);
  }

  count(statement: PreparedStatement, values: readonly ParamValue[], done: StatementCallback): void {
    this.send(statement, values, true, done);
  }

  runText(): void {
    throw new Error('no text statements on this route');
  }

  private send(
    statement: PreparedStatement,
    values: readonly ParamValue[],
    counted: boolean,
    done: StatementCallback,
  ) {
    this.sent.push({ sql: statement.name, values: [...values], counted });
    const { err, result } = this.answer(statement.name);
    setImmediate(() => done(err, result ?? { rows: [], tag: 'OK 0' }));
  }
}

/** The prepared CALL with its parameters written in as the text CALL writes its literals. */
function asText({ sql, values }: Sent, quoted: readonly number[]): string {
  let i = 0;
  return sql.replace(/\?/g, () => {
    const k = i++;
    const v = values[k];
    if (v === null || v === undefined) return 'null';
    const text = typeof v === 'object' ? v.join(',') : String(v);
    return quoted.includes(k) ? `'${text}'` : text;
  });
}

const newOrder = (rollback: boolean): NewOrderInput => ({
  d: 3,
  c: 42,
  itemIds: [9, 4, 9, 1, 7],
  supplyWarehouses: [1, 2, 1, 1, 1],
  quantities: [5, 6, 7, 8, 9],
  rollback,
  remoteLines: 1,
});

const set = (rows: TextValue[][]): TextValue[][] => rows;
const answered = (...sets: TextValue[][][]): TextResult => ({
  rows: sets[0] ?? [],
  tag: `SELECT ${sets[0]?.length ?? 0}`,
  sets,
});

describe('TPC-C procedures on the MySQL callback route', () => {
  it('sends the text CALLs of the promise path as prepared CALLs, each prepared once per connection', async () => {
    const route = new FakeRoute((sql) => {
      if (sql.includes('new_order') || sql.includes('payment')) return { result: { rows: [], tag: 'OK 0' } };
      if (sql.includes('delivery')) return { result: answered(set([['10']])) };
      if (sql.includes('order_status'))
        return {
          result: answered(
            set([['7', '1.00', 'A', 'OE', 'B', null, null, null, null, null, null, null, null]]),
          ),
        };
      return { result: answered(set([['1']])) };
    });
    const byId = { d: 2, cW: 3, cD: 4, customer: { byName: false as const, c: 17 }, amountCents: 123_456 };
    const byName = { ...byId, customer: { byName: true as const, last: "O'BAR" } };
    await viaRoute.newOrder(route, 1, newOrder(false));
    await viaRoute.newOrder(route, 1, newOrder(false));
    await viaRoute.payment(route, 1, byId);
    await viaRoute.payment(route, 1, byName);
    await viaRoute.orderStatus(route, 5, { d: 6, customer: { byName: false, c: 7 } });
    await viaRoute.orderStatus(route, 5, { d: 6, customer: { byName: true, last: 'BARBAR' } });
    expect(await viaRoute.delivery(route, 8, 9)).toBe(10);
    await viaRoute.stockLevel(route, 1, 2, 15);

    expect(route.prepared).toHaveLength(5);
    expect(new Set(route.prepared).size).toBe(5);
    const [no1, no2, p1, p2, os1, os2, del, sl] = route.sent;
    expect(asText(no1!, [4, 5, 6, 7])).toBe(callNewOrder(1, newOrder(false)));
    expect(no2).toEqual(no1);
    expect(asText(p1!, [5])).toBe(
      callPayment({ w: 1, d: 2, cW: 3, cD: 4, customer: { c: 17 }, amountCents: 123_456 }),
    );
    // The text CALL doubles a quote in a name; the parameter carries the name as it is.
    expect(p2!.values[5]).toBe("O'BAR");
    expect(asText({ ...p2!, values: p2!.values.map((v, i) => (i === 5 ? "O''BAR" : v)) }, [5])).toBe(
      callPayment({ w: 1, d: 2, cW: 3, cD: 4, customer: { last: "O'BAR" }, amountCents: 123_456 }),
    );
    expect(asText(os1!, [3])).toBe(callOrderStatus(5, 6, { c: 7 }));
    expect(asText(os2!, [3])).toBe(callOrderStatus(5, 6, { last: 'BARBAR' }));
    expect(asText(del!, [])).toBe(callDelivery(8, 9));
    expect(asText(sl!, [])).toBe(callStockLevel(1, 2, 15));
    // Only Order-Status's and Delivery's answers are read; the others' rows are only counted.
    expect(route.sent.map((s) => s.counted)).toEqual([true, true, true, true, false, false, false, true]);
  });

  it('takes a New-Order answered with a row as rolled back, with the OK alone as committed: a rollback the input did not expect fails', async () => {
    const rolledBack = new FakeRoute(() => ({ result: answered(set([['1']])) }));
    const committed = new FakeRoute(() => ({ result: { rows: [], tag: 'OK 0' } }));
    await expect(viaRoute.newOrder(rolledBack, 1, newOrder(true))).resolves.toBeUndefined();
    await expect(viaRoute.newOrder(committed, 1, newOrder(false))).resolves.toBeUndefined();
    await expect(viaRoute.newOrder(rolledBack, 1, newOrder(false))).rejects.toThrow(
      'New-Order found item numbers missing from ITEM',
    );
    await expect(viaRoute.newOrder(committed, 1, newOrder(true))).rejects.toThrow(
      'New-Order found the unused item number in ITEM',
    );
  });

  it("builds Order-Status's output from the CALL's one result set (customer and order on each line), and fails without a customer", async () => {
    const customer = ['7', '-10.00', 'FIRST', 'OE', 'BARBAR'];
    const order = ['3001', '2026-12-04 10:00:00.000000', null];
    const route = new FakeRoute(() => ({
      result: answered(
        set([
          [...customer, ...order, '9', '1', '5', '50.00', null],
          [...customer, ...order, '4', '2', '6', '60.00', '2026-12-04 11:00:00.000000'],
        ]),
      ),
    }));
    expect(await viaRoute.orderStatus(route, 1, { d: 2, customer: { byName: false, c: 7 } })).toEqual({
      customer: { c: 7, balance: '-10.00', first: 'FIRST', middle: 'OE', last: 'BARBAR' },
      order: { id: 3001, entryDate: new Date('2026-12-04 10:00:00.000000'), carrier: null },
      lines: [
        { item: 9, supplyW: 1, quantity: 5, amount: '50.00', deliveryDate: null },
        {
          item: 4,
          supplyW: 2,
          quantity: 6,
          amount: '60.00',
          deliveryDate: new Date('2026-12-04 11:00:00.000000'),
        },
      ],
    });
    // A customer without orders: one row, its order and line columns NULL.
    const noOrders = new FakeRoute(() => ({
      result: answered(set([['7', '0.00', 'F', 'OE', 'L', null, null, null, null, null, null, null, null]])),
    }));
    expect(await viaRoute.orderStatus(noOrders, 1, { d: 2, customer: { byName: false, c: 7 } })).toEqual({
      customer: { c: 7, balance: '0.00', first: 'F', middle: 'OE', last: 'L' },
      lines: [],
    });
    const nobody = new FakeRoute(() => ({ result: answered([]) }));
    await expect(
      viaRoute.orderStatus(nobody, 1, { d: 2, customer: { byName: false, c: 7 } }),
    ).rejects.toThrow('Order-Status found no customer (1, 2, 7)');
  });

  it("takes a Payment's OK alone as done (the procedure raises the missing customer), and fails a Delivery that returned nothing", async () => {
    const ok = new FakeRoute(() => ({ result: { rows: [], tag: 'OK 0' } }));
    const input = { d: 2, cW: 3, cD: 4, customer: { byName: false as const, c: 5 }, amountCents: 100 };
    await expect(viaRoute.payment(ok, 1, input)).resolves.toBeUndefined();
    const empty = new FakeRoute(() => ({ result: answered([]) }));
    await expect(viaRoute.delivery(empty, 1, 2)).rejects.toThrow('Delivery returned nothing');
  });

  it("hands on the driver's error object itself, so the executor classifies it as on the promise path", async () => {
    const deadlock = Object.assign(new Error('Deadlock found when trying to get lock'), {
      errno: 1213,
      code: 'ER_LOCK_DEADLOCK',
    });
    const failing = new FakeRoute(() => ({ err: deadlock }));
    for (const run of [
      () => viaRoute.newOrder(failing, 1, newOrder(false)),
      () =>
        viaRoute.payment(failing, 1, {
          d: 1,
          cW: 1,
          cD: 1,
          customer: { byName: false, c: 1 },
          amountCents: 100,
        }),
      () => viaRoute.orderStatus(failing, 1, { d: 1, customer: { byName: false, c: 1 } }),
      () => viaRoute.delivery(failing, 1, 1),
      () => viaRoute.stockLevel(failing, 1, 1, 10),
    ]) {
      await expect(run()).rejects.toBe(deadlock);
    }
    const unprepared = new FakeRoute(() => ({}));
    const refused = Object.assign(new Error('PROCEDURE txbench_delivery does not exist'), { errno: 1305 });
    unprepared.prepare = () => Promise.reject(refused);
    await expect(viaRoute.delivery(unprepared, 1, 1)).rejects.toBe(refused);
  });

  it("passes New-Order's ids as numbers and its lines sorted by stock key (warehouse, item; ties in line order), as a comparator sorts them", () => {
    const rng = new Rng(7);
    for (let t = 0; t < 500; t++) {
      const lines = rng.int(1, 15);
      const input: NewOrderInput = {
        d: rng.int(1, 10),
        c: rng.int(1, 3000),
        // Few warehouses and items: many ties, which keep their lines' order.
        itemIds: Array.from({ length: lines }, () => rng.int(1, 6)),
        supplyWarehouses: Array.from({ length: lines }, () => rng.int(1, 3)),
        quantities: Array.from({ length: lines }, () => rng.int(1, 10)),
        rollback: false,
        remoteLines: t % 2,
      };
      const order = input.itemIds
        .map((_, k) => k)
        .sort(
          (a, b) =>
            input.supplyWarehouses[a]! - input.supplyWarehouses[b]! ||
            input.itemIds[a]! - input.itemIds[b]! ||
            a - b,
        );
      expect(newOrderParams(4, input)).toEqual([
        4,
        input.d,
        input.c,
        t % 2 === 0 ? 1 : 0,
        order.map((k) => k + 1),
        order.map((k) => input.itemIds[k]),
        order.map((k) => input.supplyWarehouses[k]),
        order.map((k) => input.quantities[k]),
      ]);
    }
  });
});

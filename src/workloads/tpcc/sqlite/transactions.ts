/**
 * The five TPC-C transactions on one SQLite connection, synchronous as better-sqlite3 is: each
 * call begins, runs and commits (or rolls back) one database transaction before it returns.
 * Writers take the write lock up front (BEGIN IMMEDIATE), so a transaction never has to upgrade a
 * read lock and lose to another writer; Order-Status reads one snapshot (BEGIN DEFERRED), which in
 * WAL mode never waits for the writer.
 */
import type { SqliteDatabase, SqliteStatement } from '../../../dialects/sqlite/connect.js';
import { centsToDecimal, type CustomerRef, type NewOrderInput, type PaymentInput } from '../inputs.js';
import { byNamePosition } from '../customer-by-name.js';
import * as Q from './sql.js';

export class SqliteTransactions {
  private readonly beginWrite: SqliteStatement;
  private readonly beginRead: SqliteStatement;
  private readonly commit: SqliteStatement;
  private readonly rollback: SqliteStatement;
  private readonly noDistrict: SqliteStatement;
  private readonly noWarehouse: SqliteStatement;
  private readonly noCustomer: SqliteStatement;
  private readonly noItem: SqliteStatement;
  /** Indexed by district: the stock update returns that district's S_DIST_xx. */
  private readonly noStock: SqliteStatement[];
  private readonly noInsertOrder: SqliteStatement;
  private readonly noInsertNewOrder: SqliteStatement;
  private readonly noInsertLine: SqliteStatement;
  private readonly payWarehouse: SqliteStatement;
  private readonly payDistrict: SqliteStatement;
  private readonly customersByName: SqliteStatement;
  private readonly payCustomer: SqliteStatement;
  private readonly payHistory: SqliteStatement;
  private readonly osCustomer: SqliteStatement;
  private readonly osLastOrder: SqliteStatement;
  private readonly osLines: SqliteStatement;
  private readonly dlOldest: SqliteStatement;
  private readonly dlDelete: SqliteStatement;
  private readonly dlOrder: SqliteStatement;
  private readonly dlLines: SqliteStatement;
  private readonly dlCustomer: SqliteStatement;
  private readonly stockLevelQuery: SqliteStatement;

  constructor(private readonly db: SqliteDatabase) {
    const p = (sql: string): SqliteStatement => db.prepare(sql);
    this.beginWrite = p('begin immediate');
    this.beginRead = p('begin deferred');
    this.commit = p('commit');
    this.rollback = p('rollback');
    this.noDistrict = p(Q.NO_DISTRICT);
    this.noWarehouse = p(Q.NO_WAREHOUSE);
    this.noCustomer = p(Q.NO_CUSTOMER);
    this.noItem = p(Q.NO_ITEM);
    this.noStock = Array.from({ length: 11 }, (_, d) => p(Q.noStock(Math.max(1, d))));
    this.noInsertOrder = p(Q.NO_INSERT_ORDER);
    this.noInsertNewOrder = p(Q.NO_INSERT_NEW_ORDER);
    this.noInsertLine = p(Q.NO_INSERT_LINE);
    this.payWarehouse = p(Q.PAY_WAREHOUSE);
    this.payDistrict = p(Q.PAY_DISTRICT);
    this.customersByName = p(Q.CUSTOMERS_BY_NAME);
    this.payCustomer = p(Q.PAY_CUSTOMER);
    this.payHistory = p(Q.PAY_HISTORY);
    this.osCustomer = p(Q.OS_CUSTOMER);
    this.osLastOrder = p(Q.OS_LAST_ORDER);
    this.osLines = p(Q.OS_LINES);
    this.dlOldest = p(Q.DL_OLDEST);
    this.dlDelete = p(Q.DL_DELETE);
    this.dlOrder = p(Q.DL_ORDER);
    this.dlLines = p(Q.DL_LINES);
    this.dlCustomer = p(Q.DL_CUSTOMER);
    this.stockLevelQuery = p(Q.STOCK_LEVEL);
  }

  /** Returns false for the 1% that roll back on their unused item; anything else unexpected throws. */
  newOrder(w: number, input: NewOrderInput): boolean {
    const { d, c, itemIds, supplyWarehouses, quantities } = input;
    const lines = itemIds.length;
    this.beginWrite.run();
    try {
      const district = this.noDistrict.get([w, d]);
      const warehouse = this.noWarehouse.get([w]);
      const customer = this.noCustomer.get([w, d, c]);
      if (district === undefined || warehouse === undefined || customer === undefined)
        throw new Error(`New-Order found no warehouse, district or customer for (${w}, ${d}, ${c})`);
      const oId = district.o_id as number;
      this.noInsertOrder.run([
        oId,
        d,
        w,
        c,
        localTimestamp(new Date()),
        lines,
        input.remoteLines === 0 ? 1 : 0,
      ]);
      this.noInsertNewOrder.run([oId, d, w]);
      const stock = this.noStock[d]!;
      for (let k = 0; k < lines; k++) {
        const item = this.noItem.get([itemIds[k]!]);
        if (item === undefined) {
          this.rollback.run();
          if (input.rollback && k === lines - 1) return false;
          throw new Error(`New-Order found item ${itemIds[k]} missing from ITEM`);
        }
        const q = quantities[k]!;
        const sw = supplyWarehouses[k]!;
        const s = stock.get([q, q, q, q, sw === w ? 0 : 1, sw, itemIds[k]!]);
        if (s === undefined) throw new Error(`New-Order found no stock row for (${sw}, ${itemIds[k]})`);
        const amountCents = q * Math.round(Number(item.i_price) * 100);
        this.noInsertLine.run([oId, d, w, k + 1, itemIds[k]!, sw, q, amountCents / 100, s.dist_info]);
      }
      this.commit.run();
      return true;
    } catch (err) {
      this.abandon();
      throw err;
    }
  }

  payment(w: number, input: PaymentInput): void {
    const { d, cW, cD } = input;
    const amount = input.amountCents / 100;
    this.beginWrite.run();
    try {
      const warehouse = this.payWarehouse.get([amount, w]);
      const district = this.payDistrict.get([amount, w, d]);
      if (warehouse === undefined || district === undefined)
        throw new Error(`Payment found no warehouse or district (${w}, ${d})`);
      const c = this.customerId(cW, cD, input.customer);
      const record = `${c} ${cD} ${cW} ${d} ${w} ${centsToDecimal(input.amountCents)} | `;
      if (this.payCustomer.get([amount, amount, record, cW, cD, c]) === undefined)
        throw new Error(`Payment found no customer (${cW}, ${cD}, ${c})`);
      const hData = `${String(warehouse.w_name)}    ${String(district.d_name)}`.slice(0, 24);
      this.payHistory.run([c, cD, cW, d, w, localTimestamp(new Date()), amount, hData]);
      this.commit.run();
    } catch (err) {
      this.abandon();
      throw err;
    }
  }

  orderStatus(w: number, d: number, customer: CustomerRef): void {
    this.beginRead.run();
    try {
      const c = this.customerId(w, d, customer);
      if (this.osCustomer.get([w, d, c]) === undefined)
        throw new Error(`Order-Status found no customer (${w}, ${d}, ${c})`);
      const order = this.osLastOrder.get([w, d, c]);
      if (order !== undefined) this.osLines.all([w, d, order.o_id]);
      this.commit.run();
    } catch (err) {
      this.abandon();
      throw err;
    }
  }

  /** All ten districts in one transaction; returns how many had an order to deliver. */
  delivery(w: number, carrier: number): number {
    let delivered = 0;
    const now = localTimestamp(new Date());
    this.beginWrite.run();
    try {
      for (let d = 1; d <= 10; d++) {
        const oldest = this.dlOldest.get([w, d]);
        if (oldest === undefined) continue;
        const oId = oldest.no_o_id as number;
        this.dlDelete.run([w, d, oId]);
        const order = this.dlOrder.get([carrier, w, d, oId]);
        if (order === undefined) throw new Error(`Delivery found no order (${w}, ${d}, ${oId})`);
        let cents = 0;
        for (const line of this.dlLines.all([now, w, d, oId]))
          cents += Math.round(Number(line.ol_amount) * 100);
        this.dlCustomer.run([cents / 100, w, d, order.o_c_id]);
        delivered++;
      }
      this.commit.run();
      return delivered;
    } catch (err) {
      this.abandon();
      throw err;
    }
  }

  /** One statement, so one implicit read transaction: a committed snapshot, as level 1 asks. */
  stockLevel(w: number, d: number, threshold: number): number {
    return (this.stockLevelQuery.get([w, d, threshold])?.low_stock as number | undefined) ?? 0;
  }

  /** C_ID by number, or by name by the rule of customer-by-name.ts. */
  private customerId(w: number, d: number, customer: CustomerRef): number {
    if (!customer.byName) return customer.c;
    const rows = this.customersByName.all([w, d, customer.last]);
    const row = rows[byNamePosition(rows.length) - 1];
    if (row === undefined) throw new Error(`no customer named ${customer.last} in (${w}, ${d})`);
    return row.c_id as number;
  }

  private abandon(): void {
    if (this.db.inTransaction) this.rollback.run();
  }
}

/** `YYYY-MM-DD HH:MM:SS.SSS` in local time, as the loader writes its load time. */
export function localTimestamp(t: Date): string {
  const p2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
  const ms = t.getMilliseconds();
  return (
    `${t.getFullYear()}-${p2(t.getMonth() + 1)}-${p2(t.getDate())} ` +
    `${p2(t.getHours())}:${p2(t.getMinutes())}:${p2(t.getSeconds())}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}`
  );
}

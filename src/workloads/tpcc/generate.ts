/**
 * Initial population of TPC-C (clause 4.3.3.1, tpcc-facts.md §3), as COPY text chunks.
 * Each task is seeded from (run seed, task, warehouse), so the data does not depend on which
 * worker thread generates it.
 */
import { deriveSeed, Rng } from '../../random/rng.js';
import { BinaryCopyBuffer } from './copy-binary.js';
import { CopyBuffer, loadPools, type LoadPools, type RowBuffer } from './copy-buffer.js';
import { chooseExactly, lastName, nurand, permutation, type NurandConstants } from './random.js';
import type { TableName } from './schema.js';

export const ITEMS = 100_000;
export const DISTRICTS_PER_WAREHOUSE = 10;
export const CUSTOMERS_PER_DISTRICT = 3_000;
export const ORDERS_PER_DISTRICT = 3_000;
export const FIRST_NEW_ORDER = 2_101;
export const STOCK_PER_WAREHOUSE = 100_000;

export interface GenerateContext {
  seed: number;
  /** Load time, formatted `YYYY-MM-DD HH:MM:SS.mmm`, used for every "load time" column. */
  loadTime: string;
  constants: NurandConstants;
  /** PostgreSQL COPY's text format (every bulk path reads it), or its binary one. */
  format?: 'text' | 'binary' | undefined;
  /**
   * The character pools for `seed`: a few milliseconds to build, so a loader worker thread builds
   * them once for all its tasks (`tpccThreadGenerator`); built for this task when absent.
   */
  pools?: LoadPools | undefined;
}

export type LoadTask =
  | { kind: 'item' }
  | { kind: 'warehouse'; w: number }
  | { kind: 'stock'; w: number }
  | { kind: 'customer'; w: number }
  | { kind: 'orders'; w: number };

const TASK_SALT: Readonly<Record<LoadTask['kind'], number>> = {
  item: 1,
  warehouse: 2,
  stock: 3,
  customer: 4,
  orders: 5,
};

/** The tables each kind of task writes (what `taskStreams` returns for it). */
export const TASK_TABLES: Readonly<Record<LoadTask['kind'], readonly TableName[]>> = {
  item: ['item'],
  warehouse: ['warehouse', 'district'],
  stock: ['stock'],
  customer: ['customer', 'history'],
  orders: ['orders', 'new_order', 'order_line'],
};

/** The tables a task writes, each as a lazily generated sequence of COPY chunks. */
export function taskStreams(
  task: LoadTask,
  ctx: GenerateContext,
  report: (rows: number, bytes: number) => void,
): { table: TableName; chunks: Generator<Buffer>; format: 'text' | 'binary' }[] {
  const format = ctx.format ?? 'text';
  return tableStreams(task, ctx, report).map((s) => ({ ...s, format }));
}

function tableStreams(
  task: LoadTask,
  ctx: GenerateContext,
  report: (rows: number, bytes: number) => void,
): { table: TableName; chunks: Generator<Buffer> }[] {
  const w = task.kind === 'item' ? 0 : task.w;
  const rng = new Rng(deriveSeed(ctx.seed, TASK_SALT[task.kind], w));
  const pools = ctx.pools ?? loadPools(ctx.seed);
  const out: RowBuffer =
    ctx.format === 'binary'
      ? new BinaryCopyBuffer(256 * 1024, pools, ctx.loadTime)
      : new CopyBuffer(256 * 1024, pools, ctx.loadTime);
  // Called per chunk, not per row: a generator delegation per row costs more than the row.
  const flush = (): Buffer => {
    const rows = out.rows;
    const chunk = out.take();
    report(rows, chunk.length);
    return chunk;
  };
  switch (task.kind) {
    case 'item':
      return [{ table: 'item', chunks: items(rng, out, flush) }];
    case 'warehouse':
      return [
        { table: 'warehouse', chunks: warehouse(rng, out, flush, task.w) },
        { table: 'district', chunks: districts(rng, out, flush, task.w) },
      ];
    case 'stock':
      return [{ table: 'stock', chunks: stock(rng, out, flush, task.w) }];
    case 'customer': {
      return [
        { table: 'customer', chunks: customers(rng, out, flush, task.w, ctx.constants.cLast) },
        { table: 'history', chunks: history(rng, out, flush, task.w) },
      ];
    }
    case 'orders': {
      // Order-line counts are drawn with the orders and reused for their lines.
      const olCnt = new Uint8Array(DISTRICTS_PER_WAREHOUSE * ORDERS_PER_DISTRICT);
      return [
        { table: 'orders', chunks: orders(rng, out, flush, task.w, olCnt) },
        { table: 'new_order', chunks: newOrders(out, flush, task.w) },
        { table: 'order_line', chunks: orderLines(rng, out, flush, task.w, olCnt) },
      ];
    }
  }
}

type Flush = () => Buffer;

function* items(rng: Rng, out: RowBuffer, flush: Flush): Generator<Buffer> {
  const original = chooseExactly(rng, ITEMS, ITEMS / 10);
  for (let i = 1; i <= ITEMS; i++) {
    out.int(i).tab().int(rng.int(1, 10_000)).tab().alnum(rng, 14, 24).tab();
    out
      .fixed(rng.int(100, 10_000), 2)
      .tab()
      .dataString(rng, 26, 50, original[i - 1] === 1)
      .endRow();
    if (out.full) yield flush();
  }
  if (out.length > 0) yield flush();
}

/** Street 1, street 2, city, state, zip: the address block shared by warehouse, district and customer. */
function address(rng: Rng, out: RowBuffer): RowBuffer {
  out.alnum(rng, 10, 20).tab().alnum(rng, 10, 20).tab().alnum(rng, 10, 20).tab();
  out.random(rng, 2, 2, LETTERS).tab().zip(rng);
  return out;
}

const LETTERS = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'latin1');
const MIDDLE_NAME = Buffer.from('OE', 'latin1');
const LAST_NAME_BYTES = Array.from({ length: 1000 }, (_, n) => Buffer.from(lastName(n), 'latin1'));
const BAD_CREDIT = Buffer.from('BC', 'latin1');
const GOOD_CREDIT = Buffer.from('GC', 'latin1');

function* warehouse(rng: Rng, out: RowBuffer, flush: Flush, w: number): Generator<Buffer> {
  out.int(w).tab().alnum(rng, 6, 10).tab();
  address(rng, out).tab().fixed(rng.int(0, 2000), 4).tab().fixed(30_000_000, 2).endRow();
  if (out.length > 0) yield flush();
}

function* districts(rng: Rng, out: RowBuffer, flush: Flush, w: number): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    out.int(d).tab().int(w).tab().alnum(rng, 6, 10).tab();
    address(rng, out).tab().fixed(rng.int(0, 2000), 4).tab().fixed(3_000_000, 2).tab();
    out.int(ORDERS_PER_DISTRICT + 1).endRow();
  }
  if (out.length > 0) yield flush();
}

function* stock(rng: Rng, out: RowBuffer, flush: Flush, w: number): Generator<Buffer> {
  const original = chooseExactly(rng, STOCK_PER_WAREHOUSE, STOCK_PER_WAREHOUSE / 10);
  for (let i = 1; i <= STOCK_PER_WAREHOUSE; i++) {
    out.int(i).tab().int(w).tab().int(rng.int(10, 100)).tab();
    for (let d = 0; d < DISTRICTS_PER_WAREHOUSE; d++) out.alnum(rng, 24, 24).tab();
    // S_YTD, S_ORDER_CNT, S_REMOTE_CNT.
    out.fixed(0, 0).tab().int(0).tab().int(0).tab();
    out.dataString(rng, 26, 50, original[i - 1] === 1).endRow();
    if (out.full) yield flush();
  }
  if (out.length > 0) yield flush();
}

function* customers(rng: Rng, out: RowBuffer, flush: Flush, w: number, cLoad: number): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    const badCredit = chooseExactly(rng, CUSTOMERS_PER_DISTRICT, CUSTOMERS_PER_DISTRICT / 10);
    for (let c = 1; c <= CUSTOMERS_PER_DISTRICT; c++) {
      const nameNumber = c <= 1000 ? c - 1 : nurand(rng, 255, 0, 999, cLoad);
      out
        .int(c)
        .tab()
        .int(d)
        .tab()
        .int(w)
        .tab()
        .alnum(rng, 8, 16)
        .tab()
        .bytes(MIDDLE_NAME)
        .tab()
        .bytes(LAST_NAME_BYTES[nameNumber]!)
        .tab();
      address(rng, out).tab().digits(rng, 16).tab().time().tab();
      out
        .bytes(badCredit[c - 1] === 1 ? BAD_CREDIT : GOOD_CREDIT)
        .tab()
        .fixed(5_000_000, 2)
        .tab();
      // C_DISCOUNT, then C_BALANCE, C_YTD_PAYMENT, C_PAYMENT_CNT, C_DELIVERY_CNT.
      out.fixed(rng.int(0, 5000), 4).tab().fixed(-1000, 2).tab().fixed(1000, 2).tab();
      out.int(1).tab().int(0).tab().alnum(rng, 300, 500).endRow();
      if (out.full) yield flush();
    }
  }
  if (out.length > 0) yield flush();
}

function* history(rng: Rng, out: RowBuffer, flush: Flush, w: number): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let c = 1; c <= CUSTOMERS_PER_DISTRICT; c++) {
      out.int(c).tab().int(d).tab().int(w).tab().int(d).tab().int(w).tab().time().tab();
      out.fixed(1000, 2).tab().alnum(rng, 12, 24).endRow();
      if (out.full) yield flush();
    }
  }
  if (out.length > 0) yield flush();
}

function* orders(rng: Rng, out: RowBuffer, flush: Flush, w: number, olCnt: Uint8Array): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    const customerOf = permutation(rng, CUSTOMERS_PER_DISTRICT);
    for (let o = 1; o <= ORDERS_PER_DISTRICT; o++) {
      const lines = rng.int(5, 15);
      olCnt[(d - 1) * ORDERS_PER_DISTRICT + o - 1] = lines;
      out
        .int(o)
        .tab()
        .int(d)
        .tab()
        .int(w)
        .tab()
        .int(customerOf[o - 1]!)
        .tab()
        .time()
        .tab();
      if (o < FIRST_NEW_ORDER) out.int(rng.int(1, 10));
      else out.null();
      out.tab().int(lines).tab().int(1).endRow();
      if (out.full) yield flush();
    }
  }
  if (out.length > 0) yield flush();
}

function* newOrders(out: RowBuffer, flush: Flush, w: number): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let o = FIRST_NEW_ORDER; o <= ORDERS_PER_DISTRICT; o++) {
      out.int(o).tab().int(d).tab().int(w).endRow();
      if (out.full) yield flush();
    }
  }
  if (out.length > 0) yield flush();
}

function* orderLines(
  rng: Rng,
  out: RowBuffer,
  flush: Flush,
  w: number,
  olCnt: Uint8Array,
): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let o = 1; o <= ORDERS_PER_DISTRICT; o++) {
      const lines = olCnt[(d - 1) * ORDERS_PER_DISTRICT + o - 1]!;
      const delivered = o < FIRST_NEW_ORDER;
      for (let n = 1; n <= lines; n++) {
        out.int(o).tab().int(d).tab().int(w).tab().int(n).tab().int(rng.int(1, ITEMS)).tab().int(w).tab();
        // OL_DELIVERY_D, OL_QUANTITY, OL_AMOUNT.
        if (delivered) out.time().tab().int(5).tab().fixed(0, 2).tab();
        else out.null().tab().int(5).tab().fixed(rng.int(1, 999_999), 2).tab();
        out.alnum(rng, 24, 24).endRow();
      }
      if (out.full) yield flush();
    }
  }
  if (out.length > 0) yield flush();
}

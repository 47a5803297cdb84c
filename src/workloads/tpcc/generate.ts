/**
 * Initial population of TPC-C (clause 4.3.3.1, tpcc-facts.md §3), as COPY text chunks.
 * Each task is seeded from (run seed, task, warehouse), so the data does not depend on which
 * worker thread generates it.
 */
import { CopyBuffer } from './copy-buffer.js';
import {
  chooseExactly,
  deriveSeed,
  lastName,
  nurand,
  permutation,
  Rng,
  type NurandConstants,
} from './random.js';
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

/** The tables a task writes, each as a lazily generated sequence of COPY chunks. */
export function taskStreams(
  task: LoadTask,
  ctx: GenerateContext,
  report: (rows: number, bytes: number) => void,
): { table: TableName; chunks: Generator<Buffer> }[] {
  const w = task.kind === 'item' ? 0 : task.w;
  const rng = new Rng(deriveSeed(ctx.seed, TASK_SALT[task.kind], w));
  const out = new CopyBuffer();
  const time = Buffer.from(ctx.loadTime, 'latin1');
  const flush = function* (force: boolean): Generator<Buffer> {
    if (out.length > 0 && (force || out.full)) {
      const rows = out.rows;
      const chunk = out.take();
      report(rows, chunk.length);
      yield chunk;
    }
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
        { table: 'customer', chunks: customers(rng, out, flush, task.w, time, ctx.constants.cLast) },
        { table: 'history', chunks: history(rng, out, flush, task.w, time) },
      ];
    }
    case 'orders': {
      // Order-line counts are drawn with the orders and reused for their lines.
      const olCnt = new Uint8Array(DISTRICTS_PER_WAREHOUSE * ORDERS_PER_DISTRICT);
      return [
        { table: 'orders', chunks: orders(rng, out, flush, task.w, time, olCnt) },
        { table: 'new_order', chunks: newOrders(out, flush, task.w) },
        { table: 'order_line', chunks: orderLines(rng, out, flush, task.w, time, olCnt) },
      ];
    }
  }
}

type Flush = (force: boolean) => Generator<Buffer>;

function* items(rng: Rng, out: CopyBuffer, flush: Flush): Generator<Buffer> {
  const original = chooseExactly(rng, ITEMS, ITEMS / 10);
  for (let i = 1; i <= ITEMS; i++) {
    out.int(i).tab().int(rng.int(1, 10_000)).tab().random(rng, 14, 24).tab();
    out
      .fixed(rng.int(100, 10_000), 2)
      .tab()
      .dataString(rng, 26, 50, original[i - 1] === 1)
      .endRow();
    yield* flush(false);
  }
  yield* flush(true);
}

/** Street 1, street 2, city, state, zip: the address block shared by warehouse, district and customer. */
function address(rng: Rng, out: CopyBuffer): CopyBuffer {
  out.random(rng, 10, 20).tab().random(rng, 10, 20).tab().random(rng, 10, 20).tab();
  out.random(rng, 2, 2, LETTERS).tab().random(rng, 4, 4, DIGITS).bytes(ZIP_SUFFIX);
  return out;
}

const LETTERS = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'latin1');
const DIGITS = Buffer.from('0123456789', 'latin1');
const ZIP_SUFFIX = Buffer.from('11111', 'latin1');

function* warehouse(rng: Rng, out: CopyBuffer, flush: Flush, w: number): Generator<Buffer> {
  out.int(w).tab().random(rng, 6, 10).tab();
  address(rng, out).tab().fixed(rng.int(0, 2000), 4).tab().text('300000.00').endRow();
  yield* flush(true);
}

function* districts(rng: Rng, out: CopyBuffer, flush: Flush, w: number): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    out.int(d).tab().int(w).tab().random(rng, 6, 10).tab();
    address(rng, out).tab().fixed(rng.int(0, 2000), 4).tab().text('30000.00').tab();
    out.int(ORDERS_PER_DISTRICT + 1).endRow();
  }
  yield* flush(true);
}

function* stock(rng: Rng, out: CopyBuffer, flush: Flush, w: number): Generator<Buffer> {
  const original = chooseExactly(rng, STOCK_PER_WAREHOUSE, STOCK_PER_WAREHOUSE / 10);
  for (let i = 1; i <= STOCK_PER_WAREHOUSE; i++) {
    out.int(i).tab().int(w).tab().int(rng.int(10, 100)).tab();
    for (let d = 0; d < DISTRICTS_PER_WAREHOUSE; d++) out.random(rng, 24, 24).tab();
    out
      .text('0\t0\t0\t')
      .dataString(rng, 26, 50, original[i - 1] === 1)
      .endRow();
    yield* flush(false);
  }
  yield* flush(true);
}

const MIDDLE_AND_CREDIT_TAIL = Buffer.from('\t50000.00\t', 'latin1');
const BALANCE_TAIL = Buffer.from('\t-10.00\t10.00\t1\t0\t', 'latin1');

function* customers(
  rng: Rng,
  out: CopyBuffer,
  flush: Flush,
  w: number,
  time: Buffer,
  cLoad: number,
): Generator<Buffer> {
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
        .random(rng, 8, 16)
        .text('\tOE\t')
        .text(lastName(nameNumber))
        .tab();
      address(rng, out).tab().random(rng, 16, 16, DIGITS).tab().bytes(time).tab();
      out.text(badCredit[c - 1] === 1 ? 'BC' : 'GC').bytes(MIDDLE_AND_CREDIT_TAIL);
      out.fixed(rng.int(0, 5000), 4).bytes(BALANCE_TAIL).random(rng, 300, 500).endRow();
      yield* flush(false);
    }
  }
  yield* flush(true);
}

function* history(rng: Rng, out: CopyBuffer, flush: Flush, w: number, time: Buffer): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let c = 1; c <= CUSTOMERS_PER_DISTRICT; c++) {
      out.int(c).tab().int(d).tab().int(w).tab().int(d).tab().int(w).tab().bytes(time).text('\t10.00\t');
      out.random(rng, 12, 24).endRow();
      yield* flush(false);
    }
  }
  yield* flush(true);
}

function* orders(
  rng: Rng,
  out: CopyBuffer,
  flush: Flush,
  w: number,
  time: Buffer,
  olCnt: Uint8Array,
): Generator<Buffer> {
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
        .bytes(time)
        .tab();
      if (o < FIRST_NEW_ORDER) out.int(rng.int(1, 10));
      else out.null();
      out.tab().int(lines).text('\t1').endRow();
      yield* flush(false);
    }
  }
  yield* flush(true);
}

function* newOrders(out: CopyBuffer, flush: Flush, w: number): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let o = FIRST_NEW_ORDER; o <= ORDERS_PER_DISTRICT; o++) {
      out.int(o).tab().int(d).tab().int(w).endRow();
      yield* flush(false);
    }
  }
  yield* flush(true);
}

function* orderLines(
  rng: Rng,
  out: CopyBuffer,
  flush: Flush,
  w: number,
  time: Buffer,
  olCnt: Uint8Array,
): Generator<Buffer> {
  for (let d = 1; d <= DISTRICTS_PER_WAREHOUSE; d++) {
    for (let o = 1; o <= ORDERS_PER_DISTRICT; o++) {
      const lines = olCnt[(d - 1) * ORDERS_PER_DISTRICT + o - 1]!;
      const delivered = o < FIRST_NEW_ORDER;
      for (let n = 1; n <= lines; n++) {
        out.int(o).tab().int(d).tab().int(w).tab().int(n).tab().int(rng.int(1, ITEMS)).tab().int(w).tab();
        if (delivered) out.bytes(time).text('\t5\t0.00\t');
        else out.null().text('\t5\t').fixed(rng.int(1, 999_999), 2).tab();
        out.random(rng, 24, 24).endRow();
      }
      yield* flush(false);
    }
  }
  yield* flush(true);
}

/**
 * Section 1's MariaDB floor: TPC-C's five transactions as the least a Node.js client can send
 * them, in client-SQL mode (txbench's own multi-statement batches, sql.ts: a New-Order two round
 * trips, the others one) or in procedure mode (its CALLs, procedures.ts). mysql2 connects (READ
 * COMMITTED, as the executor sets), then the socket is taken from it: each transaction is its
 * pre-built COM_QUERY writes, the answers followed only to their ends (mysql-batch-ends.ts),
 * nothing decoded, no scheduler, no histogram. The inputs are txbench's own (inputs.ts), drawn
 * once: a deck of 460 transactions in the standard mix per terminal, dealt in a loop; a
 * New-Order's second batch writes fixed stock figures where txbench computes them from the first
 * batch's rows.
 * Prints `{ transactions, errors, reads, seconds, cpuS }` for the window after the warm-up.
 */
import mysql from 'mysql2';
import type { Socket } from 'node:net';
import { childWindow } from './child-window.js';
import { MysqlBatchEnds } from './mysql-batch-ends.js';
import type { TpccFloorRequest, TpccFloorResult } from './tpcc-floor-types.js';
import {
  callDelivery,
  callNewOrder,
  callOrderStatus,
  callPayment,
  callStockLevel,
} from '../workloads/tpcc/mysql/procedures.js';
import {
  delivery,
  newOrderRead,
  newOrderWrite,
  orderStatus,
  payment,
  stockLevel,
} from '../workloads/tpcc/mysql/sql.js';
import {
  deliveryInput,
  newOrderInput,
  orderStatusInput,
  paymentInput,
  stockLevelInput,
  UNUSED_ITEM_ID,
  type CustomerRef,
  type NewOrderInput,
  type RunInputContext,
} from '../workloads/tpcc/inputs.js';
import { randomLoadConstants } from '../workloads/tpcc/random.js';
import { Rng } from '../random/rng.js';

const COM_QUERY = 0x03;

function query(sql: string): Buffer {
  const body = Buffer.from(sql, 'utf8');
  const bytes = Buffer.alloc(5 + body.length);
  bytes.writeUIntLE(body.length + 1, 0, 3);
  bytes[4] = COM_QUERY;
  body.copy(bytes, 5);
  return bytes;
}

const customerOf = (ref: CustomerRef): { c: number } | { last: string } =>
  ref.byName ? { last: ref.last } : { c: ref.c };

/**
 * A New-Order's two batches in client-SQL mode. The second writes fixed stock figures and prices
 * where txbench computes them from the first's rows; a rolled-back order (its unused item) writes
 * its other lines and rolls back, as txbench's does.
 */
function newOrderBatches(w: number, i: NewOrderInput): Buffer[] {
  const lines = i.itemIds.flatMap((item, k) =>
    item === UNUSED_ITEM_ID ? [] : [{ k, i: item, w: i.supplyWarehouses[k]! }],
  );
  const stock = [...new Map(lines.map((l) => [l.w * 1e6 + l.i, { w: l.w, i: l.i }])).values()];
  const changes = stock.map((s) => ({ ...s, quantity: 50, ytd: 5, orders: 1, remote: s.w === w ? 0 : 1 }));
  const written = lines.map((l) => ({
    number: l.k + 1,
    i: l.i,
    supplyW: l.w,
    quantity: i.quantities[l.k]!,
    amountCents: 1234,
    distInfo: 'x'.repeat(24),
  }));
  return [
    query(newOrderRead(w, i.d, i.c, [...new Set(i.itemIds)], stock)),
    query(
      newOrderWrite({
        w,
        d: i.d,
        c: i.c,
        olCnt: i.itemIds.length,
        allLocal: i.remoteLines === 0,
        changes,
        lines: written,
        end: i.rollback ? 'rollback' : 'commit',
      }),
    ),
  ];
}

/** One transaction of the mix's card `kind` (0-9 New-Order, 10-19 Payment, then one of each other). */
function transaction(
  mode: TpccFloorRequest['mode'],
  kind: number,
  w: number,
  rng: Rng,
  ctx: RunInputContext,
): Buffer[] {
  const procedures = mode === 'procedures';
  if (kind < 10) {
    const i = newOrderInput(rng, w, ctx);
    return procedures ? [query(callNewOrder(w, i))] : newOrderBatches(w, i);
  }
  if (kind < 20) {
    const p = paymentInput(rng, w, ctx);
    const values = {
      w,
      d: p.d,
      cW: p.cW,
      cD: p.cD,
      customer: customerOf(p.customer),
      amountCents: p.amountCents,
    };
    return [query(procedures ? callPayment(values) : payment(values))];
  }
  if (kind === 20) {
    const o = orderStatusInput(rng, ctx);
    return [query((procedures ? callOrderStatus : orderStatus)(w, o.d, customerOf(o.customer)))];
  }
  if (kind === 21) return [query((procedures ? callDelivery : delivery)(w, deliveryInput(rng).carrier))];
  const d = 1 + (kind % 10);
  return [query((procedures ? callStockLevel : stockLevel)(w, d, stockLevelInput(rng).threshold))];
}

/** 20 rounds of the standard mix's 23 cards: 10 New-Order, 10 Payment, one each of the others. */
function deck(req: TpccFloorRequest, w: number, seed: number): Buffer[][] {
  const rng = new Rng(seed);
  const ctx: RunInputContext = { warehouses: req.warehouses, constants: randomLoadConstants(rng) };
  return Array.from({ length: 23 * 20 }, (_, t) => transaction(req.mode, t % 23, w, rng, ctx));
}

interface Terminal {
  errors: () => number;
  close: () => void;
}

async function terminal(
  req: TpccFloorRequest,
  index: number,
  counts: { transactions: number; reads: number },
  running: () => boolean,
  onError: (err: Error) => void,
): Promise<Terminal> {
  const conn = mysql.createConnection({ uri: req.url, multipleStatements: true });
  conn.on('error', onError);
  await new Promise<void>((resolve, reject) =>
    conn.query('set session transaction isolation level read committed', (err) =>
      err ? reject(err) : resolve(),
    ),
  );
  const stream = (conn as unknown as { stream: Socket }).stream;
  const transactions = deck(req, 1 + (index % req.warehouses), 1 + index);
  const ends = new MysqlBatchEnds();
  let t = 0;
  let step = 0;
  stream.removeAllListeners('data');
  stream.on('data', (chunk: Buffer) => {
    counts.reads++;
    for (let done = ends.feed(chunk, chunk.length); done > 0; done--) {
      if (++step === transactions[t]!.length) {
        step = 0;
        t = (t + 1) % transactions.length;
        counts.transactions++;
      }
      if (running()) stream.write(transactions[t]![step]!);
    }
  });
  stream.write(transactions[0]![0]!);
  return { errors: () => ends.errors, close: () => stream.destroy() };
}

async function main(req: TpccFloorRequest): Promise<TpccFloorResult> {
  let failure: Error | undefined;
  const onError = (err: Error): void => {
    failure ??= err;
  };
  const counts = { transactions: 0, reads: 0 };
  let running = true;
  const terminals = await Promise.all(
    Array.from({ length: req.terminals }, (_, i) => terminal(req, i, counts, () => running, onError)),
  );
  const errors = (): number => terminals.reduce((sum, t) => sum + t.errors(), 0);
  const w = await childWindow(req.warmupMs, req.durationMs, () => ({ ...counts, errors: errors() }));
  const result: TpccFloorResult = {
    transactions: w.end.transactions - w.start.transactions,
    reads: w.end.reads - w.start.reads,
    errors: w.end.errors - w.start.errors,
    seconds: w.seconds,
    cpuS: w.cpuS,
  };
  running = false;
  for (const t of terminals) t.close();
  if (failure) throw failure;
  // The odd deadlock or lock wait is the server's; most answers failing is a database not ready.
  if (result.errors > result.transactions / 10)
    throw new Error(
      `${result.errors} of ${result.transactions} transactions answered with an error (are txbench's procedures installed? section 1 runs --procedures first)`,
    );
  return result;
}

const request = JSON.parse(process.argv[2] ?? '{}') as TpccFloorRequest;
main(request).then(
  (result) => console.log(JSON.stringify(result)),
  (err: unknown) => {
    console.error(`TPC-C floor: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);

/**
 * pgbench scripts that call the same PL/pgSQL functions as txbench's procedure mode, with inputs
 * drawn by the same rules (clause 2): NURand customers and items, 60% of customers by last name,
 * 15% remote Payments, 1% remote supply per order line. Each client keeps one home warehouse
 * (client_id % W + 1) and, for Stock-Level, one district, as txbench's terminals do. New-Order has
 * 10 lines and no intended rollback (an error would abort a pgbench client).
 */
import { SYLLABLES, type NurandConstants } from '../workloads/tpcc/random.js';

export const SCRIPT_NAMES = ['new_order', 'payment', 'order_status', 'delivery', 'stock_level'] as const;

const LINES = 10;
const SYLLABLE_ARRAY = `'{${SYLLABLES.join(',')}}'::text[]`;

/** Home warehouse and district as txbench's terminal i has them: w = i % W + 1, d = i / W % 10 + 1. */
const HOME = `\\set w :client_id % :W + 1
\\set home_d (:client_id / :W) % 10 + 1`;

/** A warehouse other than :w, uniformly (needs W > 1). */
const OTHER_WAREHOUSE = `(:w + random(0, :W - 2)) % :W + 1`;

function customerChoice(c: NurandConstants): string {
  return `\\set by_name random(1, 100)
\\set c ((random(0, 1023) | random(1, 3000)) + ${c.cId}) % 3000 + 1
\\set n ((random(0, 255) | random(0, 999)) + ${c.cLast}) % 1000
\\set n1 :n / 100 + 1
\\set n2 (:n / 10) % 10 + 1
\\set n3 :n % 10 + 1`;
}

const LAST_NAME = `(${SYLLABLE_ARRAY})[:n1] || (${SYLLABLE_ARRAY})[:n2] || (${SYLLABLE_ARRAY})[:n3]`;

export function pgbenchScripts(
  c: NurandConstants,
  warehouses: number,
): Record<(typeof SCRIPT_NAMES)[number], string> {
  const remote = warehouses > 1;
  const lines = Array.from({ length: LINES }, (_, k) => k + 1);
  const newOrder = [
    HOME,
    `\\set d random(1, 10)`,
    `\\set c ((random(0, 1023) | random(1, 3000)) + ${c.cId}) % 3000 + 1`,
    ...lines.map((k) => `\\set i${k} ((random(0, 8191) | random(1, 100000)) + ${c.olIId}) % 100000 + 1`),
    ...lines.map((k) =>
      remote
        ? `\\set s${k} case when random(1, 100) = 1 then ${OTHER_WAREHOUSE} else :w end`
        : `\\set s${k} :w`,
    ),
    ...lines.map((k) => `\\set q${k} random(1, 10)`),
    `select tpcc_new_order(:w, :d, :c, array[${lines.map((k) => `:i${k}::int`).join(', ')}], ` +
      `array[${lines.map((k) => `:s${k}::int`).join(', ')}], array[${lines.map((k) => `:q${k}::int`).join(', ')}]);`,
  ].join('\n');
  const payment = [
    HOME,
    `\\set d random(1, 10)`,
    remote
      ? `\\set remote random(1, 100)
\\if :remote > 85
\\set cw ${OTHER_WAREHOUSE}
\\set cd random(1, 10)
\\else
\\set cw :w
\\set cd :d
\\endif`
      : `\\set cw :w
\\set cd :d`,
    customerChoice(c),
    `\\set amount random(100, 500000)`,
    `\\if :by_name <= 60`,
    `select tpcc_payment(:w, :d, :cw, :cd, 0, ${LAST_NAME}, :amount::numeric / 100);`,
    `\\else`,
    `select tpcc_payment(:w, :d, :cw, :cd, :c, '', :amount::numeric / 100);`,
    `\\endif`,
  ].join('\n');
  const orderStatus = [
    HOME,
    `\\set d random(1, 10)`,
    customerChoice(c),
    `\\if :by_name <= 60`,
    `select tpcc_order_status(:w, :d, 0, ${LAST_NAME});`,
    `\\else`,
    `select tpcc_order_status(:w, :d, :c, '');`,
    `\\endif`,
  ].join('\n');
  const delivery = [HOME, `\\set carrier random(1, 10)`, `select tpcc_delivery(:w, :carrier);`].join('\n');
  const stockLevel = [
    HOME,
    `\\set threshold random(10, 20)`,
    `select tpcc_stock_level(:w, :home_d, :threshold);`,
  ].join('\n');
  return {
    new_order: newOrder + '\n',
    payment: payment + '\n',
    order_status: orderStatus + '\n',
    delivery: delivery + '\n',
    stock_level: stockLevel + '\n',
  };
}

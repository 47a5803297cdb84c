/**
 * The by-name customer of Payment and Order-Status (clauses 2.5.2.2 and 2.6.2.2): of the n customers
 * in the district with the last name, sorted by C_FIRST, the one at 1-based position ceil(n/2).
 * Equal first names occur, and a database's scan order is no order, so C_ID breaks the tie: every
 * dialect and mode renders this one rule and picks the same customer from the same data.
 */
import type { CustomerRef } from './inputs.js';

/** The ORDER BY list of the rule. */
export const BY_NAME_ORDER = 'c_first, c_id';

/** 1-based position of the chosen customer among n (n = 1, 2, 3, 4, 5 gives 1, 1, 2, 2, 3). */
export function byNamePosition(n: number): number {
  return Math.ceil(n / 2);
}

/**
 * A query for the chosen C_ID in one statement (no row when nobody has the name), for use as a
 * scalar subquery. `where` picks the customers (warehouse, district, last name) in the dialect's
 * parameter syntax; `intDiv` is its integer division: `/` on PostgreSQL's and SQL Server's
 * integers, `div` on MySQL's.
 */
export function customerByNameQuery(where: string, intDiv: '/' | 'div'): string {
  return `select c_id from (
      select c_id, row_number() over (order by ${BY_NAME_ORDER}) as rn, count(*) over () as n
      from customer where ${where}) x
    where rn = (n + 1) ${intDiv} 2`;
}

/** How an error names the customer it looked for: "(1, 2, 3)" or "named BARBARBAR in (1, 2)". */
export function describeCustomer(w: number, d: number, customer: CustomerRef): string {
  return customer.byName ? `named ${customer.last} in (${w}, ${d})` : `(${w}, ${d}, ${customer.c})`;
}

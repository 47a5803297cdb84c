/**
 * Section 1's MariaDB floor: the bare loop of tpcc-floor-child.ts in client-SQL mode and in
 * procedure mode, after txbench's two MariaDB runs, on the same database, terminals and window.
 * Its client-SQL figure is the least any Node.js client pays for txbench's batches: where that
 * alone is more than twice txbench's own procedure mode, the client-SQL ÷ procedures target is
 * out of reach for these batches, and the summary says so (reach.ts).
 */
import { runJsonChild } from './children.js';
import type { Cleanup } from './cleanup.js';
import { num, type SummaryRow } from './figures.js';
import type { TpccFloorRequest, TpccFloorResult } from './tpcc-floor-types.js';
import { round, type RunFigures } from './txbench-run.js';
import { floorVerdict, leadClause } from './reach-rule.js';

export interface TpccFloorFigures {
  tps: number;
  usPerTransaction: number;
  /** Socket reads per transaction: how often the client is woken. */
  readsPerTransaction: number;
  errors: number;
}

export interface TpccFloorData {
  clientSql: TpccFloorFigures;
  procedures: TpccFloorFigures;
}

const CHILD = new URL('./tpcc-floor-child.js', import.meta.url);

export function tpccFloorFigures(r: TpccFloorResult): TpccFloorFigures {
  const per = (x: number): number => (r.transactions > 0 ? x / r.transactions : 0);
  return {
    tps: round(r.transactions / r.seconds),
    usPerTransaction: round(per(r.cpuS * 1e6), 1),
    readsPerTransaction: round(per(r.reads), 2),
    errors: r.errors,
  };
}

export async function tpccFloor(
  cleanup: Cleanup,
  request: Omit<TpccFloorRequest, 'mode'>,
): Promise<TpccFloorData> {
  const run = async (mode: TpccFloorRequest['mode']) => {
    const full: TpccFloorRequest = { ...request, mode };
    return tpccFloorFigures(
      await runJsonChild<TpccFloorResult>(cleanup, CHILD, full, `MariaDB TPC-C floor (${mode})`),
    );
  };
  return { clientSql: await run('clientSql'), procedures: await run('procedures') };
}

/** The floor's client-SQL cost over txbench's own procedure mode: what the client-SQL ratio can come down to at best. */
export const clientSqlBound = (floor: TpccFloorData, procedures: RunFigures): number =>
  floor.clientSql.usPerTransaction / procedures.client.usPerTransaction;

export function tpccFloorLine(
  floor: TpccFloorData | { error: string },
  procedures: RunFigures | undefined,
): string {
  if ('error' in floor) return `MariaDB floor: not measured: ${floor.error}`;
  const f = (x: TpccFloorFigures): string =>
    `${num(x.usPerTransaction)} µs/txn, ${num(x.readsPerTransaction)} socket reads/txn, ${num(x.tps)} TPS${x.errors > 0 ? `, ${num(x.errors)} error answers` : ''}`;
  const bound =
    procedures === undefined
      ? ''
      : ` The floor's client-SQL alone is ${num(round(clientSqlBound(floor, procedures), 2))}× txbench's procedure mode${
          clientSqlBound(floor, procedures) > 2
            ? ' (> 2): MariaDB answers each statement of a batch apart, so no Node.js client sending these batches meets the client-SQL ÷ procedures target on this machine'
            : " (≤ 2: within a Node.js client's reach)"
        }.`;
  return `MariaDB floor (a bare Node.js loop of the same batches and CALLs as pre-built COM_QUERY writes, answers followed to their end, nothing decoded; same terminals and window): client-SQL ${f(floor.clientSql)}; procedures ${f(floor.procedures)}.${bound}`;
}

/** The summary's reason, for a missed client-SQL ÷ procedures target the floor puts out of reach. */
export function clientSqlOutOfReach(
  row: SummaryRow,
  floor: TpccFloorData,
  procedures: RunFigures,
): string | undefined {
  const bound = clientSqlBound(floor, procedures);
  if (row.pass || row.value === null) return undefined;
  const verdict = floorVerdict({
    target: row.limit,
    floor: bound,
    txbench: row.value,
    higherIsBetter: false,
  });
  if (!verdict.outOfReach) return undefined;
  return `section 1: the MariaDB floor's client-SQL alone costs ${bound.toFixed(2)}× txbench's procedure mode per transaction (${floor.clientSql.readsPerTransaction} socket reads a transaction, against ${floor.procedures.readsPerTransaction} for the CALLs)${leadClause(verdict, row.value)}`;
}

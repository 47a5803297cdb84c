/**
 * Section 1, client cost per transaction: load 4 warehouses into the bench's PostgreSQL 15 (timed),
 * then zero-think runs in client-SQL and procedure mode, each in its own process, with txbench's CPU
 * per transaction (from its own report) next to the server's (from /proc over the same window);
 * then both modes again on postgres.js instead of the wire path, to show what the wire path buys;
 * then both modes on a MariaDB server of the bench's own (mysql2), against the wire path's procedures.
 */
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { PgCluster } from './pg-cluster.js';
import { runTxbench, type RunFigures } from './txbench-run.js';
import { loadTpcc, type LoadResult } from '../workloads/tpcc/loader.js';
import { settle } from './settle.js';
import { startMariaDb } from './mariadb-server.js';
import { tpccFloor, tpccFloorLine, type TpccFloorData } from './tpcc-floor.js';

export interface ClientCostData {
  warehouses: number;
  load: { seconds: number; phaseSeconds: LoadResult['phaseSeconds']; rows: number };
  runs: {
    clientSql: RunFigures | { error: string };
    procedures: RunFigures | { error: string };
    /** Both modes on postgres.js (TXBENCH_PG_DRIVER=postgres.js): what the wire path bought. */
    clientSqlPostgresJs?: RunFigures | { error: string };
    proceduresPostgresJs?: RunFigures | { error: string };
    /** Both modes on MariaDB (their own targets: against the wire path's procedures, and each other). */
    mariadbClientSql?: RunFigures | { error: string };
    mariadbProcedures?: RunFigures | { error: string };
  };
  /** The MariaDB server's version, or why it could not be used. */
  mariadb?: { version: string } | { error: string };
  /** The bare loop of the same batches and CALLs on MariaDB after txbench's runs, or why it has none. */
  mariadbFloor?: TpccFloorData | { error: string };
  /** The database the runs used (section 2 drives the same one). */
  url: string;
}

export async function clientCost(
  cleanup: Cleanup,
  cluster: PgCluster,
  cfg: BenchConfig['clientCost'],
  progress: (line: string) => void,
): Promise<ClientCostData> {
  const url = await cluster.createDatabase('tpcc4');
  progress(`loading ${cfg.warehouses} warehouses`);
  const load = await loadTpcc(url, { warehouses: cfg.warehouses });
  await settle(url);
  const spec = {
    terminals: cfg.terminals,
    connections: cfg.connections,
    warmupMs: cfg.warmupMs,
    durationMs: cfg.durationMs,
  };
  const attempt = async (
    procedures: boolean,
    on: { url: string; pid: number; label?: string; env?: Record<string, string> },
  ): Promise<RunFigures | { error: string }> => {
    progress(
      `${procedures ? 'procedure' : 'client-SQL'} mode${on.label ? ` on ${on.label}` : ''}, ${cfg.terminals} terminals, ${(cfg.warmupMs + cfg.durationMs) / 1000} s`,
    );
    try {
      return await runTxbench(cleanup, on.url, { ...spec, procedures, env: on.env ?? {} }, on.pid);
    } catch (err) {
      return { error: messageOf(err) };
    }
  };
  const pg = { url, pid: cluster.pid };
  const pgJs = { ...pg, label: 'postgres.js', env: { TXBENCH_PG_DRIVER: 'postgres.js' } };
  const clientSql = await attempt(false, pg);
  const procedures = await attempt(true, pg);
  const clientSqlPostgresJs = await attempt(false, pgJs);
  const proceduresPostgresJs = await attempt(true, pgJs);
  const maria = await mariadbRuns(cleanup, cfg, progress, attempt);
  return {
    warehouses: cfg.warehouses,
    load: { seconds: load.seconds, phaseSeconds: load.phaseSeconds, rows: load.rows },
    runs: { clientSql, procedures, clientSqlPostgresJs, proceduresPostgresJs, ...maria.runs },
    mariadb: maria.server,
    ...(maria.floor === undefined ? {} : { mariadbFloor: maria.floor }),
    url,
  };
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The same two runs on a MariaDB server started for them (mysql2 carries both modes). */
async function mariadbRuns(
  cleanup: Cleanup,
  cfg: BenchConfig['clientCost'],
  progress: (line: string) => void,
  attempt: (
    procedures: boolean,
    on: { url: string; pid: number; label: string },
  ) => Promise<RunFigures | { error: string }>,
): Promise<{
  server: NonNullable<ClientCostData['mariadb']>;
  runs: Pick<ClientCostData['runs'], 'mariadbClientSql' | 'mariadbProcedures'>;
  floor?: ClientCostData['mariadbFloor'];
}> {
  let server;
  try {
    progress('starting MariaDB');
    server = await startMariaDb(cleanup);
  } catch (err) {
    return { server: { error: messageOf(err) }, runs: {} };
  }
  try {
    const url = await server.createDatabase('tpcc4');
    progress(`loading ${cfg.warehouses} warehouses into MariaDB`);
    await loadTpcc(url, { warehouses: cfg.warehouses });
    const on = { url, pid: server.pid, label: 'MariaDB' };
    const mariadbClientSql = await attempt(false, on);
    const mariadbProcedures = await attempt(true, on);
    progress(`the bare loop of the same batches and CALLs on MariaDB, ${cfg.terminals} terminals`);
    const floor = await tpccFloor(cleanup, {
      url,
      warehouses: cfg.warehouses,
      terminals: cfg.terminals,
      warmupMs: cfg.warmupMs,
      durationMs: cfg.durationMs,
    }).catch((err: unknown) => ({ error: messageOf(err) }));
    return { server: { version: server.version }, runs: { mariadbClientSql, mariadbProcedures }, floor };
  } catch (err) {
    return { server: { error: messageOf(err) }, runs: {} };
  } finally {
    await server.stop();
  }
}

export function isRun(r: RunFigures | { error: string } | undefined): r is RunFigures {
  return r !== undefined && !('error' in r);
}

export const CLIENT_SQL_RATIO = 'MariaDB client CPU per transaction, client-SQL ÷ procedure mode';

export const CLIENT_COST_TARGETS: readonly TargetDef<ClientCostData>[] = [
  {
    figure: 'load 4 warehouses (txbench load)',
    unit: 's',
    op: '<=',
    limit: 20,
    value: (d) => d.load.seconds,
  },
  {
    figure: 'procedure mode New-Orders/min (unpaced)',
    unit: '',
    op: '>=',
    limit: 50_000,
    value: (d) => (isRun(d.runs.procedures) ? d.runs.procedures.tpmC : d.runs.procedures.error),
  },
  {
    figure: 'procedure mode txbench CPU per transaction',
    unit: 'µs',
    op: '<=',
    limit: 100,
    value: (d) =>
      isRun(d.runs.procedures) ? d.runs.procedures.client.usPerTransaction : d.runs.procedures.error,
  },
  {
    figure: 'client-SQL New-Orders/min (unpaced)',
    unit: '',
    op: '>=',
    limit: 20_000,
    value: (d) => (isRun(d.runs.clientSql) ? d.runs.clientSql.tpmC : d.runs.clientSql.error),
  },
  {
    figure: 'client-SQL txbench CPU per transaction',
    unit: 'µs',
    op: '<=',
    limit: 380,
    value: (d) =>
      isRun(d.runs.clientSql) ? d.runs.clientSql.client.usPerTransaction : d.runs.clientSql.error,
  },
  {
    figure: 'client CPU per transaction, client-SQL ÷ procedure mode',
    unit: '',
    op: '<=',
    limit: 2,
    value: (d) =>
      isRun(d.runs.clientSql) && isRun(d.runs.procedures)
        ? d.runs.clientSql.client.usPerTransaction / d.runs.procedures.client.usPerTransaction
        : 'needs both runs',
  },
  {
    figure: 'MariaDB procedure mode client CPU per transaction ÷ PostgreSQL wire path',
    unit: '',
    op: '<=',
    limit: 1.3,
    value: (d) => perTransactionRatio(d.runs.mariadbProcedures, d.runs.procedures),
  },
  {
    figure: CLIENT_SQL_RATIO,
    unit: '',
    op: '<=',
    limit: 2,
    value: (d) => perTransactionRatio(d.runs.mariadbClientSql, d.runs.mariadbProcedures),
  },
];

/** Client CPU per transaction of one run over another's, or why there is none. */
function perTransactionRatio(
  top: RunFigures | { error: string } | undefined,
  bottom: RunFigures | { error: string } | undefined,
): number | string {
  if (top === undefined || bottom === undefined) return 'MariaDB not measured';
  if (!isRun(top)) return top.error;
  if (!isRun(bottom)) return bottom.error;
  return top.client.usPerTransaction / bottom.client.usPerTransaction;
}

type Row = { mode: string; run: RunFigures | { error: string } };

export function clientCostTable(d: ClientCostData): string {
  const r = (f: (x: RunFigures) => string) => (row: Row) => (isRun(row.run) ? f(row.run) : '');
  const columns: Column<Row>[] = [
    {
      header: 'mode',
      align: 'left',
      text: (row) => (isRun(row.run) ? row.mode : `${row.mode} (failed: ${row.run.error})`),
    },
    { header: 'New-Orders/min', align: 'right', text: r((x) => num(x.tpmC)) },
    { header: 'NOPM', align: 'right', text: r((x) => num(x.nopm)) },
    { header: 'TPS', align: 'right', text: r((x) => num(x.tps)) },
    { header: 'txbench µs/txn', align: 'right', text: r((x) => num(x.client.usPerTransaction)) },
    { header: 'txbench cores', align: 'right', text: r((x) => num(x.client.coresUsed)) },
    { header: 'server µs/txn', align: 'right', text: r((x) => num(x.server?.usPerTransaction)) },
    { header: 'server cores', align: 'right', text: r((x) => num(x.server?.coresUsed)) },
    { header: 'other load, cores', align: 'right', text: r((x) => num(x.otherCores)) },
    { header: 'avg ms', align: 'right', text: r((x) => num(x.responseMs.avg)) },
    { header: 'p90 ms', align: 'right', text: r((x) => num(x.responseMs.p90)) },
    { header: 'errors', align: 'right', text: r((x) => num(x.errors)) },
  ];
  const load = d.load;
  return [
    `Load: ${d.warehouses} warehouses in ${num(load.seconds)} s (data ${num(load.phaseSeconds.data)} s, then keys and indexes ${num(load.phaseSeconds.indexes)} s and analyze ${num(load.phaseSeconds.analyze)} s after the data; ${num(load.rows)} rows).`,
    '',
    formatTable(
      columns,
      [
        { mode: 'client-SQL', run: d.runs.clientSql },
        { mode: 'procedures', run: d.runs.procedures },
        ...(d.runs.clientSqlPostgresJs
          ? [{ mode: 'client-SQL on postgres.js', run: d.runs.clientSqlPostgresJs }]
          : []),
        ...(d.runs.proceduresPostgresJs
          ? [{ mode: 'procedures on postgres.js', run: d.runs.proceduresPostgresJs }]
          : []),
        ...(d.runs.mariadbClientSql ? [{ mode: 'MariaDB client-SQL', run: d.runs.mariadbClientSql }] : []),
        ...(d.runs.mariadbProcedures ? [{ mode: 'MariaDB procedures', run: d.runs.mariadbProcedures }] : []),
      ],
      'markdown',
    ),
    ...(d.mariadb === undefined
      ? []
      : [
          '',
          'error' in d.mariadb
            ? `MariaDB: not measured: ${d.mariadb.error}`
            : mariadbLine(
                d.mariadb.version,
                d.runs.mariadbClientSql,
                d.runs.mariadbProcedures,
                d.runs.procedures,
              ),
        ]),
    ...(d.mariadbFloor === undefined
      ? []
      : [
          '',
          tpccFloorLine(
            d.mariadbFloor,
            isRun(d.runs.mariadbProcedures) ? d.runs.mariadbProcedures : undefined,
          ),
        ]),
  ].join('\n');
}

function mariadbLine(
  version: string,
  clientSql: RunFigures | { error: string } | undefined,
  procedures: RunFigures | { error: string } | undefined,
  wireProcedures: RunFigures | { error: string },
): string {
  const ratio = (top: typeof clientSql, bottom: typeof clientSql, what: string): string => {
    const r = perTransactionRatio(top, bottom);
    return typeof r === 'number' ? `${what} ${r.toFixed(2)}×` : `${what}: no ratio (${r})`;
  };
  return `MariaDB ${version} (mysql2, the same ${isRun(procedures) ? procedures.terminals : ''} terminals and window): client CPU per transaction ${ratio(clientSql, procedures, 'client-SQL ÷ procedures')}, ${ratio(procedures, wireProcedures, "procedures ÷ the PostgreSQL wire path's procedures")}. Server µs/txn there is mariadbd's own CPU.`;
}

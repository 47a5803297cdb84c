/**
 * Section 1, client cost per transaction: load 4 warehouses into the bench's PostgreSQL 15 (timed),
 * then zero-think runs in client-SQL and procedure mode, each in its own process, with txbench's CPU
 * per transaction (from its own report) next to the server's (from /proc over the same window);
 * then both modes again on postgres.js instead of the wire path, to show what the wire path buys.
 */
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { PgCluster } from './pg-cluster.js';
import { runTxbench, type RunFigures } from './txbench-run.js';
import { loadTpcc, type LoadResult } from '../workloads/tpcc/loader.js';
import { settle } from './settle.js';

export interface ClientCostData {
  warehouses: number;
  load: { seconds: number; phaseSeconds: LoadResult['phaseSeconds']; rows: number };
  runs: {
    clientSql: RunFigures | { error: string };
    procedures: RunFigures | { error: string };
    /** Both modes on postgres.js (TXBENCH_PG_DRIVER=postgres.js): what the wire path bought. */
    clientSqlPostgresJs?: RunFigures | { error: string };
    proceduresPostgresJs?: RunFigures | { error: string };
  };
  /** The database the runs used (section 2 drives the same one). */
  url: string;
}

export async function clientCost(
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
    driver?: 'postgres.js',
  ): Promise<RunFigures | { error: string }> => {
    progress(
      `${procedures ? 'procedure' : 'client-SQL'} mode${driver ? ` on ${driver}` : ''}, ${cfg.terminals} terminals, ${(cfg.warmupMs + cfg.durationMs) / 1000} s`,
    );
    try {
      const env: Record<string, string> = driver ? { TXBENCH_PG_DRIVER: driver } : {};
      return await runTxbench(url, { ...spec, procedures, env }, cluster.pid);
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  };
  const clientSql = await attempt(false);
  const procedures = await attempt(true);
  const clientSqlPostgresJs = await attempt(false, 'postgres.js');
  const proceduresPostgresJs = await attempt(true, 'postgres.js');
  return {
    warehouses: cfg.warehouses,
    load: { seconds: load.seconds, phaseSeconds: load.phaseSeconds, rows: load.rows },
    runs: { clientSql, procedures, clientSqlPostgresJs, proceduresPostgresJs },
    url,
  };
}

export function isRun(r: RunFigures | { error: string } | undefined): r is RunFigures {
  return r !== undefined && !('error' in r);
}

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
];

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
      ],
      'markdown',
    ),
  ].join('\n');
}

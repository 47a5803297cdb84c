/**
 * Section 5, the throughput ceiling: zero think time on the embedded PostgreSQL, 2 warehouses,
 * 1 to 16 terminals (one connection each), client-SQL and procedure mode, short windows, so that
 * regressions show. No targets: the table is the record.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column } from './figures.js';
import { runTxbench, type RunFigures } from './txbench-run.js';
import { startEmbedded } from '../targets/embedded.js';
import { loadTpcc } from '../workloads/tpcc/loader.js';
import { settle } from './settle.js';

type Outcome = RunFigures | { error: string };

export interface CeilingData {
  warehouses: number;
  loadSeconds: number;
  rows: { terminals: number; clientSql: Outcome; procedures: Outcome }[];
}

export async function ceilingSection(
  cleanup: Cleanup,
  cfg: BenchConfig['ceiling'],
  progress: (line: string) => void,
): Promise<CeilingData> {
  const base = await mkdtemp(path.join(tmpdir(), 'txbench-bench-embedded-'));
  const removeDir = cleanup.onCleanup('embedded data directory', () =>
    rm(base, { recursive: true, force: true }),
  );
  try {
    // As root the server runs as `postgres`, which must reach the data directory.
    await chmod(base, 0o755);
    progress('starting the embedded PostgreSQL');
    const server = await startEmbedded(path.join(base, 'pg'), { create: true });
    const stopServer = cleanup.onCleanup('embedded PostgreSQL', () => server.stop());
    try {
      progress(`loading ${cfg.warehouses} warehouses`);
      const load = await loadTpcc(server.url, { warehouses: cfg.warehouses });
      await settle(server.url);
      const rows: CeilingData['rows'] = [];
      for (const terminals of cfg.terminals) {
        const run = async (procedures: boolean): Promise<Outcome> => {
          progress(`${terminals} terminals, ${procedures ? 'procedures' : 'client-SQL'}`);
          try {
            return await runTxbench(cleanup, server.url, {
              procedures,
              terminals,
              connections: terminals,
              warmupMs: cfg.warmupMs,
              durationMs: cfg.durationMs,
            });
          } catch (err) {
            return { error: err instanceof Error ? err.message : String(err) };
          }
        };
        rows.push({ terminals, clientSql: await run(false), procedures: await run(true) });
      }
      return { warehouses: cfg.warehouses, loadSeconds: load.seconds, rows };
    } finally {
      await stopServer();
    }
  } finally {
    await removeDir();
  }
}

export function ceilingTable(d: CeilingData): string {
  type Row = CeilingData['rows'][number];
  const show = (o: Outcome, f: (r: RunFigures) => string): string =>
    'error' in o ? `failed: ${o.error}` : f(o);
  const columns: Column<Row>[] = [
    { header: 'terminals', align: 'right', text: (r) => String(r.terminals) },
    { header: 'client-SQL NO/min', align: 'right', text: (r) => show(r.clientSql, (x) => num(x.tpmC)) },
    { header: 'TPS', align: 'right', text: (r) => show(r.clientSql, (x) => num(x.tps)) },
    {
      header: 'µs/txn',
      align: 'right',
      text: (r) => show(r.clientSql, (x) => num(x.client.usPerTransaction)),
    },
    { header: 'p90 ms', align: 'right', text: (r) => show(r.clientSql, (x) => num(x.responseMs.p90)) },
    { header: 'procedures NO/min', align: 'right', text: (r) => show(r.procedures, (x) => num(x.tpmC)) },
    { header: 'TPS', align: 'right', text: (r) => show(r.procedures, (x) => num(x.tps)) },
    {
      header: 'µs/txn',
      align: 'right',
      text: (r) => show(r.procedures, (x) => num(x.client.usPerTransaction)),
    },
    { header: 'p90 ms', align: 'right', text: (r) => show(r.procedures, (x) => num(x.responseMs.p90)) },
  ];
  const first = d.rows.map((r) => r.clientSql).find((o): o is RunFigures => !('error' in o));
  return [
    `Embedded PostgreSQL, ${d.warehouses} warehouses (loaded in ${num(d.loadSeconds)} s), zero think time (NO/min: New-Orders per minute, unpaced, not tpmC), connections = terminals${first ? `, ${num(first.windowS)} s windows` : ''}.`,
    '',
    formatTable(columns, d.rows, 'markdown'),
  ].join('\n');
}

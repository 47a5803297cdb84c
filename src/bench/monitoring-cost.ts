/**
 * Section 6, what monitoring costs: the Sampler's CPU per sample on this machine's /proc (and what
 * that is at one sample a second), the live dashboard's CPU per update pushed to open pages, and the same client-SQL run on section 1's database with
 * monitoring on and off, side by side, each in its own process.
 */
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import { formatTable, num, type Column, type TargetDef } from './figures.js';
import type { PgCluster } from './pg-cluster.js';
import { measureDashboardCost, type DashboardCost } from './dashboard-cost.js';
import { measureSamplerCost, type SamplerCost } from './sampler-cost.js';
import { runTxbench, type RunFigures } from './txbench-run.js';

export interface MonitoringCostData {
  sampler: SamplerCost;
  dashboard: DashboardCost;
  /**
   * Off, on, on, off: each run adds orders, so the database grows over the section; in this order
   * a steady drift weighs on both alike (off, on, off, on would leave every monitored run a step later).
   */
  runs: { monitor: boolean; run: RunFigures }[];
}

export async function monitoringCost(
  cleanup: Cleanup,
  cluster: PgCluster,
  url: string,
  cfg: BenchConfig['clientCost'],
  progress: (line: string) => void,
): Promise<MonitoringCostData> {
  progress('the sampler alone: 1000 samples of /proc');
  const sampler = await measureSamplerCost({ samples: 1000 });
  progress('the live dashboard alone: 2000 updates to 3 pages');
  const dashboard = await measureDashboardCost({ pages: 3, updates: 2000 });
  const spec = {
    procedures: false,
    terminals: cfg.terminals,
    connections: cfg.connections,
    warmupMs: cfg.warmupMs,
    durationMs: cfg.durationMs,
  };
  const runs: MonitoringCostData['runs'] = [];
  for (const monitor of [false, true, true, false]) {
    progress(`client-SQL, ${cfg.terminals} terminals, monitoring ${monitor ? 'on' : 'off'}`);
    runs.push({ monitor, run: await runTxbench(cleanup, url, { ...spec, monitor }, cluster.pid) });
  }
  return { sampler, dashboard, runs };
}

/** Mean client CPU per transaction of the monitored runs over that of the others. */
function cpuRatio(d: MonitoringCostData): number | null {
  const mean = (monitor: boolean): number => {
    const xs = d.runs.filter((r) => r.monitor === monitor).map((r) => r.run.client.usPerTransaction);
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  const off = mean(false);
  return off > 0 ? Math.round((mean(true) / off) * 1000) / 1000 : null;
}

export const MONITORING_COST_TARGETS: readonly TargetDef<MonitoringCostData>[] = [
  {
    figure: 'sampler CPU at 1 sample/s',
    unit: '% of a core',
    op: '<=',
    limit: 1,
    value: (d) => d.sampler.pctOfOneCoreAt1s,
  },
  {
    figure: 'dashboard CPU at 1 update/s, 3 pages',
    unit: '% of a core',
    op: '<=',
    limit: 1,
    value: (d) => d.dashboard.pctOfOneCoreAt1s,
  },
  {
    figure: 'txbench CPU per transaction, monitored / not',
    unit: '×',
    op: '<=',
    limit: 1.05,
    value: cpuRatio,
  },
];

type Row = { label: string; run: RunFigures };

export function monitoringCostTable(d: MonitoringCostData): string {
  const columns: Column<Row>[] = [
    { header: 'run', align: 'left', text: (r) => r.label },
    { header: 'TPS', align: 'right', text: (r) => num(r.run.tps) },
    { header: 'txbench µs/txn', align: 'right', text: (r) => num(r.run.client.usPerTransaction) },
    { header: 'txbench cores', align: 'right', text: (r) => num(r.run.client.coresUsed) },
    { header: 'server µs/txn', align: 'right', text: (r) => num(r.run.server?.usPerTransaction) },
    { header: 'other load, cores', align: 'right', text: (r) => num(r.run.otherCores) },
    { header: 'avg ms', align: 'right', text: (r) => num(r.run.responseMs.avg) },
    { header: 'p99 ms', align: 'right', text: (r) => num(r.run.responseMs.p99) },
  ];
  const s = d.sampler;
  return [
    `Sampler: ${num(s.cpuUsPerSample)} µs of CPU per sample (${s.samples} samples, ${num(s.wallMsPerSample)} ms each), ` +
      `${num(s.pctOfOneCoreAt1s)}% of one core at one sample a second.`,
    `Dashboard: ${num(d.dashboard.cpuUsPerUpdate)} µs of CPU per update (${num(d.dashboard.bytesPerUpdate)} bytes: a TPC-C interval's five types, two disks and the host) pushed to ${d.dashboard.pages} open pages ` +
      `(their HTTP clients in the same process, so an upper bound; ${d.dashboard.dropped} updates dropped), ` +
      `${num(d.dashboard.pctOfOneCoreAt1s)}% of one core at one update a second.`,
    '',
    formatTable(
      columns,
      d.runs.map((r, i) => ({
        label: `${i + 1}. monitoring ${r.monitor ? 'on' : 'off (--no-monitor)'}`,
        run: r.run,
      })),
      'markdown',
    ),
  ].join('\n');
}

/**
 * `npm run bench`: proves txbench is not the bottleneck, side by side with the limits on this
 * machine. Nine sections (client cost, pgbench, scheduler, loader, ceiling, monitoring, sysbench, worker threads,
 * the floor), and a tenth on request (a larger load: BENCH_SECTIONS=9); a failing section is
 * recorded with its one-line reason and the others go on. Prints one table per section and a
 * summary of targets; writes bench.json. Environment: see config.ts (BENCH_SCALE, BENCH_SECTIONS…).
 */
import { tmpdir } from 'node:os';
import { ceilingSection, ceilingTable } from './ceiling.js';
import { Cleanup } from './cleanup.js';
import { clientCost, clientCostTable, CLIENT_COST_TARGETS, type ClientCostData } from './client-cost.js';
import { contention, contentionNote } from './contention.js';
import { loadConfig } from './config.js';
import { LARGE_LOAD_TARGETS, largeLoadSection, largeLoadTable } from './large-load.js';
import { LOADER_TARGETS, loaderSection, loaderTable } from './loader.js';
import { describeMachine, machine } from './machine.js';
import { floorSection, floorTable } from './floor.js';
import { markOutOfReach } from './reach.js';
import { startCluster, type PgCluster } from './pg-cluster.js';
import { PGBENCH_TARGETS, pgbenchSection, pgbenchTable, type PgbenchData } from './pgbench.js';
import { sysbenchSection, sysbenchTable, sysbenchTargets } from './sysbench.js';
import { renderReport, writeReport } from './report.js';
import { SCHEDULER_TARGETS, schedulerSection, schedulerTable } from './scheduler.js';
import { log, oneLine, section, type SectionRecord } from './sections.js';
import { MONITORING_COST_TARGETS, monitoringCost, monitoringCostTable } from './monitoring-cost.js';
import { WORKERS_TARGETS, workersSection, workersTable } from './workers.js';

const started = performance.now();

async function main(cleanup: Cleanup): Promise<number> {
  const cfg = loadConfig();
  const selected = new Set(cfg.sections);
  // Sections 2 and 6 drive section 1's database (section 2 compares with its procedure-mode run).
  if (selected.has(2) || selected.has(6)) selected.add(1);
  const host = await machine(tmpdir());
  log(`on ${describeMachine(host)}`);
  const records: SectionRecord[] = [];
  const p = (id: number) => (line: string) => log(`${id}. ${line}`);

  // The scheduler first, on a quiet machine: it needs no database.
  const s3 = await section(
    cleanup,
    records,
    { id: 3, key: 'scheduler', title: 'the scheduler alone (stand-in executor)', targets: SCHEDULER_TARGETS },
    selected.has(3),
    () => schedulerSection(cleanup, cfg.scheduler, p(3)),
    schedulerTable,
  );

  // Worker threads on the stand-in, also before any database starts.
  await section(
    cleanup,
    records,
    {
      id: 8,
      key: 'workers',
      title: 'worker threads: the client alone (stand-in executor) at 1 and 2 workers',
      targets: WORKERS_TARGETS,
    },
    selected.has(8),
    () => workersSection(cleanup, cfg.workers, p(8)),
    workersTable,
  );

  let cluster: PgCluster | undefined;
  let postgresInfo: { version: string; settings: Readonly<Record<string, string>> } | undefined;
  let clusterError: string | undefined;
  if ([1, 2, 4, 6, 7, 9, 10].some((s) => selected.has(s))) {
    try {
      log('starting PostgreSQL 15 for sections 1, 2, 4, 6, 7, 9 and 10');
      cluster = await startCluster(cleanup);
      postgresInfo = { version: cluster.version, settings: cluster.settings };
    } catch (err) {
      clusterError = `PostgreSQL 15 did not start: ${oneLine(err)}`;
      log(clusterError);
    }
  }
  const needCluster = (): PgCluster => {
    if (cluster === undefined) throw new Error(clusterError ?? 'no PostgreSQL server');
    return cluster;
  };
  let s1: ClientCostData | undefined;
  let s2: PgbenchData | undefined;
  try {
    s1 = await section(
      cleanup,
      records,
      {
        id: 1,
        key: 'clientCost',
        title: 'client cost per transaction (PostgreSQL 15)',
        targets: CLIENT_COST_TARGETS,
      },
      selected.has(1),
      () => clientCost(cleanup, needCluster(), cfg.clientCost, p(1)),
      clientCostTable,
    );
    s2 = await section(
      cleanup,
      records,
      {
        id: 2,
        key: 'pgbench',
        title: 'the client-side limit (pgbench, same functions)',
        targets: PGBENCH_TARGETS,
      },
      selected.has(2),
      () => {
        if (s1 === undefined) throw new Error('needs section 1 (its database and its procedure-mode run)');
        return pgbenchSection(cleanup, needCluster(), s1, cfg, p(2));
      },
      pgbenchTable,
    );
    await section(
      cleanup,
      records,
      {
        id: 6,
        key: 'monitoring',
        title: 'what monitoring costs (sampler, dashboard; a run with and without)',
        targets: MONITORING_COST_TARGETS,
      },
      selected.has(6),
      () => {
        if (s1 === undefined) throw new Error('needs section 1 (its database)');
        return monitoringCost(cleanup, needCluster(), s1.url, cfg.clientCost, p(6));
      },
      monitoringCostTable,
    );
    await section(
      cleanup,
      records,
      {
        id: 4,
        key: 'loader',
        title: `the loader (${cfg.loader.warehouses} warehouses)`,
        targets: LOADER_TARGETS,
      },
      selected.has(4),
      () => loaderSection(cleanup, needCluster(), cfg.loader, p(4)),
      loaderTable,
    );
    await section(
      cleanup,
      records,
      {
        id: 7,
        key: 'sysbench',
        title: `sysbench OLTP against sysbench 1.0.20 (same tables, ${cfg.sysbench.threadCounts.join(' and ')} threads, in turns)`,
        targets: sysbenchTargets(cfg.sysbench.threadCounts),
      },
      selected.has(7),
      () => sysbenchSection(cleanup, needCluster(), cfg.sysbench, p(7)),
      sysbenchTable,
    );
    await section(
      cleanup,
      records,
      {
        id: 10,
        key: 'floor',
        title: 'the floor: sysbench OLTP by sysbench, a bare Node.js socket loop and txbench, in turns',
        targets: [],
      },
      selected.has(10),
      () => floorSection(cleanup, needCluster(), cfg.floor, cfg.sysbench, p(10)),
      floorTable,
    );
    await section(
      cleanup,
      records,
      {
        id: 9,
        key: 'largeLoad',
        title: `a larger load (${cfg.largeLoad.warehouses} warehouses) against the device's write rate`,
        targets: LARGE_LOAD_TARGETS,
      },
      selected.has(9),
      () => largeLoadSection(cleanup, needCluster(), cfg.largeLoad, p(9)),
      largeLoadTable,
    );
  } finally {
    if (cluster) {
      log('stopping PostgreSQL 15');
      await cluster.stop().catch((err: unknown) => log(`stopping PostgreSQL failed: ${oneLine(err)}`));
    }
  }
  await section(
    cleanup,
    records,
    { id: 5, key: 'ceiling', title: 'throughput ceiling (embedded PostgreSQL)', targets: [] },
    selected.has(5),
    () => ceilingSection(cleanup, cfg.ceiling, p(5)),
    ceilingTable,
  );

  records.sort((a, b) => a.id - b.id);
  markOutOfReach(records);
  const load = contention(s1, s2, s3);
  console.log(renderReport(records, contentionNote(load, host.cores)));
  await writeReport(cfg, records, {
    machine: host,
    postgres: postgresInfo,
    contention: load,
    startedAt: started,
  });
  log(`wrote ${cfg.out}`);
  return records.some((r) => r.status === 'failed') ? 1 : 0;
}

/** The bench process: its clean-up and signal handlers are this call's, removed when it is done. */
async function benchProcess(): Promise<void> {
  const cleanup = new Cleanup();
  cleanup.installSignalHandlers();
  try {
    const code = await main(cleanup);
    process.exitCode = cleanup.wasInterrupted() ? 130 : code;
  } catch (err) {
    console.error(`bench: ${oneLine(err)}`);
    process.exitCode = 1;
  } finally {
    await cleanup.cleanupAll();
    cleanup.removeSignalHandlers();
  }
}

await benchProcess();

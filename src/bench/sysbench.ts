/**
 * Section 7, txbench's sysbench OLTP against real sysbench 1.0.20 (C + LuaJIT) on the same
 * PostgreSQL 15 tables (txbench loads them): oltp_point_select, oltp_read_only and
 * oltp_read_write at 1 and 4 threads/terminals, no think time. For each pairing the two tools
 * take turns (sysbench, txbench, txbench, sysbench), as section 2 does with pgbench, so that the
 * machine's other load and the growth of the tables weigh on both alike; the targets compare each
 * tool's runs together, and the table shows each ratio's spread over the two pairs of turns.
 * sysbench's CPU comes from the shell's `times` after it exits, txbench's from its own report over
 * the measured window; both per statement (BEGIN and COMMIT counted, as sysbench counts queries).
 * Then the same pairings on a MariaDB server started for them (sysbench's mysql driver, txbench
 * through mysql2), with targets of their own; a MariaDB that cannot start is recorded as such.
 */
import { loadavg as osLoadavg } from 'node:os';
import { startProgram, lastLine } from './children.js';
import type { Cleanup } from './cleanup.js';
import type { BenchConfig } from './config.js';
import type { PgCluster } from './pg-cluster.js';
import { clientCpuCount, onClientCpus, placed, type Placement } from './placement.js';
import {
  pairingOf,
  SYSBENCH_TURNS,
  type MariaDbSysbench,
  type Script,
  type SysbenchData,
  type SysbenchPairing,
  type SysbenchTurn,
  type ToolFigures,
} from './sysbench-figures.js';
import { round, runTxbench, type RunFigures } from './txbench-run.js';
import { loadTables, onMariaDb, printable } from './sysbench-tables.js';

// The section's figures, targets and table, where main.ts and the tests have always found them.
export {
  combineTurns,
  pairingOf,
  sysbenchTable,
  sysbenchTargets,
  SYSBENCH_SCRIPTS,
  SYSBENCH_TURNS,
  type MariaDbSysbench,
  type SysbenchData,
  type SysbenchPairing,
  type SysbenchTurn,
  type Tool,
  type ToolFigures,
} from './sysbench-figures.js';

/** Where the pairings run: the database's URL, sysbench's connection options, the server's pid. */
interface SysbenchServer {
  url: string;
  /** sysbench's options naming the driver and the database. */
  connect: string[];
  serverPid: number;
}

export async function sysbenchSection(
  cleanup: Cleanup,
  cluster: PgCluster,
  cfg: BenchConfig['sysbench'],
  progress: (line: string) => void,
): Promise<SysbenchData> {
  const startLoad = loadavg();
  const url = await cluster.createDatabase('sysbench');
  const seconds = Math.max(1, Math.round(cfg.durationMs / 1000));
  const loadSeconds = await loadTables(url, cfg, progress);
  const postgres: SysbenchServer = {
    url,
    connect: [
      '--db-driver=pgsql',
      '--pgsql-host=127.0.0.1',
      `--pgsql-port=${cluster.port}`,
      '--pgsql-user=postgres',
      '--pgsql-db=sysbench',
    ],
    serverPid: cluster.pid,
  };
  const pairings = await runPairings(cleanup, postgres, cfg, progress);
  const threads = Math.max(...cfg.threadCounts);
  const pgData: SysbenchData = {
    tables: cfg.tables,
    tableSize: cfg.tableSize,
    threads,
    threadCounts: [...cfg.threadCounts],
    workers: sysbenchWorkers(threads, pairings.find((p) => p.threads === threads)?.placement),
    seconds,
    loadSeconds,
    command: commandOf(postgres, cfg),
    scripts: pairings
      .filter((p) => p.threads === threads)
      .map((p) => ({ script: p.script, sysbench: p.sysbench, txbench: p.txbench })),
    pairings,
    loadAverage: { start: startLoad, end: loadavg() },
  };
  return { ...pgData, mariadb: await mariadbPairings(cleanup, cfg, progress) };
}

/** The same pairings on a MariaDB server started for them; its failure is recorded, not thrown. */
function mariadbPairings(
  cleanup: Cleanup,
  cfg: BenchConfig['sysbench'],
  progress: (line: string) => void,
): Promise<MariaDbSysbench | { error: string }> {
  const start = loadavg();
  return onMariaDb(cleanup, 'sysbench', cfg, progress, async (tables) => {
    const maria: SysbenchServer = { url: tables.url, connect: tables.connect, serverPid: tables.serverPid };
    const pairings = await runPairings(cleanup, maria, cfg, (line) => progress(`MariaDB: ${line}`));
    return {
      version: tables.version,
      loadSeconds: tables.loadSeconds,
      command: commandOf(maria, cfg),
      pairings,
      loadAverage: { start, end: loadavg() },
    };
  });
}

/** sysbench's options for a run on a target, before the script and `--threads`. */
function sysbenchArgs(target: SysbenchServer, cfg: BenchConfig['sysbench']): string[] {
  return [
    ...target.connect,
    `--tables=${cfg.tables}`,
    `--table-size=${cfg.tableSize}`,
    // sysbench 1.0.20 has no warm-up option: its figures cover the whole run.
    `--time=${Math.max(1, Math.round(cfg.durationMs / 1000))}`,
  ];
}

/** The command as printed: a password (a throw-away server's, but still) is not. */
function commandOf(target: SysbenchServer, cfg: BenchConfig['sysbench']): string {
  const args = printable(sysbenchArgs(target, cfg));
  return `sysbench SCRIPT ${args.join(' ')} --threads=N run`;
}

/** Every script at every thread count on one target, the tools in turns. */
async function runPairings(
  cleanup: Cleanup,
  target: SysbenchServer,
  cfg: BenchConfig['sysbench'],
  progress: (line: string) => void,
): Promise<SysbenchPairing[]> {
  const seconds = Math.max(1, Math.round(cfg.durationMs / 1000));
  const base = sysbenchArgs(target, cfg);
  const pairings: SysbenchPairing[] = [];
  for (const threads of cfg.threadCounts) {
    await placed(cfg.placement, target.serverPid, async (placement) => {
      for (const script of cfg.scripts) {
        const turns: SysbenchTurn[] = [];
        for (const [i, tool] of SYSBENCH_TURNS.entries()) {
          progress(
            `${script}, ${threads} thread${threads === 1 ? '' : 's'}: ${i + 1}/${SYSBENCH_TURNS.length} ${tool} (${loadavg()[0]} load)`,
          );
          const cpus = placement?.clientCpus;
          turns.push(
            tool === 'sysbench'
              ? await runSysbench(cleanup, script, [...base, `--threads=${threads}`], seconds, cpus)
              : await txbenchSysbenchTurn(cleanup, target, script, threads, cfg, placement),
          );
        }
        pairings.push({ ...pairingOf(script, threads, turns), placement });
      }
    });
  }
  return pairings;
}

const loadavg = (): number[] => osLoadavg().map((x) => round(x, 2));

/** Statements per transaction as the run reported them (QPS ÷ TPS: BEGIN and COMMIT included). */
export const txbenchTurn = (tx: RunFigures): SysbenchTurn => {
  const figures = toolFigures(tx);
  const perTransaction = figures.qps !== null && figures.tps > 0 ? Math.round(figures.qps / figures.tps) : 1;
  const clientCpuS = tx.client.userS + tx.client.systemS;
  const statements = tx.transactions * perTransaction;
  return {
    tool: 'txbench',
    figures: {
      ...figures,
      client: {
        ...figures.client,
        usPerStatement: statements > 0 ? round((clientCpuS * 1e6) / statements, 2) : 0,
      },
    },
    transactions: tx.transactions,
    statements,
    clientCpuS,
  };
};

/**
 * The worker threads txbench drives `threads` terminals with: one per client CPU, at most one per
 * terminal. sysbench runs a thread per connection; on one thread a Node.js client gets one
 * runnable thread's share of a saturated machine however many connections it carries (by hand,
 * point select at 4 threads on 2 shared cores: 54–70 k TPS on one thread, 113–119 k on two). On
 * one client CPU a second worker only competes with the first (by hand, pinned apart: 49 k TPS
 * at 15 µs per statement on two, 56 k at 10.6 µs on one).
 */
export const sysbenchWorkers = (threads: number, placement: Placement | undefined): number =>
  Math.min(threads, clientCpuCount(placement));

/** One txbench run of a sysbench script: as many terminals and connections as sysbench has threads. */
export async function txbenchSysbenchTurn(
  cleanup: Cleanup,
  target: { url: string; serverPid: number },
  script: Script,
  threads: number,
  window: { warmupMs: number; durationMs: number },
  placement?: Placement,
): Promise<SysbenchTurn> {
  const clientCpus = placement?.clientCpus;
  const run = await runTxbench(
    cleanup,
    target.url,
    {
      workload: 'sysbench',
      workloadOptions: { script },
      procedures: false,
      terminals: threads,
      connections: threads,
      workers: sysbenchWorkers(threads, placement),
      warmupMs: window.warmupMs,
      durationMs: window.durationMs,
      monitor: false,
      ...(clientCpus === undefined ? {} : { clientCpus }),
    },
    target.serverPid,
  );
  return txbenchTurn(run);
}

const toolFigures = (tx: RunFigures): ToolFigures => ({
  tps: tx.tps,
  qps: tx.figures?.find((f) => f.key === 'qps')?.value ?? null,
  client: { usPerTransaction: tx.client.usPerTransaction, coresUsed: tx.client.coresUsed },
});

export async function runSysbench(
  cleanup: Cleanup,
  script: Script,
  args: string[],
  wallS: number,
  clientCpus?: string,
): Promise<SysbenchTurn> {
  const t0 = performance.now();
  // `times` prints the shell's and then its finished children's user and system time.
  const [cmd, cmdArgs] = onClientCpus(clientCpus, 'bash', [
    '-c',
    'sysbench "$@"; rc=$?; times; exit $rc',
    'bash',
    script,
    ...args,
    'run',
  ]);
  const { finished } = startProgram(cleanup, cmd, cmdArgs, wallS * 1000 + 120_000);
  const result = await finished;
  const elapsedS = (performance.now() - t0) / 1000;
  if (result.code !== 0)
    throw new Error(`sysbench failed (exit ${result.code ?? result.signal}): ${lastLine(result.stderr)}`);
  const out = result.stdout;
  const transactions = Number(/transactions:\s+(\d+)/.exec(out)?.[1]);
  const tps = Number(/transactions:\s+\d+\s+\(([\d.]+) per sec/.exec(out)?.[1]);
  const queries = Number(/queries:\s+(\d+)/.exec(out)?.[1]);
  const qps = Number(/queries:\s+\d+\s+\(([\d.]+) per sec/.exec(out)?.[1]);
  if (!Number.isFinite(tps) || !(transactions > 0) || !(queries > 0))
    throw new Error(`could not read sysbench's result: ${lastLine(out)}`);
  const times = [...(out.trim().split('\n').at(-1) ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map(
    (m) => Number(m[1]) * 60 + Number(m[2]),
  );
  if (times.length !== 2) throw new Error("could not read sysbench's CPU time");
  const clientS = times[0]! + times[1]!;
  return {
    tool: 'sysbench',
    // The whole process's CPU (connecting and preparing included) over every transaction it ran.
    figures: {
      tps: round(tps),
      qps: Number.isFinite(qps) ? round(qps) : null,
      client: {
        usPerTransaction: round((clientS * 1e6) / transactions, 1),
        coresUsed: round(clientS / elapsedS, 3),
        usPerStatement: round((clientS * 1e6) / queries, 2),
      },
    },
    transactions,
    statements: queries,
    clientCpuS: clientS,
  };
}

/**
 * Sections 7 and 10: the server's processes pinned to the last CPU while the tools
 * run on the others (dist/bench/placement.js), on a real PostgreSQL cluster with real sysbench and
 * a txbench run child forked through taskset; everything back on every CPU after.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup } from '../../dist/bench/cleanup.js';
import { startCluster, type PgCluster } from '../../dist/bench/pg-cluster.js';
import { apart, onClientCpus, processTree } from '../../dist/bench/placement.js';
import { runSysbench, txbenchSysbenchTurn } from '../../dist/bench/sysbench.js';
import { loadTables } from '../../dist/bench/sysbench-tables.js';

const TABLES = { tables: 2, tableSize: 2_000 };
const allowed = (pid: number): string =>
  /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '';

/** The CPUs of every process of the server that is still there when read (a worker may exit meanwhile). */
const serverCpus = (pid: number): string[] =>
  processTree(pid).flatMap((p) => {
    try {
      return [allowed(p)];
    } catch {
      return [];
    }
  });

describe('turns with server and client apart', () => {
  const cleanup = new Cleanup();
  let cluster: PgCluster;
  let url: string;

  beforeAll(async () => {
    cluster = await startCluster(cleanup);
    url = await cluster.createDatabase('placement');
    await loadTables(url, TABLES, () => undefined);
  }, 120_000);

  afterAll(() => cleanup.cleanupAll());

  it('pins the server while its body runs, runs both tools pinned, and puts the server back', async () => {
    const cpus = availableParallelism();
    const every = cpus === 1 ? '0' : `0-${cpus - 1}`;
    expect(allowed(cluster.pid)).toBe(every);
    await apart(cluster.pid, async (placement) => {
      if (cpus < 2) {
        expect(placement.kind).toBe('scheduler');
        return;
      }
      expect(placement).toEqual({
        kind: 'apart',
        serverCpu: cpus - 1,
        clientCpus: cpus === 2 ? '0' : `0-${cpus - 2}`,
      });
      const pinned = serverCpus(cluster.pid);
      expect(pinned.length).toBeGreaterThan(1);
      expect(new Set(pinned)).toEqual(new Set([String(cpus - 1)]));

      const [cmd, args] = onClientCpus(placement.clientCpus, 'sleep', ['5']);
      const sleeper = spawn(cmd, args, { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 300));
      expect(allowed(sleeper.pid!)).toBe(placement.clientCpus);
      sleeper.kill();

      const u = new URL(url);
      const sysbench = await runSysbench(
        cleanup,
        'oltp_point_select',
        [
          '--db-driver=pgsql',
          '--pgsql-host=127.0.0.1',
          `--pgsql-port=${u.port}`,
          '--pgsql-user=postgres',
          '--pgsql-db=placement',
          `--tables=${TABLES.tables}`,
          `--table-size=${TABLES.tableSize}`,
          '--time=2',
          '--threads=1',
        ],
        2,
        placement.clientCpus,
      );
      expect(sysbench.transactions).toBeGreaterThan(0);
      const txbench = await txbenchSysbenchTurn(
        cleanup,
        { url, serverPid: cluster.pid },
        'oltp_point_select',
        2,
        { warmupMs: 300, durationMs: 1_500 },
        placement,
      );
      expect(txbench.transactions).toBeGreaterThan(0);
    });
    expect(new Set(serverCpus(cluster.pid))).toEqual(new Set([every]));
  }, 120_000);
});

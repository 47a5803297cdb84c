/**
 * Where sections 7 and 10 run their turns: the server's processes on the last CPU, the client
 * (sysbench, the floor loop, txbench) on the others, as a client on a machine of its own would be.
 * Why: every statement is a round trip, and on this machine's VM a round trip whose two ends share
 * a vCPU takes about 17 µs while one across vCPUs takes about 80 µs (each wake-up of the other
 * vCPU exits to the hypervisor). Left to the scheduler, a 30 s turn lands in either placement or in
 * a mix of them, at one connection and at four alike: sittings saw sysbench's own point-select
 * turns at 65,407 and 11,524 TPS (one thread) and at 113,847 and 53,115 (four threads, MariaDB),
 * and a ratio between two tools measured which placement each drew. Apart, each tool's two
 * four-thread point-select and read_only turns landed within 1–9% of each other in the full run of
 * 2026-12-05. BENCH_PLACEMENT=shared leaves every turn to the scheduler.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { ForkOptions } from 'node:child_process';

export interface Placement {
  /** `apart`: server and client pinned to CPUs of their own; `scheduler`: nothing pinned. */
  readonly kind: 'apart' | 'scheduler';
  /** The client's CPUs as taskset takes them (`0`, `0-2`), under `apart`. */
  readonly clientCpus?: string;
  /** The server's CPU, under `apart`. */
  readonly serverCpu?: number;
  /** Why nothing was pinned, under `scheduler`. */
  readonly why?: string;
}

/** The command that starts `cmd` on the client's CPUs (unchanged when nothing is pinned). */
export function onClientCpus(cpus: string | undefined, cmd: string, args: string[]): [string, string[]] {
  return cpus === undefined ? [cmd, args] : ['taskset', ['-c', cpus, cmd, ...args]];
}

/**
 * fork()'s options that start a Node.js child on the client's CPUs: taskset execs Node.js in the
 * same process, so the IPC channel fork() opens is still the child's.
 */
export function forkOnClientCpus(cpus: string | undefined, execArgv: readonly string[]): ForkOptions {
  return cpus === undefined
    ? { execArgv: [...execArgv] }
    : { execPath: 'taskset', execArgv: ['-c', cpus, process.execPath, ...execArgv] };
}

/** How sections 7 and 10 place their turns: `apart` (the default) or `shared` (the scheduler's). */
export type PlacementMode = 'apart' | 'shared';

/** `0` or `0-N`: every CPU below `cpus - 1`. */
export const clientCpuList = (cpus: number): string => (cpus === 2 ? '0' : `0-${cpus - 2}`);

/** A process and every process below it (a PostgreSQL postmaster's backends and helpers). */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    const at = tree[i]!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${at}/task`);
    } catch {
      continue; // gone since it was listed
    }
    for (const task of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${at}/task/${task}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of children.trim().split(/\s+/)) if (child !== '') tree.push(Number(child));
    }
  }
  return tree;
}

const taskset = (args: string[]): Promise<void> =>
  new Promise((resolve, reject) => {
    execFile('taskset', args, (err, _stdout, stderr) =>
      err === null
        ? resolve()
        : reject(new Error(`taskset ${args.join(' ')}: ${stderr.trim() || err.message}`)),
    );
  });

/** Sets the CPUs of every thread of the server's processes; one that exits meanwhile is skipped. */
async function pinTree(serverPid: number, cpus: string): Promise<void> {
  for (const pid of processTree(serverPid)) {
    try {
      await taskset(['-a', '-p', '-c', cpus, String(pid)]);
    } catch (err) {
      if (pid === serverPid) throw err;
    }
  }
}

/**
 * Runs `body` with the server on the last CPU and `body`'s client on the others; puts the server
 * back on every CPU after. On one CPU, or where taskset cannot run, `body` runs unpinned and the
 * placement says why.
 */
export async function apart<T>(serverPid: number, body: (placement: Placement) => Promise<T>): Promise<T> {
  const cpus = availableParallelism();
  if (cpus < 2) return body({ kind: 'scheduler', why: 'one CPU' });
  const serverCpu = cpus - 1;
  try {
    await pinTree(serverPid, String(serverCpu));
  } catch (err) {
    return body({ kind: 'scheduler', why: err instanceof Error ? err.message : String(err) });
  }
  try {
    return await body({ kind: 'apart', clientCpus: clientCpuList(cpus), serverCpu });
  } finally {
    await pinTree(serverPid, `0-${cpus - 1}`).catch(() => undefined);
  }
}

/** Runs `body` placed as `mode` says: `apart` as `apart` does, `shared` with nothing pinned. */
export const placed = <T>(
  mode: PlacementMode,
  serverPid: number,
  body: (placement: Placement) => Promise<T>,
): Promise<T> =>
  mode === 'apart' ? apart(serverPid, body) : body({ kind: 'scheduler', why: 'BENCH_PLACEMENT=shared' });

/** How many CPUs the client may run on under `placement`: apart, every CPU below the server's. */
export const clientCpuCount = (placement: Placement | undefined, cpus = availableParallelism()): number =>
  placement?.kind === 'apart' && placement.serverCpu !== undefined ? placement.serverCpu : cpus;

/** The placement in a table's column. */
export const placementText = (p: Placement | undefined): string =>
  p === undefined
    ? 'scheduler'
    : p.kind === 'apart'
      ? `server ${p.serverCpu}, client ${p.clientCpus}`
      : `scheduler (${p.why ?? 'not pinned'})`;

/** What the placement column means, for a section's heading. */
export const PLACEMENT_NOTE =
  'CPUs: the server runs on a CPU of its own and each tool on the others, as a client on a machine of its own would (where both ends of a round trip share a vCPU it takes about 17 µs, across vCPUs about 80 µs, and a turn left to the scheduler lands in either or a mix); BENCH_PLACEMENT=shared leaves them to the scheduler.';

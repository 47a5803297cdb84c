/**
 * CPU time of processes from /proc/<pid>/stat (Linux): a process's own user + system time, and a
 * PostgreSQL cluster's (the postmaster, its live children, and the children it has reaped).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of the times in /proc/<pid>/stat. */
export const CLK_TCK: number = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

export interface ProcStat {
  pid: number;
  ppid: number;
  /** Seconds of user + system time of the process itself. */
  ownS: number;
  /** Seconds of user + system time of children it has waited for. */
  childrenS: number;
}

/** One process's times, or undefined when it is gone. */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces: fields start after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (field: number): number => Number(f[field - 3]);
  return {
    pid,
    ppid: n(4),
    ownS: (n(14) + n(15)) / CLK_TCK,
    childrenS: (n(16) + n(17)) / CLK_TCK,
  };
}

/**
 * CPU seconds used so far by the cluster whose postmaster is `postmasterPid`: every backend and
 * auxiliary process alive now, plus what exited backends left in the postmaster's children times.
 */
export function clusterCpuS(postmasterPid: number): number {
  const postmaster = procStat(postmasterPid);
  if (postmaster === undefined) throw new Error(`the PostgreSQL postmaster (pid ${postmasterPid}) is gone`);
  let total = postmaster.ownS + postmaster.childrenS;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = procStat(Number(entry));
    if (s !== undefined && s.ppid === postmasterPid) total += s.ownS;
  }
  return total;
}

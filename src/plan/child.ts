/**
 * A step runs as its own `txbench` process (bin/txbench.js), in the plan's process group so that
 * Ctrl-C reaches it as it reaches the plan. Its pid and start time are in the plan's state while
 * it runs: a plan killed outright (SIGKILL, no chance to stop its child) leaves the child running,
 * and `--resume` stops that child (SIGTERM, so it writes what it measured and stops an embedded
 * server it started; SIGKILL if it does not go) before the step starts over.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ChildRecord } from './plan-state.js';

const TXBENCH_BIN = new URL('../../bin/txbench.js', import.meta.url).pathname;
const TERM_GRACE_MS = 60_000;
const POLL_MS = 200;

export interface StepProcess {
  child: ChildRecord;
  /** The exit code (128 + signal number when a signal ended it). */
  exited: Promise<number>;
  /** Asks it to stop as Ctrl-C would (what it measured is kept). */
  stop(): void;
}

/** Starts `txbench ARGS…`, its output on the plan's, and its own stdout also to `onOutput`. */
export function startTxbench(args: readonly string[], onOutput?: (chunk: string) => void): StepProcess {
  const child = spawn(process.execPath, [TXBENCH_BIN, ...args], {
    // Captured output (the report's commands) is the plan's to write; their warnings are not the user's.
    stdio: onOutput === undefined ? ['ignore', 'inherit', 'inherit'] : ['ignore', 'pipe', 'ignore'],
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => onOutput?.(chunk));
  const exited = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? 128 + signalNumber(signal)));
  });
  const pid = child.pid ?? -1;
  const startTicks = startTicksOf(pid);
  return {
    child: { pid, ...(startTicks === undefined ? {} : { startTicks }) },
    exited,
    stop: () => child.kill('SIGTERM'),
  };
}

/** Whether the process recorded is still the one running (not a later process given its pid). */
export function isRunning(record: ChildRecord): boolean {
  try {
    process.kill(record.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A zombie (exited, not yet reaped) is gone for our purpose.
  if (statFields(record.pid)?.[0] === 'Z') return false;
  const ticks = startTicksOf(record.pid);
  return record.startTicks === undefined || ticks === undefined || ticks === record.startTicks;
}

/** Stops a step's process left by a plan that died (SIGTERM, then SIGKILL), and waits until it is gone. */
export async function stopOrphan(record: ChildRecord): Promise<boolean> {
  if (!isRunning(record)) return false;
  process.kill(record.pid, 'SIGTERM');
  const deadline = Date.now() + TERM_GRACE_MS;
  while (isRunning(record)) {
    if (Date.now() > deadline) {
      process.kill(record.pid, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 1000));
      break;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** Field 22 of /proc/PID/stat (after the parenthesised command name, which may hold spaces). */
function startTicksOf(pid: number): number | undefined {
  // Fields after the name start at field 3 (state); start time is field 22.
  const ticks = Number(statFields(pid)?.[22 - 3]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/** /proc/PID/stat from field 3 (the state) on; undefined where there is none. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return signal === null ? 1 : (numbers[signal] ?? 1);
}

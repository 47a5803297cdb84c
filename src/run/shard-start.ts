/**
 * The start of a shard (`--shard I/N --start-at TIME` on `txbench run`): every shard holds after
 * its set-up until the same wall-clock moment, then starts its terminals.
 */
import { rm } from 'node:fs/promises';
import { ExitCode, TxbenchError, UsageError } from '../errors.js';
import type { RunDirectory } from '../results/run-dir.js';
import type { RunListener } from './workload-run.js';

/** How late a start may be and still count as on time (a shard's set-up ending just after it). */
export const START_GRACE_MS = 2_000;

/** Refuses a start more than the grace in the past (`verb`: how the message says when). */
export function refuseIfPast(at: Date, now: number, verb: string): void {
  const lateMs = now - at.getTime();
  if (lateMs > START_GRACE_MS) {
    throw new UsageError(
      `--start-at ${at.toISOString()} ${verb} ${(lateMs / 1000).toFixed(1)} s in the past; give every shard a later time`,
    );
  }
}

/** Ctrl-C (or SIGTERM) while held at the starting gate: nothing was measured. */
export class StartCancelled extends TxbenchError {
  constructor() {
    super('interrupted while waiting for --start-at; nothing was measured', ExitCode.interrupted);
    this.name = 'StartCancelled';
  }
}

/**
 * Holds until `at` (one line on stderr while it waits). A gate reached more than the grace after
 * `at` refuses (exit 2): this shard's window would not line up with the others'. Ctrl-C or
 * SIGTERM while waiting rejects with StartCancelled.
 */
export function waitForStart(at: Date, who: string): Promise<void> {
  const now = Date.now();
  refuseIfPast(at, now, 'was, when set-up ended,');
  const waitMs = at.getTime() - now;
  if (waitMs <= 0) return Promise.resolve();
  console.error(`${who}waiting for --start-at ${at.toISOString()} (in ${(waitMs / 1000).toFixed(1)} s)`);
  return new Promise<void>((resolve, reject) => {
    const settle = (cancelled: boolean): void => {
      clearTimeout(timer);
      process.off('SIGINT', cancel);
      process.off('SIGTERM', cancel);
      if (cancelled) reject(new StartCancelled());
      else resolve();
    };
    const cancel = (): void => settle(true);
    const timer = setTimeout(() => settle(false), waitMs);
    process.on('SIGINT', cancel);
    process.on('SIGTERM', cancel);
  });
}

/** One wait shared by every target of the process (they meet at their own gate first). */
export function startGate(at: Date | undefined, who: string): (() => Promise<void>) | undefined {
  if (at === undefined) return undefined;
  let waiting: Promise<void> | undefined;
  return () => (waiting ??= waitForStart(at, who));
}

/** A clock further than this from the database server's is worth a warning: windows line up on wall-clock time. */
const CLOCK_WARNING_MS = 500;

/** A run's listener with the starting gate and, for a shard, a warning when its clock is off. */
export function shardListener(listener: RunListener, ready: (() => Promise<void>) | undefined): RunListener {
  return {
    ...listener,
    onStart: (config) => {
      listener.onStart?.(config);
      const offset = config.shard?.clockOffsetMs;
      if (offset !== undefined && offset !== null && Math.abs(offset) > CLOCK_WARNING_MS) {
        listener.onWarning?.(
          `this machine's clock is ${Math.abs(offset).toFixed(0)} ms ${offset > 0 ? 'ahead of' : 'behind'} the database server's; shards line up only as well as their clocks (synchronise them, e.g. with NTP)`,
        );
      }
    },
    ...(ready ? { ready } : {}),
  };
}

/**
 * Ctrl-C at the starting gate: nothing was measured, so the run directory made for it is removed
 * (a listing would show it as crashed); any other error passes on as it is.
 */
export function markCancelled(runDir: RunDirectory): (err: unknown) => Promise<never> {
  return async (err) => {
    if (err instanceof StartCancelled) await rm(runDir.dir, { recursive: true, force: true });
    throw err;
  };
}

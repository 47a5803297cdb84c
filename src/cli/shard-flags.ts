/**
 * `--shard I/N` and `--start-at TIME` on `txbench run`: which slice of the terminals this load
 * machine drives, and the wall-clock moment every shard starts its terminals at.
 */
import { rm } from 'node:fs/promises';
import { ExitCode, TxbenchError, UsageError } from '../errors.js';
import type { RunDirectory } from '../results/run-dir.js';
import type { ShardOptions } from '../run/shard.js';
import type { RunListener } from '../run/workload-run.js';

export const SHARD_FLAGS = {
  shard: { type: 'string' },
  'start-at': { type: 'string' },
} as const;

export const SHARD_HELP = `Several load machines (shards):
  --shard I/N        drive the I-th (1..N) of N disjoint slices of the terminals (and its share of
                     the connections); --terminals and --connections stay the whole run's. Each
                     shard writes its own run directory; \`txbench merge\` makes one run of them
  --start-at TIME    after set-up, hold until TIME (ISO 8601 with Z or an offset, e.g.
                     2026-12-01T22:30:00Z), then start the terminals: every shard given the same
                     TIME starts together. A TIME more than 2 s past, before or after set-up: exit 2`;

/** How late a start may be and still count as on time (a shard's set-up ending just after it). */
export const START_GRACE_MS = 2_000;

const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

export function parseShard(text: string): { index: number; count: number } {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count || count > 100_000) {
    throw new UsageError(
      `--shard must be I/N with 1 <= I <= N (e.g. 2/4 for the second of four load machines), not "${text}"`,
    );
  }
  return { index, count };
}

export function parseStartAt(text: string, now: number = Date.now()): Date {
  const at = ISO_WITH_ZONE.test(text.trim()) ? new Date(text.trim()) : undefined;
  if (at === undefined || Number.isNaN(at.getTime())) {
    throw new UsageError(
      `--start-at must be an ISO 8601 time with Z or an offset, e.g. ${new Date(Math.ceil(now / 60_000) * 60_000 + 60_000).toISOString().replace('.000', '')}, not "${text}"`,
    );
  }
  refuseIfPast(at, now, 'is');
  return at;
}

function refuseIfPast(at: Date, now: number, verb: string): void {
  const lateMs = now - at.getTime();
  if (lateMs > START_GRACE_MS) {
    throw new UsageError(
      `--start-at ${at.toISOString()} ${verb} ${(lateMs / 1000).toFixed(1)} s in the past; give every shard a later time`,
    );
  }
}

/**
 * The shard and start flags of `run`, validated; undefined fields when not given. Every shard
 * must drive the same run's random streams: without --seed, a shard's seed comes from --start-at
 * (the same on every shard), and a shard with neither is refused.
 */
export function parseShardFlags(
  values: Readonly<Record<string, unknown>>,
  seed: number | undefined,
): { shard?: ShardOptions | undefined; startAt?: Date | undefined; seed: number | undefined } {
  const startAt = typeof values['start-at'] === 'string' ? parseStartAt(values['start-at']) : undefined;
  const shard = typeof values.shard === 'string' ? { ...parseShard(values.shard), startAt } : undefined;
  if (shard === undefined || seed !== undefined) return { shard, startAt, seed };
  if (startAt === undefined) {
    throw new UsageError(
      '--shard needs --seed S or --start-at TIME, the same on every shard, so that the shards drive one run',
    );
  }
  return { shard, startAt, seed: Math.floor(startAt.getTime() / 1000) % 2 ** 31 };
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

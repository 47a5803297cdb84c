/**
 * `--shard I/N` and `--start-at TIME` on `txbench run`: which slice of the terminals this load
 * machine drives, and the wall-clock moment every shard starts its terminals at.
 */
import { UsageError } from '../errors.js';
import { refuseIfPast, START_GRACE_MS, type ShardOptions } from '../api.js';

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

export { START_GRACE_MS };

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

/**
 * How long to wait before the next attempt to replace a lost connection: exponential from
 * `baseMs`, capped at `capMs`, and jittered so that a hundred slots losing their connections at
 * the same moment do not knock on a restarting server in lock step. Written once here, for every
 * dialect (the dialects only know how to open one connection).
 */
export interface BackoffPolicy {
  /** The first delay before jitter, ms. */
  baseMs: number;
  /** No delay exceeds this, ms. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 100, capMs: 5000 };

/**
 * The delay before attempt `attempt + 1` (attempt 0 is the first retry): "equal jitter", a
 * uniformly drawn delay between half and all of min(cap, base * 2^attempt). Half is kept fixed so
 * the delays still grow (full jitter can retry at once many times in a row); the other half is
 * spread. `random` is in [0, 1).
 */
export function backoffMs(attempt: number, policy: BackoffPolicy, random: number): number {
  const exp = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  return exp / 2 + (exp / 2) * random;
}

/**
 * TPM from the server's own transaction counter, counted once per counter however many targets
 * share it, and without txbench's own side statements (counters, audit, monitoring).
 */
import { createHash } from 'node:crypto';

/** One reading of the counter, with how many side transactions txbench had sent before it. */
export interface CounterReading {
  count: number;
  sent: number;
}

/** What a target's window saw on its server's counter (run.json `summary.serverCounter`). */
export interface ServerCounterWindow {
  /** A hash of what the counter covers (one server, or one database of it); null when unknown. */
  scope: string | null;
  /** The counter's advance over the window: every client's transactions, txbench's own included. */
  transactions: number;
  /** txbench's own side transactions in that advance, sent by this target. */
  ownTransactions: number;
  seconds: number;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** The scope as run.json keeps it: a hash, since it may hold a server's paths and addresses. */
export function scopeKey(scope: string | undefined): string | null {
  return scope === undefined ? null : createHash('sha256').update(scope).digest('hex').slice(0, 16);
}

export function counterWindow(
  scope: string | null,
  start: CounterReading,
  end: CounterReading,
  seconds: number,
): ServerCounterWindow {
  return { scope, transactions: end.count - start.count, ownTransactions: end.sent - start.sent, seconds };
}

/** One target's TPM: the counter's advance less its own side transactions. */
export function targetTpm(w: ServerCounterWindow): number | null {
  return w.seconds > 0 ? round1(((w.transactions - w.ownTransactions) * 60) / w.seconds) : null;
}

/**
 * TPM of targets driven at one moment: each counter read once (the first target's window on it)
 * less every sharing target's side transactions, then added over the counters. Targets with an
 * unknown scope are counters of their own.
 */
export function sharedTpm(windows: readonly ServerCounterWindow[]): number | null {
  const groups = new Map<string, ServerCounterWindow[]>();
  windows.forEach((w, i) => {
    const key = w.scope ?? `unknown-${i}`;
    groups.set(key, [...(groups.get(key) ?? []), w]);
  });
  let total = 0;
  for (const group of groups.values()) {
    const first = group[0]!;
    const own = group.reduce((a, w) => a + w.ownTransactions, 0);
    const tpm = targetTpm({ ...first, ownTransactions: own });
    if (tpm === null) return null;
    total += tpm;
  }
  return round1(total);
}

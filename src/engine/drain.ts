/**
 * What the drain left behind: due transactions that never started when the window closed, and
 * those still running when the drain gave up; for one engine, and for several slices together.
 */
import type { DrainReport } from './engine-result.js';

/** How many abandoned terminals a drain report names. */
export const DRAIN_NAMED_TERMINALS = 50;

/**
 * One engine's drain report as the drain ends at `now`: the terminals dropped at the window's close
 * (`queued`: how many, and the earliest due time among them) and the transactions still running
 * (each one's terminal id and due time, in slot order).
 */
export function drainReport(
  limitMs: number,
  queued: { count: number; oldestDue: number },
  running: readonly { terminal: number; dueAt: number }[],
  now: number,
): DrainReport {
  let oldest = queued.oldestDue;
  const terminals: number[] = [];
  for (const r of running) {
    if (terminals.length < DRAIN_NAMED_TERMINALS) terminals.push(r.terminal);
    oldest = Math.min(oldest, r.dueAt);
  }
  const inFlight = running.length;
  const abandoned = queued.count + inFlight;
  return {
    limitMs,
    queued: queued.count,
    inFlight,
    abandoned,
    oldestAgeMs: abandoned > 0 ? Math.max(0, Math.round(now - oldest)) : null,
    ...(terminals.length > 0 ? { terminals: terminals.sort((a, b) => a - b) } : {}),
  };
}

/** What the drains of every slice left behind, together. */
export function mergeDrain(reports: readonly DrainReport[]): DrainReport {
  let queued = 0;
  let inFlight = 0;
  let oldest: number | null = null;
  let limitMs = 0;
  const terminals: number[] = [];
  for (const r of reports) {
    queued += r.queued;
    inFlight += r.inFlight;
    limitMs = Math.max(limitMs, r.limitMs);
    if (r.oldestAgeMs !== null) oldest = Math.max(oldest ?? 0, r.oldestAgeMs);
    terminals.push(...(r.terminals ?? []));
  }
  terminals.sort((a, b) => a - b);
  return {
    limitMs,
    queued,
    inFlight,
    abandoned: queued + inFlight,
    oldestAgeMs: oldest,
    ...(terminals.length > 0 ? { terminals: terminals.slice(0, DRAIN_NAMED_TERMINALS) } : {}),
  };
}

/**
 * Outages as events: an outage opens at the first transaction that fails because the database
 * could not be reached or did not answer (class `connection` or `timeout`), or said it cannot work
 * at all (its disk full: the dialect's `isServerFault`), and closes at the next
 * transaction that succeeds. Every failure in between, of any class, counts towards it. One
 * tracker per engine, that is per target: the success path costs one boolean test.
 *
 * A database failing for lack of space fails only the transactions that need room (InnoDB's
 * "table is full" for a New-Order) while the others go on succeeding in between, and it often
 * dies of it a little later. So an outage of cause `server` ends at the first success after its
 * last failure only once SERVER_SETTLE_MS pass without another failure: until then a failure,
 * of any class, continues it (one event named by its first error, not one per failed write).
 */
import { emptyErrorCounts, type ErrorClass } from './types.js';

/** How long a `server` outage must go without a failure after a success to count as over. */
export const SERVER_SETTLE_MS = 10_000;

export interface Outage {
  /** Seconds since the run started, at the first failure. */
  startS: number;
  /** Seconds since the run started, at the first success again; null when it never came. */
  endS: number | null;
  /** endS - startS; up to the end of the run when it never recovered. */
  durationS: number;
  /** Wall-clock time of the first failure (ISO 8601). */
  startedAt: string;
  /** The class of the failure that opened it; `server`: the database failing (its disk full), not lost. */
  cause: 'connection' | 'timeout' | 'server';
  /** Transactions that failed while it lasted. */
  failed: number;
  failedByClass: Record<ErrorClass, number>;
  /** A transaction succeeded again before the run ended. */
  recovered: boolean;
  /** What the failure that opened it said: the driver's or the database's code and message. */
  error?: string | undefined;
  /** The data directory's file system when the run ended, where it is on this machine (outage-cause.ts). */
  disk?: { path: string; freeBytes: number; totalBytes: number; full: boolean } | undefined;
  /** The server's own last PANIC or FATAL line, where its log is on this machine (txbench's embedded server). */
  serverLog?: string | undefined;
}

/** Where an outage is as it is told live: it has just opened, or just ended. */
export type OutageEdge = 'start' | 'end';

/** An error as an outage names it: "57P01 terminating connection due to administrator command". */
export function errorText(err: unknown): string | undefined {
  if (err === undefined) return undefined;
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  const message = err instanceof Error ? err.message : String(err);
  const text = code !== '' && !message.includes(code) ? `${code} ${message}` : message;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

export class OutageTracker {
  /** An outage is open: successes go to `success`. Read on every success (a plain field). */
  open = false;
  private readonly done: Outage[] = [];
  private current: Outage | undefined;
  /** performance.now() of the first success after the open `server` outage's last failure. */
  private settlingSinceMs: number | undefined;

  /**
   * @param originMs performance.now() at the start of the run
   * @param originWallMs Date.now() at the same moment
   * @param onEdge hears each outage as it opens and as it ends (a copy: the tracker's own goes on
   *   counting); an outage still open at the end of the run has no end edge
   */
  constructor(
    private readonly originMs: number,
    private readonly originWallMs: number,
    private readonly onEdge?: (edge: OutageEdge, outage: Outage) => void,
  ) {}

  /** `serverFault`: the error says the database cannot work at all (its disk full): it opens one too. */
  failure(nowMs: number, cls: ErrorClass, err?: unknown, serverFault = false): void {
    if (this.settlingSinceMs !== undefined) {
      if (nowMs - this.settlingSinceMs >= SERVER_SETTLE_MS) this.close(this.settlingSinceMs);
      this.settlingSinceMs = undefined;
    }
    let o = this.current;
    if (o === undefined) {
      const lost = cls === 'connection' || cls === 'timeout';
      if (!lost && !serverFault) return;
      const startS = (nowMs - this.originMs) / 1000;
      o = {
        startS: round3(startS),
        endS: null,
        durationS: 0,
        startedAt: new Date(this.originWallMs + (nowMs - this.originMs)).toISOString(),
        cause: lost ? cls : 'server',
        failed: 0,
        failedByClass: emptyErrorCounts(),
        recovered: false,
        error: errorText(err),
      };
      this.current = o;
      this.open = true;
    }
    o.failed++;
    o.failedByClass[cls]++;
    if (o.failed === 1) this.onEdge?.('start', copyOf(o));
  }

  success(nowMs: number): void {
    const o = this.current;
    if (o === undefined) return;
    if (o.cause !== 'server') this.close(nowMs);
    else if (this.settlingSinceMs === undefined) this.settlingSinceMs = nowMs;
    else if (nowMs - this.settlingSinceMs >= SERVER_SETTLE_MS) this.close(this.settlingSinceMs);
  }

  /**
   * Every outage so far; one still open lasts until `nowMs` and is marked not recovered (a
   * `server` outage too whose successes since its last failure have not yet lasted SERVER_SETTLE_MS).
   */
  outages(nowMs: number): Outage[] {
    if (this.settlingSinceMs !== undefined && nowMs - this.settlingSinceMs >= SERVER_SETTLE_MS) {
      this.close(this.settlingSinceMs);
    }
    const list = [...this.done];
    const o = this.current;
    if (o !== undefined) list.push({ ...o, durationS: round3((nowMs - this.originMs) / 1000 - o.startS) });
    return list;
  }

  /** Ends the open outage at `endMs`, recovered. */
  private close(endMs: number): void {
    const o = this.current;
    if (o === undefined) return;
    const endS = (endMs - this.originMs) / 1000;
    o.endS = round3(endS);
    o.durationS = round3(endS - o.startS);
    o.recovered = true;
    this.done.push(o);
    this.current = undefined;
    this.settlingSinceMs = undefined;
    this.open = false;
    this.onEdge?.('end', copyOf(o));
  }
}

function copyOf(o: Outage): Outage {
  return { ...o, failedByClass: { ...o.failedByClass } };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Outages as events: an outage opens at the first transaction that fails because the database
 * could not be reached or did not answer (class `connection` or `timeout`) and closes at the next
 * transaction that succeeds. Every failure in between, of any class, counts towards it. One
 * tracker per engine, that is per target: the success path costs one boolean test.
 */
import { emptyErrorCounts, type ErrorClass } from './types.js';

export interface Outage {
  /** Seconds since the run started, at the first failure. */
  startS: number;
  /** Seconds since the run started, at the first success again; null when it never came. */
  endS: number | null;
  /** endS - startS; up to the end of the run when it never recovered. */
  durationS: number;
  /** Wall-clock time of the first failure (ISO 8601). */
  startedAt: string;
  /** The class of the failure that opened it. */
  cause: 'connection' | 'timeout';
  /** Transactions that failed while it lasted. */
  failed: number;
  failedByClass: Record<ErrorClass, number>;
  /** A transaction succeeded again before the run ended. */
  recovered: boolean;
}

export class OutageTracker {
  /** An outage is open: the next success closes it. Read on every success (a plain field). */
  open = false;
  private readonly done: Outage[] = [];
  private current: Outage | undefined;

  /**
   * @param originMs performance.now() at the start of the run
   * @param originWallMs Date.now() at the same moment
   */
  constructor(
    private readonly originMs: number,
    private readonly originWallMs: number,
  ) {}

  failure(nowMs: number, cls: ErrorClass): void {
    let o = this.current;
    if (o === undefined) {
      if (cls !== 'connection' && cls !== 'timeout') return;
      const startS = (nowMs - this.originMs) / 1000;
      o = {
        startS: round3(startS),
        endS: null,
        durationS: 0,
        startedAt: new Date(this.originWallMs + (nowMs - this.originMs)).toISOString(),
        cause: cls,
        failed: 0,
        failedByClass: emptyErrorCounts(),
        recovered: false,
      };
      this.current = o;
      this.open = true;
    }
    o.failed++;
    o.failedByClass[cls]++;
  }

  success(nowMs: number): void {
    const o = this.current;
    if (o === undefined) return;
    const endS = (nowMs - this.originMs) / 1000;
    o.endS = round3(endS);
    o.durationS = round3(endS - o.startS);
    o.recovered = true;
    this.done.push(o);
    this.current = undefined;
    this.open = false;
  }

  /** Every outage so far; one still open lasts until `nowMs` and is marked not recovered. */
  outages(nowMs: number): Outage[] {
    const list = [...this.done];
    const o = this.current;
    if (o !== undefined) list.push({ ...o, durationS: round3((nowMs - this.originMs) / 1000 - o.startS) });
    return list;
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

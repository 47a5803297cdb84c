/**
 * The transaction timeout, one watchdog timer for all slots (no timer per call): a call past the
 * limit is cancelled on the server and fails as `timeout`; one the server does not answer even then
 * (a dead network path) is abandoned after a grace period, and its connection replaced. Servers
 * cancel only the statement running, so a cancel that lands between two of a transaction's round
 * trips cancels nothing and the next statement may wait on the same lock: the cancel is sent
 * again, a few times within the grace period, until the call answers.
 */
import type { Connections } from '../dialects/connections.js';
import { TxnTimeoutError } from '../engine/types.js';
import type { FaultCounts } from './fault-policy.js';

/** A slot's cancel state for the transaction timeout (`timedOut`). */
const NOT_CANCELLED = 0;
const CANCEL_SENT = 1;
const CANCEL_ANSWERED = 2;
/** How long asking for a cancel may take before the grace period runs anyway (a dead path). */
const CANCEL_ASK_LIMIT_MS = 5000;

/**
 * How long a call may go on after its connection closed before it is failed as lost: a call
 * whose statement was in flight is failed by the driver at once, so only one that would hang is left.
 */
const LOST_UNDER_CALL_MS = 1000;

/** What the watchdog does to the executor's slots. */
export interface WatchedSlots {
  /** Whether the slot's connection is up (neither reconnecting nor lost). */
  isUp(slot: number): boolean;
  /** Fails the slot's transaction now. */
  abandon(slot: number, err: Error): void;
  /** Replaces the slot's connection (or leaves the slot lost). */
  connectionLost(slot: number): void;
}

export class TxnWatchdog {
  /** When the slot's transaction started (0: idle). */
  private readonly callStart: Float64Array;
  /**
   * When the server took the first cancel request (0: not yet). The grace period runs from here:
   * asking can take a while (MySQL opens its KILL connection on first need; PostgreSQL opens one
   * per request), and the time to ask is not the server failing to answer.
   */
  private readonly cancelTakenAt: Float64Array;
  /**
   * When the cancel was last sent: it is sent again while the call does not answer, and only once
   * the first was taken, so until then this is when the first was sent.
   */
  private readonly cancelSentAt: Float64Array;
  /**
   * The slot's transaction was cancelled for the timeout (CANCEL_SENT), and its error has come
   * back (CANCEL_ANSWERED): its error counts as `timeout`, and no more cancels are sent.
   */
  private readonly timedOut: Uint8Array;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    slotCount: number,
    private readonly limitMs: number,
    /** False: never fires (the slots' calls cannot hang). */
    armed: boolean,
    private readonly conns: Connections,
    private readonly faults: FaultCounts,
    private readonly slots: WatchedSlots,
  ) {
    this.callStart = new Float64Array(slotCount);
    this.cancelTakenAt = new Float64Array(slotCount);
    this.cancelSentAt = new Float64Array(slotCount);
    this.timedOut = new Uint8Array(slotCount);
    if (armed && Number.isFinite(limitMs) && limitMs > 0) {
      // Fine enough to fire within a tenth of the limit, never busier than 20 checks a second.
      const tickMs = Math.min(1000, Math.max(50, limitMs / 10));
      this.timer = setInterval(this.check, tickMs);
      this.timer.unref();
    }
  }

  /** Times the slot's transaction from now. */
  watch(slot: number): void {
    this.callStart[slot] = performance.now();
    this.timedOut[slot] = NOT_CANCELLED;
  }

  /** The slot's transaction is over. */
  idle(slot: number): void {
    this.callStart[slot] = 0;
  }

  /** Whether the slot's transaction is being timed. */
  running(slot: number): boolean {
    return this.callStart[slot] !== 0;
  }

  /** An attempt failed: whether it was cancelled for the timeout (its error is then `timeout`). */
  answered(slot: number): boolean {
    const timedOut = this.timedOut[slot] !== NOT_CANCELLED;
    // Answered: a cancel sent now could only hit the rollback below or the next attempt.
    if (timedOut) this.timedOut[slot] = CANCEL_ANSWERED;
    return timedOut;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /**
   * The watchdog, every tick: a transaction past the timeout is cancelled on the server; one
   * still unanswered a grace period later (or still waiting for its slot to reconnect) is
   * abandoned: it fails now, and its connection is replaced.
   */
  private readonly check = (): void => {
    const now = performance.now();
    const limit = this.limitMs;
    const grace = Math.min(5000, Math.max(1000, limit / 2));
    for (let slot = 0; slot < this.callStart.length; slot++) {
      const started = this.callStart[slot]!;
      if (
        started !== 0 &&
        this.slots.isUp(slot) &&
        now - started >= LOST_UNDER_CALL_MS &&
        this.conns.isLost?.(slot) === true
      ) {
        // The connection closed under a running call and the call never heard: postgres.js queues
        // a reserved connection's next statement on a socket that is gone and never answers it.
        this.slots.abandon(
          slot,
          Object.assign(new Error('the connection was lost during the transaction'), {
            code: this.conns.lostCode,
          }),
        );
        this.slots.connectionLost(slot);
        continue;
      }
      if (started === 0 || now - started < limit) continue;
      if (!this.slots.isUp(slot)) {
        this.slots.abandon(
          slot,
          Object.assign(
            new Error(`database unreachable: no connection within ${limit / 1000} s (still reconnecting)`),
            { code: this.conns.lostCode },
          ),
        );
      } else if (this.timedOut[slot] === NOT_CANCELLED) {
        this.timedOut[slot] = CANCEL_SENT;
        this.cancelSentAt[slot] = now;
        this.cancelTakenAt[slot] = 0;
        this.faults.cancelled++;
        // Taken or refused, the grace period starts: a refused one is tried again below.
        const taken = (): void => {
          if (this.callStart[slot] === started) this.cancelTakenAt[slot] = performance.now();
        };
        this.conns.cancel(slot).then(taken, taken);
      } else if (
        this.cancelTakenAt[slot] !== 0
          ? now - this.cancelTakenAt[slot]! >= grace
          : now - this.cancelSentAt[slot]! >= grace + CANCEL_ASK_LIMIT_MS
      ) {
        this.faults.abandoned++;
        this.slots.abandon(slot, new TxnTimeoutError(limit));
        this.slots.connectionLost(slot);
      } else if (
        this.timedOut[slot] === CANCEL_SENT &&
        this.cancelTakenAt[slot] !== 0 &&
        now - this.cancelSentAt[slot]! >= grace / 4
      ) {
        this.cancelSentAt[slot] = now;
        this.conns.cancel(slot).catch(() => undefined);
      }
    }
  };
}

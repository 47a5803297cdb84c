/**
 * When each terminal's next submission is due, and handing it over then: one timer over a timer
 * heap for terminals due later, and a ready ring for those due at once (think-scale 0), submitted
 * together on the next turn of the event loop. No timer or closure per terminal.
 */
import { TimerHeap } from './timer-heap.js';

/**
 * How many terminals due at the end of their transaction may be handed over at once (`atOnce`)
 * before one goes through the ready ring, and so through a turn of the event loop. A transaction
 * answered by I/O already ends in a turn of its own, so the turn `soon` adds is only CPU (an
 * Immediate, a call in from C++, on every transaction of an unpaced run); one answered without
 * I/O (a promise settled at once) would never let timers and signals run without it. Bounding
 * the run of hand-overs between two turns serves both: timers wait for at most this many such
 * transactions.
 */
export const AT_ONCE_PER_TURN = 16;

export class DueQueue {
  private readonly heap: TimerHeap;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Infinity;
  /** Terminals with no wait left (think-scale 0), submitted together on the next turn of the event loop. */
  private readonly readyRing: Int32Array;
  private readyHead = 0;
  private readyCount = 0;
  private readyScheduled = false;
  /** Hand-overs `atOnce` may still make before the event loop turns (the ready ring's flush, the timer). */
  private atOnceLeft = AT_ONCE_PER_TURN;

  constructor(
    terminals: number,
    /** Called with each terminal as it falls due. */
    private readonly submit: (id: number) => void,
  ) {
    this.heap = new TimerHeap(terminals);
    this.readyRing = new Int32Array(terminals);
  }

  /** Terminal `id` falls due at `due` (performance.now() time). */
  at(due: number, id: number): void {
    this.heap.push(due, id);
    if (due < this.timerDue) this.armTimer();
  }

  /** Terminal `id` is due now: submitted on the next turn of the event loop, with any others due now. */
  soon(id: number): void {
    this.readyRing[(this.readyHead + this.readyCount) % this.readyRing.length] = id;
    this.readyCount++;
    if (!this.readyScheduled) {
      this.readyScheduled = true;
      setImmediate(this.flushReady);
    }
  }

  /**
   * Terminal `id` is due now, at the end of its transaction: submitted at once, from the caller's
   * own callback, while the event loop has turned recently enough and no terminal due before it
   * waits on the ready ring; otherwise as `soon`.
   */
  atOnce(id: number): void {
    if (this.atOnceLeft > 0 && this.readyCount === 0) {
      this.atOnceLeft--;
      this.submit(id);
    } else this.soon(id);
  }

  /**
   * Submits nothing more: `note` is called with each terminal due by `now` and not yet handed
   * over (on the ready ring, or not yet released by the heap), and every terminal is forgotten.
   */
  close(now: number, note: (id: number) => void): void {
    this.stop();
    for (let k = 0; k < this.readyCount; k++)
      note(this.readyRing[(this.readyHead + k) % this.readyRing.length]!);
    while (this.heap.size > 0 && this.heap.peekDue() <= now) note(this.heap.pop());
    this.heap.clear();
    this.readyCount = 0;
  }

  /** Clears the timer (the heap keeps its terminals). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private readonly flushReady = (): void => {
    this.readyScheduled = false;
    this.atOnceLeft = AT_ONCE_PER_TURN;
    let n = this.readyCount;
    while (n-- > 0 && this.readyCount > 0) {
      const id = this.readyRing[this.readyHead]!;
      this.readyHead = (this.readyHead + 1) % this.readyRing.length;
      this.readyCount--;
      this.submit(id);
    }
  };

  armTimer(): void {
    const next = this.heap.peekDue();
    if (next === this.timerDue && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = next;
    if (next === Infinity) return;
    this.timer = setTimeout(this.onTimer, Math.max(0, next - performance.now()));
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerDue = Infinity;
    this.atOnceLeft = AT_ONCE_PER_TURN;
    const now = performance.now();
    // Terminals due within the next half millisecond go now: setTimeout cannot aim finer.
    while (this.heap.size > 0 && this.heap.peekDue() <= now + 0.5) this.submit(this.heap.pop());
    this.armTimer();
  };
}

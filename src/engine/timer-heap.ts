/**
 * A binary min-heap of (due time, terminal id) in typed arrays: one scheduler for every terminal,
 * no timer or closure per terminal, no garbage per operation. Ties keep no particular order.
 */
export class TimerHeap {
  private readonly due: Float64Array;
  private readonly ids: Int32Array;
  private count = 0;

  constructor(capacity: number) {
    this.due = new Float64Array(capacity);
    this.ids = new Int32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Due time of the earliest entry, or Infinity when empty. */
  peekDue(): number {
    return this.count === 0 ? Infinity : this.due[0]!;
  }

  push(dueMs: number, id: number): void {
    if (this.count === this.due.length) throw new RangeError('TimerHeap is full');
    let i = this.count++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pd = this.due[parent]!;
      if (pd <= dueMs) break;
      this.due[i] = pd;
      this.ids[i] = this.ids[parent]!;
      i = parent;
    }
    this.due[i] = dueMs;
    this.ids[i] = id;
  }

  /** Removes the earliest entry and returns its id; call only when size > 0. */
  pop(): number {
    const top = this.ids[0]!;
    const n = --this.count;
    if (n > 0) {
      const lastDue = this.due[n]!;
      const lastId = this.ids[n]!;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= n) break;
        const right = left + 1;
        const child = right < n && this.due[right]! < this.due[left]! ? right : left;
        if (this.due[child]! >= lastDue) break;
        this.due[i] = this.due[child]!;
        this.ids[i] = this.ids[child]!;
        i = child;
      }
      this.due[i] = lastDue;
      this.ids[i] = lastId;
    }
    return top;
  }

  clear(): void {
    this.count = 0;
  }
}

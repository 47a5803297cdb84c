import { describe, expect, it } from 'vitest';
import { TimerHeap } from '../../src/engine/timer-heap.js';
import { Rng } from '../../src/random/rng.js';

describe('TimerHeap', () => {
  it('pops in non-decreasing due order over 100,000 random pushes interleaved with pops', () => {
    const rng = new Rng(12345);
    const capacity = 100_000;
    const heap = new TimerHeap(capacity);
    // Reference: the due time of every id currently in the heap.
    const dueOf = new Map<number, number>();
    let lastPopped = -Infinity;
    let pushed = 0;
    let popped = 0;
    let nextId = 0;
    // Failures are collected and asserted once: an expect() per operation would dominate the time.
    const problems: string[] = [];
    const popOne = (): void => {
      const peek = heap.peekDue();
      const id = heap.pop();
      const due = dueOf.get(id);
      if (due === undefined) problems.push(`popped unknown id ${id}`);
      else {
        // The id popped carries the due time peekDue announced, and it is the minimum.
        if (due !== peek) problems.push(`peekDue ${peek} but popped ${due}`);
        if (due < lastPopped) problems.push(`popped ${due} after ${lastPopped}`);
        lastPopped = due;
      }
      dueOf.delete(id);
      popped++;
    };
    while (pushed < 100_000) {
      // Due times never go below what was already popped (as in a scheduler: the future only),
      // with plenty of ties (integers) and fractions.
      const base = lastPopped === -Infinity ? 0 : lastPopped;
      const due = rng.int(0, 3) === 0 ? base + rng.int(0, 50) : base + rng.float() * 1000;
      const id = nextId++;
      heap.push(due, id);
      dueOf.set(id, due);
      pushed++;
      if (heap.size !== dueOf.size) problems.push(`size ${heap.size}, expected ${dueOf.size}`);
      if (rng.int(0, 2) === 0) {
        const pops = rng.int(1, 3);
        for (let k = 0; k < pops && heap.size > 0; k++) popOne();
      }
      if (problems.length > 10) break;
    }
    while (heap.size > 0 && problems.length <= 10) popOne();
    expect(problems).toEqual([]);
    expect(popped).toBe(100_000);
    expect(dueOf.size).toBe(0);
    expect(heap.peekDue()).toBe(Infinity);
  });

  it('sorts arbitrary (also decreasing and negative) due times', () => {
    const rng = new Rng(7);
    const heap = new TimerHeap(5000);
    const dues: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const due = (rng.float() - 0.5) * 1e6;
      dues.push(due);
      heap.push(due, i);
    }
    const out: number[] = [];
    while (heap.size > 0) out.push(dues[heap.pop()]!);
    expect(out).toEqual([...dues].sort((a, b) => a - b));
  });

  it('peekDue is Infinity when empty and the earliest due time otherwise, without removing it', () => {
    const heap = new TimerHeap(4);
    expect(heap.peekDue()).toBe(Infinity);
    heap.push(50, 1);
    expect(heap.peekDue()).toBe(50);
    heap.push(20, 2);
    expect(heap.peekDue()).toBe(20);
    heap.push(30, 3);
    expect(heap.peekDue()).toBe(20);
    expect(heap.size).toBe(3);
    expect(heap.pop()).toBe(2);
    expect(heap.peekDue()).toBe(30);
    expect(heap.pop()).toBe(3);
    expect(heap.pop()).toBe(1);
    expect(heap.peekDue()).toBe(Infinity);
  });

  it('size counts pushes and pops', () => {
    const heap = new TimerHeap(3);
    expect(heap.size).toBe(0);
    heap.push(1, 0);
    heap.push(1, 1);
    expect(heap.size).toBe(2);
    heap.pop();
    expect(heap.size).toBe(1);
    heap.push(0, 2);
    expect(heap.size).toBe(2);
  });

  it('ties pop every id exactly once', () => {
    const heap = new TimerHeap(100);
    for (let i = 0; i < 100; i++) heap.push(5, i);
    const ids = new Set<number>();
    while (heap.size > 0) ids.add(heap.pop());
    expect(ids.size).toBe(100);
  });

  it('clear empties the heap, which is then reusable to full capacity', () => {
    const heap = new TimerHeap(3);
    heap.push(3, 0);
    heap.push(1, 1);
    heap.push(2, 2);
    heap.clear();
    expect(heap.size).toBe(0);
    expect(heap.peekDue()).toBe(Infinity);
    heap.push(9, 7);
    heap.push(8, 8);
    heap.push(10, 9);
    expect(heap.size).toBe(3);
    expect([heap.pop(), heap.pop(), heap.pop()]).toEqual([8, 7, 9]);
  });

  it('push beyond capacity throws and leaves the heap intact', () => {
    const heap = new TimerHeap(2);
    heap.push(2, 0);
    heap.push(1, 1);
    expect(() => heap.push(0, 2)).toThrow(RangeError);
    expect(heap.size).toBe(2);
    expect(heap.peekDue()).toBe(1);
    expect(heap.pop()).toBe(1);
    heap.push(0, 2); // room again after a pop
    expect(heap.pop()).toBe(2);
    expect(heap.pop()).toBe(0);
  });

  it('a zero-capacity heap refuses every push', () => {
    const heap = new TimerHeap(0);
    expect(() => heap.push(1, 0)).toThrow(RangeError);
  });
});

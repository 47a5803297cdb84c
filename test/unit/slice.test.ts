import { describe, expect, it } from 'vitest';
import { sliceConnections, sliceTerminals } from '../../src/engine/slice.js';

describe('sliceTerminals', () => {
  it('splits the terminals into contiguous, disjoint slices that cover them all', () => {
    for (const [total, parts] of [
      [10, 3],
      [7, 7],
      [3, 5],
      [100_000, 2],
      [1, 1],
    ] as const) {
      const slices = Array.from({ length: parts }, (_, i) => sliceTerminals(total, i, parts));
      let next = 0;
      for (const s of slices) {
        expect(s.first).toBe(next);
        next += s.count;
      }
      expect(next).toBe(total);
      const sizes = slices.map((s) => s.count);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });

  it('slices a slice (workers within a shard) to the same terminals as slicing the whole', () => {
    const shard = sliceTerminals(1000, 2, 4);
    const workers = [0, 1].map((w) => sliceTerminals(1000, w, 2, shard));
    expect(workers[0]!.first).toBe(shard.first);
    expect(workers[0]!.count + workers[1]!.count).toBe(shard.count);
    expect(workers[1]!.first).toBe(shard.first + workers[0]!.count);
  });

  it('refuses an index outside the parts', () => {
    expect(() => sliceTerminals(10, 3, 3)).toThrow(/index must be from 0 to 2/);
    expect(() => sliceTerminals(10, 0, 0)).toThrow(/parts must be/);
  });
});

describe('sliceConnections', () => {
  it('shares the connections in proportion to the terminals, at least one per slice with terminals', () => {
    const total = 100;
    const shares = [0, 1, 2, 3].map((i) => sliceConnections(40, sliceTerminals(total, i, 4), total));
    expect(shares).toEqual([10, 10, 10, 10]);
    const few = [0, 1, 2].map((i) => sliceConnections(2, sliceTerminals(9, i, 3), 9));
    expect(few.every((c) => c >= 1)).toBe(true);
    expect(sliceConnections(5, { first: 0, count: 0 }, 10)).toBe(0);
  });
});

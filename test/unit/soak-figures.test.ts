import { describe, expect, it } from 'vitest';
import { driftVerdict, memoryVerdict, noise, slope } from '../../src/bench/soak-figures.js';

describe('soak figures', () => {
  it('fits a least-squares slope', () => {
    expect(
      slope([
        { x: 0, y: 1 },
        { x: 1, y: 3 },
        { x: 2, y: 5 },
      ]),
    ).toBeCloseTo(2, 12);
    expect(slope([{ x: 0, y: 1 }])).toBe(0);
  });

  it('noise is the spread over the mean', () => {
    expect(noise([10, 10, 10])).toBe(0);
    expect(noise([9, 11])).toBeCloseTo(Math.SQRT2 / 10, 12);
  });

  it('memory passes under 1 MB per 10 minutes only', () => {
    expect(memoryVerdict('RSS', 0.99).pass).toBe(true);
    expect(memoryVerdict('RSS', 1).pass).toBe(false);
  });

  it('a series that climbs past its noise misses; one that wobbles around its mean passes', () => {
    const climbing = Array.from({ length: 20 }, (_, i) => ({ x: i, y: 100 + 5 * i }));
    const wobbling = Array.from({ length: 20 }, (_, i) => ({ x: i, y: 100 + (i % 2 === 0 ? 3 : -3) }));
    expect(driftVerdict('TPS', climbing, 'TPS', 1).pass).toBe(false);
    expect(driftVerdict('TPS', wobbling, 'TPS', 1).pass).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { floorVerdict, leadClause } from '../../src/bench/reach-rule.js';

const tps = (floor: number, txbench: number) =>
  floorVerdict({ target: 0.95, floor, txbench, higherIsBetter: true });
const cpu = (floor: number, txbench: number) =>
  floorVerdict({ target: 1.5, floor, txbench, higherIsBetter: false });

describe('bench: when a floor puts a missed target out of reach', () => {
  it('needs the floor to miss the target too', () => {
    expect(tps(0.96, 0.9).outOfReach).toBe(false);
    expect(cpu(1.4, 1.6).outOfReach).toBe(false);
    expect(tps(0.8, 0.79)).toEqual({ outOfReach: true, lead: 0 });
    expect(cpu(1.7, 1.75)).toEqual({ outOfReach: true, lead: 0 });
  });

  it('never marks a target txbench met', () => {
    expect(tps(0.8, 0.97).outOfReach).toBe(false);
    expect(cpu(1.7, 1.4).outOfReach).toBe(false);
  });

  it("keeps a miss plain where txbench's lead on the floor is as large as its own shortfall", () => {
    // MariaDB point select, 1 thread, an earlier sitting: loop 0.839×, txbench 0.924×.
    const plain = tps(0.839, 0.924);
    expect(plain.outOfReach).toBe(false);
    expect(plain.lead).toBeCloseTo(0.085, 6);
    expect(cpu(1.765, 1.6).outOfReach).toBe(false);
  });

  it('marks it where the target lies further beyond txbench than txbench lies beyond the floor', () => {
    // MariaDB point select, 1 thread, 2026-12-05: loop 0.879×, txbench 0.911×.
    const marked = tps(0.879, 0.911);
    expect(marked.outOfReach).toBe(true);
    expect(marked.lead).toBeCloseTo(0.032, 6);
    expect(cpu(1.8, 1.7).outOfReach).toBe(true);
    // A lower-is-better ratio: client-SQL ÷ procedures, target 2, floor 3.17×, txbench 2.96×.
    expect(floorVerdict({ target: 2, floor: 3.17, txbench: 2.96, higherIsBetter: false }).outOfReach).toBe(
      true,
    );
  });

  it("says so in the mark's words only when txbench did better than the floor", () => {
    expect(leadClause(tps(0.879, 0.911), 0.911)).toBe(
      "; txbench's 0.911 beat the floor by 0.032, less than it misses the target by",
    );
    expect(leadClause(tps(0.8, 0.79), 0.79)).toBe('');
  });
});

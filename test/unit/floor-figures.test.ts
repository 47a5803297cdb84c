/** Section 10's figures: the floor's turn, and the verdict that says whether a target is out of reach. */
import { describe, expect, it } from 'vitest';
import { floorTable, floorTurnOf, type FloorData, type FloorTool } from '../../src/bench/floor.js';
import type { ToolFigures } from '../../src/bench/sysbench-figures.js';

const tool = (tps: number, usPerStatement: number): ToolFigures => ({
  tps,
  qps: tps,
  client: { usPerTransaction: usPerStatement, coresUsed: (tps * usPerStatement) / 1e6, usPerStatement },
});

const data = (tools: Record<FloorTool, ToolFigures>): FloorData => ({
  tables: 4,
  tableSize: 100_000,
  seconds: 15,
  loadSeconds: 3,
  command: 'sysbench oltp_point_select … run',
  rows: [{ threads: 1, turns: [], tools }],
  loadAverage: { start: [1], end: [1] },
});

describe('section 10: the floor', () => {
  it("a floor run's figures: statements per second, CPU per statement", () => {
    const turn = floorTurnOf({ statements: 300_000, seconds: 15, cpuS: 7.5 });
    expect(turn.figures.tps).toBe(20_000);
    expect(turn.figures.client.usPerStatement).toBe(25);
    expect(turn.figures.client.coresUsed).toBe(0.5);
  });

  it('says a target is out of any Node.js client’s reach only when the floor itself misses it', () => {
    const missed = floorTable(
      data({ sysbench: tool(22_000, 18), floor: tool(19_000, 29), txbench: tool(18_000, 31) }),
    );
    expect(missed).toMatch(
      /floor itself misses them: TPS 0\.864× \(< 0\.95\), CPU per statement 1\.61× \(> 1\.5\)/,
    );
    const within = floorTable(
      data({ sysbench: tool(22_000, 18), floor: tool(21_500, 20), txbench: tool(18_000, 31) }),
    );
    expect(within).toMatch(/the floor is within section 7's targets/);
  });
});

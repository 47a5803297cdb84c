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

  it("says the CPU target is out of a Node.js client's reach only when the floor's own CPU misses it", () => {
    const missed = floorTable(
      data({ sysbench: tool(22_000, 18), floor: tool(21_900, 29), txbench: tool(18_000, 31) }),
    );
    expect(missed).toMatch(
      /floor's CPU per statement is 1\.61× sysbench's \(> 1\.5\), so no Node\.js client/,
    );
    const within = floorTable(
      data({ sysbench: tool(22_000, 18), floor: tool(15_000, 20), txbench: tool(18_000, 31) }),
    );
    expect(within).toMatch(/1\.11× sysbench's \(≤ 1\.5: within a Node\.js client's reach\)/);
  });

  it('MariaDB gets a table of its own, or the reason it has none', () => {
    const tools = { sysbench: tool(20_000, 20), floor: tool(19_500, 26), txbench: tool(14_000, 41) };
    const withMaria = floorTable({
      ...data(tools),
      mariadb: { ...data(tools), version: '10.11.19-MariaDB' },
    });
    expect(withMaria).toContain('MariaDB 10.11.19-MariaDB, the same tables');
    expect(withMaria).toContain('sysbench 1.0.20 (C, libmysqlclient), runs together');
    expect(withMaria.match(/within a Node\.js client's reach/g)).toHaveLength(2);
    expect(floorTable({ ...data(tools), mariadb: { error: 'no mariadbd' } })).toContain(
      'MariaDB: not measured: no mariadbd',
    );
  });
});

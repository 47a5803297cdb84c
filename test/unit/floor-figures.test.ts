/** Section 10's figures: the floor's turn, and the verdict that says whether a target is out of reach. */
import { describe, expect, it } from 'vitest';
import {
  floorTable,
  floorTurnOf,
  floorTurnsAt,
  sumOfFloors,
  tpsVerdict,
  type FloorData,
  type FloorThreads,
} from '../../src/bench/floor.js';
import type { ToolFigures } from '../../src/bench/sysbench-figures.js';

const tool = (tps: number, usPerStatement: number): ToolFigures => ({
  tps,
  qps: tps,
  client: { usPerTransaction: usPerStatement, coresUsed: (tps * usPerStatement) / 1e6, usPerStatement },
});

const data = (tools: FloorThreads['tools']): FloorData => ({
  tables: 4,
  tableSize: 100_000,
  seconds: 15,
  loadSeconds: 3,
  command: 'sysbench oltp_point_select … run',
  rows: [{ script: 'oltp_point_select', threads: 1, turns: [], tools }],
  loadAverage: { start: [1], end: [1] },
});

describe('section 10: the floor', () => {
  it("a floor run's figures: statements per second, CPU per statement", () => {
    const turn = floorTurnOf({
      statements: 300_000,
      transactions: 300_000,
      errors: 0,
      seconds: 15,
      cpuS: 7.5,
    });
    expect(turn.figures.tps).toBe(20_000);
    expect(turn.figures.client.usPerStatement).toBe(25);
    expect(turn.figures.client.coresUsed).toBe(0.5);
    expect(turn.errors).toBeUndefined();
  });

  it('a script of many statements: TPS by its transactions, CPU per statement by all its statements', () => {
    // oltp_read_only: 16 statements a transaction (BEGIN and COMMIT counted, as sysbench counts queries).
    const turn = floorTurnOf({ statements: 160_000, transactions: 9_990, errors: 3, seconds: 10, cpuS: 4 });
    expect(turn.figures.tps).toBe(999);
    expect(turn.figures.qps).toBe(16_000);
    expect(turn.figures.client.usPerStatement).toBe(25);
    expect(turn.errors).toBe(3);
    const table = floorTable({
      ...data({ sysbench: tool(1_000, 20), floor: turn.figures, txbench: tool(800, 30) }),
      rows: [
        {
          script: 'oltp_read_only',
          threads: 4,
          turns: [turn],
          tools: { sysbench: tool(1_000, 20), floor: turn.figures, txbench: tool(800, 30) },
        },
      ],
    });
    expect(table).toContain('| oltp_read_only, 4 thr. | scheduler | 1. floor |');
    expect(table).toMatch(/at oltp_read_only, 4 threads the floor's CPU per statement is 1\.25×/);
    expect(table).toMatch(/at oltp_read_only, 4 threads the bare loop made 0\.999× \(≥ 0\.95/);
    expect(table).toContain("The loop's error answers");
    expect(table).toContain('oltp_read_only, 4 threads, turn 1: 3');
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
    // Each table judges CPU and TPS.
    expect(withMaria.match(/within a Node\.js client's reach/g)).toHaveLength(4);
    expect(floorTable({ ...data(tools), mariadb: { error: 'no mariadbd' } })).toContain(
      'MariaDB: not measured: no mariadbd',
    );
  });

  it('runs the loop in one process per connection only above one thread', () => {
    expect(floorTurnsAt(1)).not.toContain('floors');
    expect(floorTurnsAt(4).filter((t) => t === 'floors')).toHaveLength(2);
    // Each tool twice, in mirrored order, so that a drift over the section weighs on all alike.
    const four = floorTurnsAt(4);
    expect([...four].reverse()).toEqual(four);
  });

  it('adds loops run side by side: their rates, and their CPU over all their statements', () => {
    const sum = sumOfFloors([
      { statements: 100_000, transactions: 50_000, errors: 1, seconds: 10, cpuS: 2 },
      { statements: 120_000, transactions: 60_000, errors: 2, seconds: 12, cpuS: 3 },
    ]);
    expect(sum.statements / sum.seconds).toBeCloseTo(20_000, 6);
    expect(sum.transactions / sum.seconds).toBeCloseTo(10_000, 6);
    expect(sum.errors).toBe(3);
    expect(sum.cpuS).toBe(5);
    expect(floorTurnOf(sum).figures.client.usPerStatement).toBeCloseTo((5 * 1e6) / sum.statements, 1);
  });

  it("says the TPS target is out of reach only when the loop's best, one process or one per connection, misses it", () => {
    const row = (floor: number, floors: number | undefined): FloorThreads => ({
      script: 'oltp_point_select',
      threads: 4,
      turns: [],
      tools: {
        sysbench: tool(40_000, 17),
        floor: tool(floor, 20),
        txbench: tool(30_000, 21),
        ...(floors === undefined ? {} : { floors: tool(floors, 24) }),
      },
    });
    expect(tpsVerdict(row(27_000, 35_000)).text).toMatch(
      /made 0\.675× in one process and 0\.875× in one per connection \(< 0\.95\), so .* out of reach as measured/,
    );
    expect(tpsVerdict(row(27_000, 39_000)).text).toMatch(/0\.975× in one per connection \(≥ 0\.95: within/);
    expect(tpsVerdict(row(39_000, undefined)).text).toMatch(/made 0\.975× \(≥ 0\.95: within/);
    const table = floorTable({ ...data(row(27_000, 35_000).tools), rows: [row(27_000, 35_000)] });
    expect(table).toContain('the floor, one process per connection, runs together');
    expect(table).toContain('Against its targets of TPS ≥ 0.95× sysbench');
  });
});

/** The summary marks section 7's missed point-select targets that section 10 measured out of reach. */
import { describe, expect, it } from 'vitest';
import { evaluate, summaryTable } from '../../src/bench/figures.js';
import type { FloorData, FloorThreads } from '../../src/bench/floor.js';
import { markOutOfReach } from '../../src/bench/reach.js';
import { renderReport } from '../../src/bench/report.js';
import type { SectionRecord } from '../../src/bench/sections.js';
import {
  sysbenchTargets,
  type Script,
  type SysbenchData,
  type ToolFigures,
} from '../../src/bench/sysbench-figures.js';

const tool = (tps: number, usPerStatement: number): ToolFigures => ({
  tps,
  qps: tps,
  client: { usPerTransaction: usPerStatement, coresUsed: (tps * usPerStatement) / 1e6, usPerStatement },
});

/** Section 7 with only one script (point select unless named) at 4 threads on PostgreSQL, at the given ratios. */
function section7(tpsRatio: number, cpuRatio: number, script: Script = 'oltp_point_select'): SectionRecord {
  const pairing = {
    script,
    threads: 4,
    turns: [],
    sysbench: tool(40_000, 17),
    txbench: tool(40_000 * tpsRatio, 17 * cpuRatio),
    tpsRatio,
    clientUsPerStatementRatio: cpuRatio,
    pairs: [],
  };
  const data = { pairings: [pairing], threads: 4 } as unknown as SysbenchData;
  return {
    id: 7,
    key: 'sysbench',
    title: 'sysbench',
    status: 'ok',
    seconds: 1,
    data,
    targets: evaluate('7', sysbenchTargets([4]), data, undefined),
  };
}

function section10(
  floor: number,
  floors: number,
  floorUs: number,
  script: Script = 'oltp_point_select',
): SectionRecord {
  const row: FloorThreads = {
    script,
    threads: 4,
    turns: [],
    tools: {
      sysbench: tool(40_000, 17),
      floor: tool(floor, floorUs),
      floors: tool(floors, floorUs + 3),
      txbench: tool(30_000, 21),
    },
  };
  const data: FloorData = {
    tables: 4,
    tableSize: 100_000,
    seconds: 15,
    loadSeconds: 3,
    command: 'sysbench …',
    rows: [row],
    loadAverage: { start: [1], end: [1] },
  };
  return { id: 10, key: 'floor', title: 'the floor', status: 'ok', seconds: 1, data, targets: [] };
}

const row = (r: SectionRecord, figure: string) => r.targets.find((t) => t.figure === figure)!;
const TPS = 'oltp_point_select, 4 threads: TPS, txbench ÷ sysbench';
const CPU = 'oltp_point_select, 4 threads: client CPU per statement, txbench ÷ sysbench';

describe('bench: targets out of reach', () => {
  it('marks a missed TPS target when the bare loop, in one process and in one per connection, missed it too', () => {
    const s7 = section7(0.7, 1.6);
    markOutOfReach([s7, section10(27_000, 35_000, 27)]);
    expect(row(s7, TPS).outOfReach).toMatch(
      /^section 10: at oltp_point_select, 4 threads the bare loop made 0\.675× .* 0\.875×/,
    );
    expect(row(s7, CPU).outOfReach).toMatch(/floor's CPU per statement is 1\.588× sysbench's/);
    expect(summaryTable(s7.targets)).toContain('MISS, out of reach');
    expect(renderReport([s7], '')).toContain(
      "Out of this machine's reach, as measured: oltp_point_select, 4 threads: TPS",
    );
  });

  it('leaves a target that the floor reached, or that txbench met, as it is', () => {
    const reached = section7(0.7, 1.6);
    markOutOfReach([reached, section10(27_000, 39_000, 20)]);
    expect(row(reached, TPS).outOfReach).toBeUndefined();
    expect(row(reached, CPU).outOfReach).toBeUndefined();
    expect(summaryTable(reached.targets)).not.toContain('out of reach');

    const met = section7(0.96, 1.2);
    markOutOfReach([met, section10(27_000, 35_000, 27)]);
    expect(row(met, TPS).outOfReach).toBeUndefined();
    expect(row(met, CPU).outOfReach).toBeUndefined();
  });

  it("judges CPU by the cheaper loop: one process per connection's, where it cost less than one process's", () => {
    const s7 = section7(0.7, 1.6);
    const s10 = section10(27_000, 35_000, 27);
    const row10 = (s10.data as FloorData).rows[0]!;
    row10.tools.floors = tool(35_000, 22);
    markOutOfReach([s7, s10]);
    expect(row(s7, CPU).outOfReach).toBeUndefined();
    row10.tools.floors = tool(35_000, 28);
    markOutOfReach([s7, s10]);
    expect(row(s7, CPU).outOfReach).toMatch(/floor's CPU per statement is 1\.588× sysbench's/);
  });

  it('needs both sections in the same sitting', () => {
    const alone = section7(0.7, 1.6);
    markOutOfReach([alone]);
    expect(alone.targets.some((t) => t.outOfReach !== undefined)).toBe(false);
  });

  it('leaves a target a plain miss where txbench beat the floor by as much as it misses the target (the floor missed by noise)', () => {
    const s7 = section7(0.93, 1.6);
    markOutOfReach([s7, section10(27_000, 35_000, 30)]);
    expect(row(s7, TPS).outOfReach).toBeUndefined();
    expect(row(s7, CPU).outOfReach).toBeUndefined();
  });

  it('marks it where txbench beat the floor by less than it misses the target, and says so', () => {
    const s7 = section7(0.9, 1.7);
    markOutOfReach([s7, section10(27_000, 35_000, 30)]);
    expect(row(s7, TPS).outOfReach).toMatch(
      / 0\.875× .*; txbench's 0\.900 beat the floor by 0\.025, less than it misses the target by$/,
    );
    expect(row(s7, CPU).outOfReach).toMatch(/1\.765× sysbench's; txbench's 1\.700 beat the floor by 0\.065/);
  });

  it("judges each script by its own floor: read_only's loop marks read_only's target, not point select's", () => {
    const readOnly = section7(0.7, 1.6, 'oltp_read_only');
    markOutOfReach([readOnly, section10(27_000, 35_000, 27, 'oltp_read_only')]);
    expect(row(readOnly, 'oltp_read_only, 4 threads: TPS, txbench ÷ sysbench').outOfReach).toMatch(
      /^section 10: at oltp_read_only, 4 threads the bare loop made/,
    );
    const pointSelect = section7(0.7, 1.6);
    markOutOfReach([pointSelect, section10(27_000, 35_000, 27, 'oltp_read_only')]);
    expect(row(pointSelect, TPS).outOfReach).toBeUndefined();
  });
});

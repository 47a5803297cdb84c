/** Section 1's MariaDB floor: its figures, and when it puts the client-SQL ratio out of reach. */
import { describe, expect, it } from 'vitest';
import { CLIENT_SQL_RATIO, type ClientCostData } from '../../src/bench/client-cost.js';
import type { SummaryRow } from '../../src/bench/figures.js';
import { markOutOfReach } from '../../src/bench/reach.js';
import type { SectionRecord } from '../../src/bench/sections.js';
import { tpccFloorFigures, tpccFloorLine, type TpccFloorData } from '../../src/bench/tpcc-floor.js';
import type { RunFigures } from '../../src/bench/txbench-run.js';

const floor = (clientSqlUs: number): TpccFloorData => ({
  clientSql: { tps: 600, usPerTransaction: clientSqlUs, readsPerTransaction: 7.9, errors: 0 },
  procedures: { tps: 800, usPerTransaction: 80, readsPerTransaction: 1.1, errors: 0 },
});
const procedures = { client: { usPerTransaction: 110 }, terminals: 4 } as unknown as RunFigures;

function section1(ratio: number, f: TpccFloorData | { error: string }): SectionRecord {
  const row: SummaryRow = {
    section: '1',
    figure: CLIENT_SQL_RATIO,
    value: ratio,
    unit: '',
    target: '≤ 2',
    limit: 2,
    ratio: ratio / 2,
    pass: ratio <= 2,
  };
  const data = { runs: { mariadbProcedures: procedures }, mariadbFloor: f } as unknown as ClientCostData;
  return { id: 1, key: 'clientCost', title: 'client cost', status: 'ok', seconds: 1, data, targets: [row] };
}

describe("section 1's MariaDB floor", () => {
  it('figures per transaction', () => {
    const f = tpccFloorFigures({ transactions: 1_000, reads: 7_900, errors: 2, seconds: 10, cpuS: 0.27 });
    expect(f).toEqual({ tps: 100, usPerTransaction: 270, readsPerTransaction: 7.9, errors: 2 });
  });

  it("marks the client-SQL ratio out of reach when the floor's batches alone cost more than twice txbench's CALLs", () => {
    const s1 = section1(3.1, floor(270));
    markOutOfReach([s1]);
    expect(s1.targets[0]!.outOfReach).toMatch(
      /MariaDB floor's client-SQL alone costs 2\.45× txbench's procedure mode/,
    );
    expect(tpccFloorLine(floor(270), procedures)).toContain(
      '(> 2): MariaDB answers each statement of a batch apart',
    );
  });

  it('leaves it a plain miss when the floor is within reach, or txbench did better than the floor', () => {
    const within = section1(2.4, floor(200));
    markOutOfReach([within]);
    expect(within.targets[0]!.outOfReach).toBeUndefined();
    expect(tpccFloorLine(floor(200), procedures)).toContain("(≤ 2: within a Node.js client's reach)");
    const better = section1(2.2, floor(270));
    markOutOfReach([better]);
    expect(better.targets[0]!.outOfReach).toBeUndefined();
    const slightlyBetter = section1(2.9, floor(350));
    markOutOfReach([slightlyBetter]);
    expect(slightlyBetter.targets[0]!.outOfReach).toMatch(
      /costs 3\.18× .*; txbench's 2\.900 beat the floor by 0\.282, less than it misses the target by$/,
    );
    const failed = section1(3.1, { error: 'no mariadbd' });
    markOutOfReach([failed]);
    expect(failed.targets[0]!.outOfReach).toBeUndefined();
    expect(tpccFloorLine({ error: 'no mariadbd' }, procedures)).toBe(
      'MariaDB floor: not measured: no mariadbd',
    );
  });
});

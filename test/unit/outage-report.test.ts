import { describe, expect, it } from 'vitest';
import type { Outage } from '../../src/engine/outages.js';
import { formatRunSummary, formatTargetsTable } from '../../src/report/run-summary.js';
import type { AggregateSummary } from '../../src/run/aggregate.js';
import type { RunReport } from '../../src/run/workload-run.js';
import { runJson } from './run-fixtures.js';

const outage = (startS: number, durationS: number, failed: number): Outage =>
  ({
    startS,
    endS: startS + durationS,
    durationS,
    cause: 'connection',
    failed,
    recovered: true,
  }) as Outage;

describe('outages in the text reports', () => {
  it('a single run: the preconditioning outages too, marked as such', () => {
    const report = runJson(
      { target: 'vm2' },
      {
        outages: [outage(61, 12.4, 3118)],
        precondition: { seconds: 600, summary: {}, transactions: {}, outages: [outage(300, 2, 40)] },
      },
    ) as unknown as RunReport;
    const text = formatRunSummary(report);
    expect(text).toContain(
      '  preconditioning: target vm2: database unreachable 2.0 s at 00:05:00, 40 transactions failed, reconnected',
    );
    expect(text).toContain(
      '  target vm2: database unreachable 12.4 s at 00:01:01, 3,118 transactions failed, reconnected',
    );
  });

  it('several targets: each target’s outages under the table, the preconditioning ones marked', () => {
    const reports = [
      runJson({ target: 'vm1' }, { outages: [] }),
      runJson(
        { target: 'vm2' },
        {
          outages: [outage(5, 1, 1)],
          precondition: { seconds: 60, summary: {}, transactions: {}, outages: [outage(7, 3, 9)] },
        },
      ),
    ] as unknown as RunReport[];
    const sum = { ...reports[0]!.summary, targets: 2, spread: { minTps: 1, maxTps: 1, maxOverMin: 1 } };
    const lines = formatTargetsTable(reports, sum as unknown as AggregateSummary).split('\n');
    expect(lines).toContain(
      'preconditioning: target vm2: database unreachable 3.0 s at 00:00:07, 9 transactions failed, reconnected',
    );
    expect(lines).toContain(
      'target vm2: database unreachable 1.0 s at 00:00:05, 1 transaction failed, reconnected',
    );
    expect(lines.filter((l) => l.includes('target vm1:'))).toEqual([]);
  });
});

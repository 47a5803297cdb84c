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

describe('an outage that lasted to the end: what happened, in the summary', () => {
  it('names the first failure, the server log and the full disk, and warns that the window was cut', () => {
    const o: Outage = {
      ...outage(20, 75, 16),
      endS: null,
      recovered: false,
      error: '57P02 terminating connection because of crash of another server process',
      serverLog: 'PANIC:  could not write to file "pg_wal/xlogtemp.8849": No space left on device',
      disk: { path: '/mnt/small/data', freeBytes: 0, totalBytes: 350e6, full: true },
    };
    const report = runJson({ target: 'small' }, { outages: [o] }) as unknown as RunReport;
    const text = formatRunSummary(report);
    expect(text).toContain(
      'target small: database unreachable 75.0 s at 00:00:20, 16 transactions failed, not recovered by the end of the run; ' +
        'first failure: 57P02 terminating connection because of crash of another server process; ' +
        'server log: PANIC:  could not write to file "pg_wal/xlogtemp.8849": No space left on device; ' +
        "the data directory's disk is FULL: 0 MB free of 350 MB (/mnt/small/data)",
    );
    expect(text).toMatch(
      /WARNING: the database was unreachable or not answering for [\d.]+ s of the [\d.]+ s window/,
    );
  });
});

describe('the server failing opens an outage', () => {
  it('a failure the dialect calls a server fault (its disk full) opens one, of cause server, named by its error', async () => {
    const { OutageTracker } = await import('../../src/engine/outages.js');
    const t = new OutageTracker(0, 0);
    t.failure(1000, 'other', Object.assign(new Error('could not extend file'), { code: '23505' }));
    expect(t.open).toBe(false);
    t.failure(
      2000,
      'other',
      Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' }),
      true,
    );
    const [o] = t.outages(5000);
    expect(o).toMatchObject({ cause: 'server', startS: 2, failed: 1, recovered: false });
    expect(o!.error).toBe('53100 could not extend file: No space left on device');
  });
});

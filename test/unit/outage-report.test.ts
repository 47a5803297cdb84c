import { describe, expect, it } from 'vitest';
import type { Outage } from '../../src/engine/outages.js';
import { formatOutage } from '../../src/report/outage-line.js';
import { formatRunSummary, formatTargetsTable } from '../../src/report/run-summary.js';
import type { AggregateSummary } from '../../src/results/targets-file.js';
import type { RunReport } from '../../src/results/run-file.js';
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

  const tableFull = Object.assign(new Error("The table 'orders' is full"), {
    code: 'ER_RECORD_FILE_FULL',
    errno: 1114,
  });
  const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), {
    code: 'PROTOCOL_CONNECTION_LOST',
  });

  it('writes failing between reads that succeed, then the server dying of it: one outage, named by the first failure', async () => {
    const { OutageTracker } = await import('../../src/engine/outages.js');
    const t = new OutageTracker(0, 0);
    for (let ms = 5000; ms < 8000; ms += 100) {
      t.failure(ms, 'other', tableFull, true);
      t.success(ms + 50);
    }
    t.failure(9000, 'connection', lost);
    t.failure(9500, 'connection', lost);
    const list = t.outages(35_000);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      cause: 'server',
      startS: 5,
      endS: null,
      durationS: 30,
      recovered: false,
    });
    expect(list[0]!.error).toBe("ER_RECORD_FILE_FULL The table 'orders' is full");
    expect(list[0]!.failedByClass).toMatchObject({ other: 30, connection: 2 });
    expect(formatOutage('maria', list[0]!)).toMatch(
      /^target maria: database failing 30\.0 s at 00:00:05, 32 transactions failed, not recovered/,
    );
  });

  it('ends at the first success after its last failure once no failure follows for SERVER_SETTLE_MS', async () => {
    const { OutageTracker, SERVER_SETTLE_MS } = await import('../../src/engine/outages.js');
    const t = new OutageTracker(0, 0);
    t.failure(2000, 'other', tableFull, true);
    t.success(2500);
    t.failure(3000, 'other', tableFull, true);
    t.success(4000);
    t.success(4000 + SERVER_SETTLE_MS / 2);
    t.success(4000 + SERVER_SETTLE_MS);
    expect(t.open).toBe(false);
    t.failure(30_000, 'other', tableFull, true);
    t.success(31_000);
    const list = t.outages(31_000 + SERVER_SETTLE_MS);
    expect(list.map((o) => [o.startS, o.endS, o.failed, o.recovered])).toEqual([
      [2, 4, 2, true],
      [30, 31, 1, true],
    ]);
    expect(formatOutage('maria', list[0]!)).toMatch(
      /database failing 2\.0 s at 00:00:02, 2 transactions failed, recovered;/,
    );
  });

  it('one not yet clear of failures for SERVER_SETTLE_MS at the end is not recovered', async () => {
    const { OutageTracker } = await import('../../src/engine/outages.js');
    const t = new OutageTracker(0, 0);
    t.failure(2000, 'other', tableFull, true);
    t.success(2100);
    expect(t.outages(5000)).toMatchObject([{ startS: 2, endS: null, durationS: 3, recovered: false }]);
  });
});

describe('outages in the live progress', () => {
  it('a line as an outage opens and one as it ends, each with the run label', async () => {
    const { progressOutput } = await import('../../src/report/progress-output.js');
    const written: string[] = [];
    const stream = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
    const out = progressOutput('[pg-1] ', stream);
    const open = { ...outage(41, 0, 0), endS: null, recovered: false, error: 'ECONNREFUSED' } as Outage;
    out.event({ kind: 'outage', target: 'pg-1', edge: 'start', outage: open });
    out.event({ kind: 'outage', target: 'pg-1', edge: 'end', outage: outage(41, 12.4, 3118) });
    expect(written.join('')).toBe(
      '[pg-1] -- outage: target pg-1: database unreachable since 00:00:41; first failure: ECONNREFUSED\n' +
        '[pg-1] -- outage over: target pg-1: database unreachable 12.4 s at 00:00:41, 3,118 transactions failed, reconnected\n',
    );
  });
});

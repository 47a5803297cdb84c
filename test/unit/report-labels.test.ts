import { describe, expect, it } from 'vitest';
import { formatRunHeader, formatRunSummary, formatTargetsTable } from '../../src/report/run-summary.js';
import { formatRunList, runListJson } from '../../src/report/run-list.js';
import { formatScaling } from '../../src/report/scaling.js';
import type { RunRecord } from '../../src/results/store.js';
import type { AggregateSummary } from '../../src/results/targets-file.js';
import type { RunReport, RunSummary } from '../../src/results/run-file.js';
import { runJson, type FixtureRun } from './run-fixtures.js';

const asReport = (f: FixtureRun): RunReport => runJson({ tpmC: 53679, ...f }) as unknown as RunReport;

/** The line of the summary that carries the New-Order rate. */
const rateLine = (r: RunReport): string => formatRunSummary(r).split('\n')[2]!;

describe('the run summary', () => {
  it("calls a paced, standard-mix run's figure tpmC", () => {
    expect(rateLine(asReport({ thinkScale: 1, tpmC: 128 }))).toMatch(/^ {2}tpmC 128 {3}NOPM/);
  });

  it('never calls an unpaced figure tpmC', () => {
    const line = rateLine(asReport({ thinkScale: 0 }));
    expect(line).toMatch(/^ {2}New-Orders\/min \(unpaced\) 53,679 {3}NOPM/);
    expect(line).not.toContain('tpmC');
  });

  it('calls a run at a scaled think time paced, at that scale: neither tpmC nor unpaced', () => {
    const line = rateLine(asReport({ thinkScale: 0.25 }));
    expect(line).toMatch(/^ {2}New-Orders\/min \(paced ×0\.25\) 53,679 {3}NOPM/);
    expect(line).not.toMatch(/tpmC|unpaced/);
    expect(rateLine(asReport({ thinkScale: 0.25, nonstandardMix: true }))).toMatch(
      /^ {2}New-Orders\/min \(paced ×0\.25, non-standard mix\) 53,679/,
    );
  });

  it('marks a non-standard mix in the header, the status line and the rate', () => {
    const r = asReport({ thinkScale: 1, nonstandardMix: true });
    expect(formatRunHeader(r.config)).toMatch(/, non-standard mix \(below the spec's minimums\)$/);
    const lines = formatRunSummary(r).split('\n');
    expect(lines[1]).toMatch(/^measured 60\.0 s, non-standard mix/);
    expect(lines[2]).toMatch(/^ {2}New-Orders\/min \(non-standard mix\) 53,679/);
    expect(formatRunHeader(asReport({}).config)).not.toContain('non-standard');
  });

  it('names the worker threads in the header when there are several', () => {
    const r = asReport({});
    expect(formatRunHeader({ ...r.config, workers: 3 })).toMatch(
      / connections over 3 worker threads, think-scale/,
    );
    expect(formatRunHeader({ ...r.config, workers: 1 })).not.toContain('worker');
  });

  it('heads a targets table with the label the runs share', () => {
    const sum = { ...asReport({}).summary, targets: 2, spread: { minTps: 1, maxTps: 1, maxOverMin: 1 } };
    const table = (f: FixtureRun): string =>
      formatTargetsTable([asReport(f), asReport(f)], sum as unknown as AggregateSummary).split('\n')[1]!;
    expect(table({ thinkScale: 0 })).toMatch(/^target\s+TPS\s+New-Orders\/min \(unpaced\)\s+NOPM/);
    expect(table({ thinkScale: 1 })).toMatch(/^target\s+TPS\s+tpmC\s+NOPM/);
    expect(table({ thinkScale: 0.25 })).toMatch(/^target\s+TPS\s+New-Orders\/min \(paced ×0\.25\)\s+NOPM/);
  });
});

describe('steps and sweep tables', () => {
  const row = (
    label: string,
    f: FixtureRun,
  ): { label: string; summary: RunSummary; config: RunReport['config'] } => {
    const r = asReport(f);
    return { label, summary: r.summary, config: r.config };
  };

  it('head the rate tpmC only when every row is paced with a standard mix', () => {
    expect(formatScaling('users', [row('1', { thinkScale: 1 })]).split('\n')[0]).toMatch(
      /^users\s+TPS\s+avg response ms\s+device MB\/s\s+device latency ms\s+tpmC\s/,
    );
    expect(formatScaling('users', [row('1', { thinkScale: 0.25 })]).split('\n')[0]).toMatch(
      /\s+device latency ms\s+New-Orders\/min \(paced ×0\.25\)\s+p90 ms/,
    );
    expect(formatScaling('users', [row('1', { thinkScale: 0 })]).split('\n')[0]).toMatch(
      /\s+device latency ms\s+New-Orders\/min \(unpaced\)\s+p90 ms/,
    );
    expect(
      formatScaling('users', [
        row('1', { thinkScale: 1 }),
        row('2', { thinkScale: 1, nonstandardMix: true }),
      ]).split('\n')[0],
    ).toMatch(/\s+device latency ms\s+New-Orders\/min\s+p90 ms/);
  });
});

describe('the results list', () => {
  function record(id: string, f: FixtureRun): RunRecord {
    const json = runJson(f);
    return {
      path: `/r/${id}`,
      file: `/r/${id}/run.json`,
      id,
      schemaVersion: 2,
      kind: 'run',
      startedAt: '2024-05-01T12:00:00.000Z',
      status: f.status ?? 'completed',
      workload: 'tpcc',
      config: json.config as RunRecord['config'],
      label: f.target ?? 'x',
      tags: [],
      summary: json.summary as RunRecord['summary'],
      targets: undefined,
      steps: undefined,
      sweep: undefined,
    };
  }

  it('puts paced and unpaced figures under their own headers, and marks a non-standard mix', () => {
    const lines = formatRunList([
      record('run-a', { target: 'paced', thinkScale: 1, tpmC: 128 }),
      record('run-b', { target: 'unpaced', thinkScale: 0, tpmC: 53679 }),
      record('run-c', {
        target: 'odd',
        thinkScale: 0,
        tpmC: 700,
        nonstandardMix: true,
        status: 'interrupted',
      }),
    ]).split('\n');
    const cells = lines.map((l) => l.split(/\s{2,}/));
    expect(cells[0]).toEqual([
      'id',
      'started (UTC)',
      'label',
      'status',
      'TPS',
      'tpmC',
      'New-Orders/min (unpaced)',
      'New-Orders/min (unpaced, non-standard mix)',
      'avg ms',
      'tags',
    ]);
    expect(cells.slice(1).map((c) => c.slice(2, 8))).toEqual([
      ['paced', 'completed', '100.00', '128', '-', '-'],
      ['unpaced', 'completed', '100.00', '-', '53,679', '-'],
      ['odd', 'interrupted, non-standard mix', '100.00', '-', '-', '700'],
    ]);
  });

  it('has no tpmC column when no run is paced as the spec says', () => {
    expect(formatRunList([record('run-b', { thinkScale: 0.25 })]).split('\n')[0]).not.toContain('tpmC');
  });

  it('gives a run at a scaled think time its own column and JSON label, not the unpaced one', () => {
    const runs = [
      record('run-a', { target: 'unpaced', thinkScale: 0, tpmC: 53679 }),
      record('run-b', { target: 'quarter', thinkScale: 0.25, tpmC: 1200 }),
    ];
    const cells = formatRunList(runs)
      .split('\n')
      .map((l) => l.split(/\s{2,}/));
    expect(cells[0]!.slice(5, 7)).toEqual(['New-Orders/min (paced ×0.25)', 'New-Orders/min (unpaced)']);
    expect(cells.slice(1).map((c) => [c[2], ...c.slice(5, 7)])).toEqual([
      ['unpaced', '-', '53,679'],
      ['quarter', '1,200', '-'],
    ]);
    expect(runListJson(runs).map((r) => (r as { newOrderRateLabel: string }).newOrderRateLabel)).toEqual([
      'New-Orders/min (unpaced)',
      'New-Orders/min (paced ×0.25)',
    ]);
  });
});

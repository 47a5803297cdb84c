/**
 * run.json of several targets driven at once (`txbench run` with several --db; `txbench merge`
 * of their shards builds the same): its status is the gravest of the targets', as merged worker
 * threads' and shards' are (issue 31, item 6), not the first that did not complete.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/results/run-file.js';
import type { AggregateSummary } from '../../src/results/targets-file.js';
import { targetsContent } from '../../src/run/targets-content.js';

function report(target: string, status: RunReport['status']): RunReport {
  return {
    workload: 'tpcc',
    disclaimer: 'd',
    status,
    config: { target },
    summary: { tps: 1 },
    histograms: { k0: 'HISTFAAA' },
  } as unknown as RunReport;
}

const SUMMARY = { targets: 2 } as AggregateSummary;
const RUN = { schemaVersion: 3, startedAt: 's', endedAt: 'e', keepHistograms: false };

describe('targetsContent', () => {
  it('failed beside an incomplete drain reads failed, in either order', () => {
    const drained = report('a', 'incomplete-drain');
    const failed = report('b', 'failed');
    expect(targetsContent([drained, failed], SUMMARY, RUN).status).toBe('failed');
    expect(targetsContent([failed, drained], SUMMARY, RUN).status).toBe('failed');
    expect(targetsContent([drained, report('b', 'interrupted')], SUMMARY, RUN).status).toBe('interrupted');
    expect(targetsContent([report('a', 'completed'), report('b', 'completed')], SUMMARY, RUN).status).toBe(
      'completed',
    );
  });

  it('names the targets, and keeps their histograms only when asked (a shard’s)', () => {
    const reports = [report('a', 'completed'), report('b', 'completed')];
    const content = targetsContent(reports, SUMMARY, RUN);
    expect(content).toMatchObject({ kind: 'targets', config: { target: 'a + b' }, summary: SUMMARY });
    const targets = content.targets as { label: string; report: Partial<RunReport> }[];
    expect(targets.map((t) => [t.label, t.report.histograms])).toEqual([
      ['a', undefined],
      ['b', undefined],
    ]);
    const kept = targetsContent(reports, SUMMARY, { ...RUN, keepHistograms: true }).targets as {
      report: RunReport;
    }[];
    expect(kept.map((t) => t.report.histograms)).toEqual([{ k0: 'HISTFAAA' }, { k0: 'HISTFAAA' }]);
  });
});

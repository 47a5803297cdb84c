import { describe, expect, it } from 'vitest';
import {
  compareRuns,
  formatComparison,
  rowsFromRun,
  sortRows,
  type CompareRow,
} from '../../src/report/compare.js';
import type { RunRecord, SummaryFigures } from '../../src/results/store.js';

function figures(tps: number, avg = 5, tpmC: number | null = 1000): SummaryFigures {
  return { tps, tpmC, responseMs: { avg, p90: avg * 2, p99: avg * 4 } };
}

function record(id: string, label: string, more: Partial<RunRecord> = {}): RunRecord {
  return {
    path: `/r/${id}`,
    file: `/r/${id}/run.json`,
    id,
    startedAt: '2024-01-01T00:00:00Z',
    status: 'completed',
    label,
    tags: [],
    summary: figures(100),
    targets: undefined,
    steps: undefined,
    sweep: undefined,
    ...more,
  };
}

function row(label: string, tps: number, avgMs: number, tpmC: number | null, run = 'r'): CompareRow {
  return { label, costLabels: [label], run, tps, tpmC, avgMs, p90Ms: 0, p99Ms: 0 };
}

describe('rows from a run', () => {
  it('a single run is one row labelled with its target', () => {
    expect(rowsFromRun(record('run-1', 'PX600', { summary: figures(3153.44, 4.2, 84000) }))).toEqual([
      {
        label: 'PX600',
        costLabels: ['PX600'],
        run: 'run-1',
        tps: 3153.44,
        tpmC: 84000,
        avgMs: 4.2,
        p90Ms: 8.4,
        p99Ms: 16.8,
      },
    ]);
  });

  it('a run without a label is named by its id; without tpmC it has none', () => {
    const [r] = rowsFromRun(
      record('run-2', '', { summary: { tps: 1, responseMs: { avg: 1, p90: 1, p99: 1 } } }),
    );
    expect(r).toMatchObject({ label: 'run-2', tpmC: null });
  });

  it('steps give one row per step, costed as the run label', () => {
    const rows = rowsFromRun(
      record('s', 'ssd', {
        summary: undefined,
        steps: [
          { users: 1, summary: figures(10) },
          { users: 20, summary: figures(150) },
        ],
      }),
    );
    expect(rows.map((r) => [r.label, r.tps, r.costLabels])).toEqual([
      ['ssd @ 1 user', 10, ['ssd']],
      ['ssd @ 20 users', 150, ['ssd']],
    ]);
  });

  it('a sweep gives one row per value', () => {
    const rows = rowsFromRun(
      record('w', 'pg', {
        sweep: [
          { setting: 'shared_buffers', value: '8GB', summary: figures(10) },
          { setting: 'shared_buffers', value: 128, summary: figures(20) },
        ],
      }),
    );
    expect(rows.map((r) => r.label)).toEqual(['pg @ shared_buffers=8GB', 'pg @ shared_buffers=128']);
  });

  it('several targets give one row each and the aggregate, costed as all the targets', () => {
    const rows = rowsFromRun(
      record('m', 'vm1 + vm2', {
        summary: figures(6307.81),
        targets: [
          { label: 'vm1', summary: figures(3153.44) },
          { label: 'vm2', summary: figures(3154.37) },
        ],
      }),
    );
    expect(rows.map((r) => [r.label, r.tps, r.costLabels])).toEqual([
      ['vm1', 3153.44, ['vm1']],
      ['vm2', 3154.37, ['vm2']],
      ['vm1 + vm2 (sum)', 6307.81, ['vm1', 'vm2']],
    ]);
    expect(
      rowsFromRun(record('m', 'x', { summary: undefined, targets: [{ label: 'a', summary: figures(1) }] })),
    ).toHaveLength(1);
  });

  it('a run with nothing measured gives no row and a note', () => {
    const { rows, notes } = compareRuns([record('empty', 'x', { summary: undefined }), record('ok', 'y')]);
    expect(rows.map((r) => r.run)).toEqual(['ok']);
    expect(notes).toEqual(['empty: no summary in its run.json (nothing was measured?)']);
  });
});

describe('sorting', () => {
  const rows = [
    row('b', 200, 3, 10),
    row('a', 300, 5, null),
    row('c @ 10 users', 100, 1, 30),
    row('c @ 9 users', 100, 2, 20),
  ];
  const labels = (key: Parameters<typeof sortRows>[1]): string[] => sortRows(rows, key).map((r) => r.label);

  it('by TPS, highest first (ties by label)', () => {
    expect(labels('tps')).toEqual(['a', 'b', 'c @ 9 users', 'c @ 10 users']);
  });
  it('by tpmC, highest first, runs without tpmC last', () => {
    expect(labels('tpmC')).toEqual(['c @ 10 users', 'c @ 9 users', 'b', 'a']);
  });
  it('by average response time, lowest first', () => {
    expect(labels('avg')).toEqual(['c @ 10 users', 'c @ 9 users', 'b', 'a']);
  });
  it('by label, numbers in numeric order', () => {
    expect(labels('label')).toEqual(['a', 'b', 'c @ 9 users', 'c @ 10 users']);
  });
  it('does not change its input', () => {
    sortRows(rows, 'label');
    expect(rows[0]!.label).toBe('b');
  });

  it('compareRuns sorts by TPS by default and tells apart the same label from two runs', () => {
    const { rows: out } = compareRuns([
      record('run-1', 'ssd', { summary: figures(100) }),
      record('run-2', 'ssd', { summary: figures(200) }),
      record('run-3', 'hdd', { summary: figures(50) }),
    ]);
    expect(out.map((r) => r.label)).toEqual(['ssd (run-2)', 'ssd (run-1)', 'hdd']);
    expect(out.map((r) => r.costLabels)).toEqual([['ssd'], ['ssd'], ['hdd']]);
  });
});

describe('the comparison table', () => {
  const rows: CompareRow[] = [
    {
      label: 'PX600, 64 GB',
      costLabels: [],
      run: 'run-1',
      tps: 12615.66,
      tpmC: 340000,
      avgMs: 3.172,
      p90Ms: 7.51,
      p99Ms: 23.456,
    },
    {
      label: 'HDD | 15k',
      costLabels: [],
      run: 'run-2',
      tps: 99.5,
      tpmC: null,
      avgMs: 150.4,
      p90Ms: 320,
      p99Ms: 1210.5,
    },
  ];

  it('text: the reviewers columns, aligned', () => {
    expect(formatComparison(rows, 'text')).toBe(
      [
        'label               TPS  avg response ms     tpmC  p90 ms  p99 ms',
        'PX600, 64 GB  12,615.66             3.17  340,000    7.51    23.5',
        'HDD | 15k         99.50              150      n/a     320    1211',
      ].join('\n'),
    );
  });

  it('Markdown: same columns, numbers right-aligned, pipes escaped', () => {
    expect(formatComparison(rows, 'markdown')).toBe(
      [
        '| label | TPS | avg response ms | tpmC | p90 ms | p99 ms |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        '| PX600, 64 GB | 12,615.66 | 3.17 | 340,000 | 7.51 | 23.5 |',
        '| HDD \\| 15k | 99.50 | 150 | n/a | 320 | 1211 |',
      ].join('\n'),
    );
  });

  it('CSV: raw figures, quoted labels, and the run id', () => {
    expect(formatComparison(rows, 'csv')).toBe(
      [
        'label,TPS,avg response ms,tpmC,p90 ms,p99 ms,run',
        '"PX600, 64 GB",12615.66,3.172,340000,7.51,23.456,run-1',
        'HDD | 15k,99.5,150.4,,320,1210.5,run-2',
      ].join('\n'),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { formatComparison, formatVerdicts } from '../../src/report/compare.js';
import {
  comparabilityWarnings,
  compareRuns,
  rowsFromRun,
  sortRows,
  type CompareRow,
  type RowConditions,
} from '../../src/report/compare-rows.js';
import type { DeviceTotals } from '../../src/report/device-totals.js';
import type { RunRecord, StoredConfig, StoredEntryReport, SummaryFigures } from '../../src/results/store.js';

function figures(tps: number, avg = 5, tpmC: number | null = 1000): SummaryFigures {
  return { tps, tpmC, responseMs: { avg, p90: avg * 2, p99: avg * 4 } };
}

function record(id: string, label: string, more: Partial<RunRecord> = {}): RunRecord {
  return {
    path: `/r/${id}`,
    file: `/r/${id}/run.json`,
    id,
    schemaVersion: 2,
    kind: 'run',
    startedAt: '2024-01-01T00:00:00Z',
    status: 'completed',
    workload: 'tpcc',
    config: config(),
    label,
    tags: [],
    summary: figures(100),
    targets: undefined,
    steps: undefined,
    sweep: undefined,
    ...more,
  };
}

/** A single run's conditions, as `txbench run` writes them (think-scale 0 unless given). */
function config(more: Partial<StoredConfig> = {}): StoredConfig {
  return {
    target: 'x',
    warehouses: 1,
    terminals: 10,
    thinkScale: 0,
    durationS: 60,
    mode: 'client-sql',
    deck: [10, 10, 1, 1, 1],
    ...more,
  };
}

const CONDITIONS: RowConditions = {
  workload: 'tpcc',
  warehouses: 1,
  terminals: 10,
  thinkScale: 0,
  durationS: 60,
  mode: 'client-sql',
  deck: [10, 10, 1, 1, 1],
  nonstandardMix: undefined,
};

function report(more: Partial<StoredConfig> = {}, status = 'completed'): StoredEntryReport {
  return { status, workload: 'tpcc', config: config(more) };
}

function row(
  label: string,
  tps: number,
  avgMs: number,
  tpmC: number | null,
  run = 'r',
  more: Partial<CompareRow> = {},
): CompareRow {
  return {
    label,
    costLabels: [label],
    run,
    status: 'completed',
    conditions: CONDITIONS,
    tps,
    tpmC,
    figures: [],
    avgMs,
    p90Ms: 0,
    p99Ms: 0,
    device: null,
    noise: { tps: null, tpmC: null, avgMs: null, p99Ms: null },
    ...more,
  };
}

describe('rows from a run', () => {
  it('a single run is one row labelled with its target', () => {
    expect(rowsFromRun(record('run-1', 'PX600', { summary: figures(3153.44, 4.2, 84000) }))).toEqual([
      {
        label: 'PX600',
        costLabels: ['PX600'],
        run: 'run-1',
        status: 'completed',
        conditions: CONDITIONS,
        tps: 3153.44,
        tpmC: 84000,
        figures: [],
        avgMs: 4.2,
        p90Ms: 8.4,
        p99Ms: 16.8,
        device: null,
        noise: { tps: null, tpmC: null, avgMs: null, p99Ms: null },
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
  const nvme: DeviceTotals = {
    readIops: 120,
    writeIops: 3400,
    readMBps: 1.5,
    writeMBps: 54.25,
    mbps: 55.75,
    readLatencyMs: 0.2,
    writeLatencyMs: 0.9,
    latencyMs: 0.875,
  };
  const rows: CompareRow[] = [
    row('PX600, 64 GB', 12615.66, 3.172, 340000, 'run-1', { p90Ms: 7.51, p99Ms: 23.456, device: nvme }),
    row('HDD | 15k', 99.5, 150.4, null, 'run-2', { p90Ms: 320, p99Ms: 1210.5, status: 'interrupted' }),
  ];

  it('text: the reviewers columns and the device columns, aligned, an unpaced rate under its own name, and the status', () => {
    expect(formatComparison(rows, 'text')).toBe(
      [
        'label               TPS  avg response ms  device MB/s  device latency ms  New-Orders/min (unpaced)  p90 ms  p99 ms  status',
        'PX600, 64 GB  12,615.66             3.17         55.8               0.88                   340,000    7.51    23.5  completed',
        'HDD | 15k         99.50              150          n/a                n/a                       n/a     320    1211  interrupted',
      ].join('\n'),
    );
  });

  it('Markdown: same columns, numbers right-aligned, pipes escaped', () => {
    expect(formatComparison(rows, 'markdown')).toBe(
      [
        '| label | TPS | avg response ms | device MB/s | device latency ms | New-Orders/min (unpaced) | p90 ms | p99 ms | status |',
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
        '| PX600, 64 GB | 12,615.66 | 3.17 | 55.8 | 0.88 | 340,000 | 7.51 | 23.5 | completed |',
        '| HDD \\| 15k | 99.50 | 150 | n/a | n/a | n/a | 320 | 1211 | interrupted |',
      ].join('\n'),
    );
  });

  it('CSV: raw figures, tpmC only where it is tpmC, the device per direction, what decides it, the status and the run id', () => {
    const paced = row('paced', 10, 2, 128, 'run-3', { conditions: { ...CONDITIONS, thinkScale: 1 } });
    // The noise columns follow these (tested with the verdicts).
    const lines = formatComparison([...rows, paced], 'csv').split('\n');
    const fixed = [
      'label,TPS,avg response ms,tpmC,New-Orders/min,p90 ms,p99 ms,device MB/s,device latency ms,' +
        'device read IOPS,device write IOPS,device read MB/s,device write MB/s,device read latency ms,' +
        'device write latency ms,think-scale,mix,New-Orders/min is,status,run',
      '"PX600, 64 GB",12615.66,3.172,,340000,7.51,23.456,55.75,0.875,120,3400,1.5,54.25,0.2,0.9,0,standard,New-Orders/min (unpaced),completed,run-1',
      'HDD | 15k,99.5,150.4,,,320,1210.5,,,,,,,,,0,standard,New-Orders/min (unpaced),interrupted,run-2',
      'paced,10,2,128,128,0,0,,,,,,,,,1,standard,tpmC,completed,run-3',
    ];
    expect(lines.map((l, i) => l.slice(0, fixed[i]!.length + 1))).toEqual(fixed.map((f) => `${f},`));
  });
});

describe('what the New-Order rate is called', () => {
  const at = (thinkScale: number | undefined, nonstandardMix?: boolean): RowConditions => ({
    ...CONDITIONS,
    thinkScale,
    nonstandardMix,
  });
  const headerOf = (rows: CompareRow[], format: 'text' | 'markdown' | 'csv'): string[] =>
    formatComparison(rows, format)
      .split('\n')[0]!
      .split(format === 'text' ? /\s{2,}/ : format === 'csv' ? ',' : / \| |^\| | \|$/)
      .filter(Boolean);

  it('tpmC for a run at think-scale 1 with a standard mix', () => {
    const rows = [row('paced', 1, 1, 128, 'r', { conditions: at(1) })];
    expect(headerOf(rows, 'text')).toContain('tpmC');
    expect(formatComparison(rows, 'text').split('\n')[1]).toMatch(/ 128 /);
  });

  it.each([
    ['think-scale 0', at(0), 'New-Orders/min (unpaced)'],
    ['think-scale 0.25 (paced, at a quarter of the waits)', at(0.25), 'New-Orders/min (paced ×0.25)'],
    ['an unknown think-scale', at(undefined), 'New-Orders/min (pacing not recorded)'],
    ['a non-standard mix at think-scale 1', at(1, true), 'New-Orders/min (non-standard mix)'],
    ['a non-standard mix, unpaced', at(0, true), 'New-Orders/min (unpaced, non-standard mix)'],
  ])('never tpmC for %s', (_, conditions, label) => {
    const rows = [row('x', 1, 1, 53679, 'r', { conditions })];
    for (const format of ['text', 'markdown'] as const) {
      expect(headerOf(rows, format)).not.toContain('tpmC');
      expect(headerOf(rows, format)).toContain(label);
    }
    expect(formatComparison(rows, 'csv').split('\n')[1]).toMatch(/^x,1,1,,53679,/);
    expect(formatComparison(rows, 'csv').split('\n')[1]).toContain(
      `,${label.includes(',') ? `"${label}"` : label},`,
    );
  });

  it('a scaled think time is a column of its own, between tpmC and unpaced, longest waits first', () => {
    const rows = [
      row('unpaced', 900, 1, 53679, 'r1', { conditions: at(0) }),
      row('quarter', 40, 1, 1200, 'r2', { conditions: at(0.25) }),
      row('half', 20, 1, 600, 'r3', { conditions: at(0.5) }),
      row('paced', 2, 1, 128, 'r4', { conditions: at(1) }),
    ];
    expect(headerOf(rows, 'text').slice(5, 9)).toEqual([
      'tpmC',
      'New-Orders/min (paced ×0.5)',
      'New-Orders/min (paced ×0.25)',
      'New-Orders/min (unpaced)',
    ]);
    const quarter = formatComparison(rows, 'markdown')
      .split('\n')
      .find((l) => l.startsWith('| quarter '))!;
    expect(quarter).toMatch(/\| - \| - \| 1,200 \| - \|/);
  });

  it('a table of paced and unpaced rows gives each kind its own column', () => {
    const rows = [
      row('unpaced', 900, 1, 53679, 'r1', { conditions: at(0) }),
      row('paced', 2, 1, 128, 'r2', { conditions: at(1) }),
    ];
    const lines = formatComparison(rows, 'text').split('\n');
    expect(lines).toEqual([
      'label       TPS  avg response ms  device MB/s  device latency ms  tpmC  New-Orders/min (unpaced)  p90 ms  p99 ms  status',
      'unpaced  900.00             1.00          n/a                n/a     -                    53,679    0.00    0.00  completed',
      'paced      2.00             1.00          n/a                n/a   128                         -    0.00    0.00  completed',
    ]);
    expect(formatComparison(rows, 'markdown').split('\n')[0]).toBe(
      '| label | TPS | avg response ms | device MB/s | device latency ms | tpmC | New-Orders/min (unpaced) | p90 ms | p99 ms | status |',
    );
  });

  it('marks a non-standard mix in the status, and says so in the CSV', () => {
    const rows = [row('odd', 1, 1, 100, 'r', { conditions: at(0, true) })];
    expect(formatComparison(rows, 'text').split('\n')[1]).toMatch(/completed, non-standard mix$/);
    expect(formatComparison(rows, 'markdown').split('\n')[2]).toMatch(/\| completed, non-standard mix \|$/);
    expect(formatComparison(rows, 'csv').split('\n')[1]).toMatch(
      /,non-standard,"New-Orders\/min \(unpaced, non-standard mix\)",completed,r,/,
    );
  });

  it("reads each row's conditions from its own report: steps, sweep values and targets", () => {
    const rows = rowsFromRun(
      record('m', 'vm1 + vm2', {
        kind: 'targets',
        config: undefined,
        summary: figures(2),
        targets: [
          { label: 'vm1', summary: figures(1), report: report({ thinkScale: 1 }) },
          { label: 'vm2', summary: figures(1), report: report({ thinkScale: 1, nonstandardMix: true }) },
        ],
      }),
    );
    expect(rows.map((r) => [r.label, r.conditions.thinkScale, r.conditions.nonstandardMix])).toEqual([
      ['vm1', 1, undefined],
      ['vm2', 1, true],
      ['vm1 + vm2 (sum)', 1, true],
    ]);
    expect(rows[2]!.conditions).toMatchObject({ warehouses: 2, terminals: 20, mode: 'client-sql' });
  });
});

describe('status', () => {
  it('each row shows its own status: a step or a target from its report, the sum from the run', () => {
    const rows = rowsFromRun(
      record('s', 'ssd', {
        kind: 'steps',
        status: 'interrupted',
        summary: undefined,
        steps: [
          { users: 1, summary: figures(10), report: report({ terminals: 1 }) },
          { users: 20, summary: figures(150), report: report({ terminals: 20 }, 'interrupted') },
        ],
      }),
    );
    expect(rows.map((r) => [r.label, r.status])).toEqual([
      ['ssd @ 1 user', 'completed'],
      ['ssd @ 20 users', 'interrupted'],
    ]);
  });

  it('ranks completed rows first; interrupted, failed and incomplete-drain ones follow', () => {
    const { rows } = compareRuns(
      [
        record('a', 'fast but cut short', { status: 'interrupted', summary: figures(900) }),
        record('b', 'failed', { status: 'failed', summary: figures(800) }),
        record('c', 'slow', { summary: figures(100) }),
        record('d', 'drain gave up', { status: 'incomplete-drain', summary: figures(850) }),
        record('e', 'medium', { summary: figures(200) }),
      ],
      'tps',
    );
    expect(rows.map((r) => [r.label, r.status])).toEqual([
      ['medium', 'completed'],
      ['slow', 'completed'],
      ['fast but cut short', 'interrupted'],
      ['drain gave up', 'incomplete-drain'],
      ['failed', 'failed'],
    ]);
  });
});

describe('comparability warnings', () => {
  it('none when every condition matches', () => {
    const { warnings } = compareRuns([record('a', 'ssd'), record('b', 'hdd')]);
    expect(warnings).toEqual([]);
  });

  it('one line per differing condition, naming each value and its rows', () => {
    const { warnings } = compareRuns([
      record('a', 'ssd'),
      record('b', 'hdd', {
        config: config({ warehouses: 4, terminals: 40, thinkScale: 1, mode: 'procedures', durationS: 300 }),
      }),
      record('c', 'nvme', { workload: 'oltp', config: config({ deck: [16, 6, 1, 1, 1] }) }),
    ]);
    expect(warnings).toEqual([
      'workload differs between rows: tpcc (hdd, ssd); oltp (nvme); they may not be comparable',
      'warehouses differs between rows: 4 (hdd); 1 (nvme, ssd); they may not be comparable',
      'terminals differs between rows: 40 (hdd); 10 (nvme, ssd); they may not be comparable',
      'think-scale differs between rows: 1 (hdd); 0 (nvme, ssd); they may not be comparable',
      'mode differs between rows: procedures (hdd); client-sql (nvme, ssd); they may not be comparable',
      'window differs between rows: 5m (hdd); 1m (nvme, ssd); they may not be comparable',
      'mix differs between rows: 10/10/1/1/1 (hdd, ssd); 16/6/1/1/1 (nvme); they may not be comparable',
    ]);
    for (const w of warnings) expect(w).not.toContain('\n');
  });

  it('a row whose run.json does not say counts as unknown; long lists are cut short', () => {
    const rows = [
      ...['a', 'b', 'c', 'd', 'e'].map((l) => row(l, 1, 1, 1)),
      row('old', 1, 1, 1, 'r', { conditions: { ...CONDITIONS, terminals: undefined } }),
    ];
    expect(comparabilityWarnings(rows)).toEqual([
      'terminals differs between rows: 10 (a, b, c and 2 more); unknown (old); they may not be comparable',
    ]);
  });
});

describe("another workload's figures", () => {
  const SYSBENCH: RowConditions = { ...CONDITIONS, workload: 'sysbench', warehouses: undefined };
  const qps = (value: number): CompareRow['figures'] => [
    { key: 'qps', label: 'QPS', unit: 'queries/s', value },
    { key: 'readsPerSecond', label: 'reads', unit: 'queries/s', value: value * 0.7 },
  ];

  it('a sysbench table shows QPS and no New-Order rate; the CSV has every figure after its fixed columns', () => {
    const rows = [
      row('a', 300, 3, null, 'r1', { figures: qps(6000), conditions: SYSBENCH }),
      row('b', 200, 5, null, 'r2', { figures: qps(4000), conditions: SYSBENCH }),
    ];
    const text = formatComparison(rows, 'text').split('\n');
    expect(text[0]).toMatch(/^label +TPS +avg response ms +QPS +device MB\/s/);
    expect(text[0]).not.toMatch(/New-Orders|tpmC/);
    expect(text[1]).toMatch(/ 6,000 /);
    const csv = formatComparison(rows, 'csv').split('\n');
    expect(csv[0]).toMatch(/,status,run,.*verdict,QPS \(queries\/s\),reads \(queries\/s\)$/);
    expect(csv[1]).toMatch(/,r1,.*,6000,4200$/);
  });

  it('a table mixing TPC-C and sysbench rows gives each its own columns, "-" where a row has none', () => {
    const rows = [
      row('tpcc', 100, 2, 5000, 'r1', { conditions: { ...CONDITIONS, thinkScale: 0 } }),
      row('sb', 300, 3, null, 'r2', { figures: qps(6000), conditions: SYSBENCH }),
    ];
    const [header, first, second] = formatComparison(rows, 'text').split('\n');
    expect(header).toMatch(/QPS .*New-Orders\/min \(unpaced\)/);
    expect(first).toMatch(/^tpcc .* - .* 5,000 /);
    expect(second).toMatch(/^sb .* 6,000 .* - /);
  });
});

describe('verdicts around the table', () => {
  it('none for runs that carry no intervals (recorded before ci95): no table of n/a', () => {
    const rows = [row('a', 100, 5, 1000), row('b', 90, 6, 900)];
    expect(formatVerdicts(rows, 'text')).toEqual({ over: undefined, under: undefined });
  });

  it('a table once one run carries them, the others n/a', () => {
    const rows = [
      row('a', 100, 5, 1000, 'r1', { noise: { tps: 4, tpmC: 40, avgMs: 0.5, p99Ms: 2 } }),
      row('b', 90, 6, 900),
    ];
    const { under } = formatVerdicts(rows, 'text');
    expect(under).toMatch(/^Difference from the first row \(a\)/);
    expect(under).toMatch(/n\/a/);
  });
});

import { describe, expect, it } from 'vitest';
import { formatComparison } from '../../src/report/compare.js';
import { compareRuns, rowsFromRun } from '../../src/report/compare-rows.js';
import { deviceTotals, distinctDevices } from '../../src/report/device-totals.js';
import { formatRunSummary, formatTargetsTable } from '../../src/report/run-summary.js';
import { formatScaling, formatStepsTable } from '../../src/report/scaling.js';
import { formatStorage } from '../../src/report/storage.js';
import type { RunRecord } from '../../src/results/store.js';
import type { AggregateSummary } from '../../src/results/targets-file.js';
import type { RunReport } from '../../src/results/run-file.js';
import { device, HOST, runJson, stepsJson, sweepJson, targetsJson, type FixtureRun } from './run-fixtures.js';

const LOCAL = { source: 'local /proc', notes: [] };

describe('deviceTotals: one row, all its disks', () => {
  it('no figures, or no disk: n/a', () => {
    expect(deviceTotals(undefined)).toBeNull();
    expect(deviceTotals([])).toBeNull();
  });

  it('one disk: its own figures, MB/s read + write, latency weighted by reads and writes', () => {
    const t = deviceTotals([
      device('vda', 'data+log', {
        readIops: 100,
        writeIops: 300,
        readMBps: 2,
        writeMBps: 10,
        readLatencyMs: 0.5,
        writeLatencyMs: 2,
      }),
    ]);
    expect(t).toEqual({
      readIops: 100,
      writeIops: 300,
      readMBps: 2,
      writeMBps: 10,
      mbps: 12,
      readLatencyMs: 0.5,
      writeLatencyMs: 2,
      // (100 × 0.5 + 300 × 2) / 400: not the plain mean of 0.5 and 2.
      latencyMs: 1.625,
    });
  });

  it('data and log on two disks: MB/s summed, latency per I/O over both (the busy disk weighs more)', () => {
    const t = deviceTotals([
      device('nvme0n1', 'data', {
        readIops: 900,
        writeIops: 100,
        readMBps: 30,
        writeMBps: 5,
        readLatencyMs: 0.2,
        writeLatencyMs: 0.4,
      }),
      device('sdb', 'log', {
        readIops: 0,
        writeIops: 1000,
        readMBps: 0,
        writeMBps: 8,
        readLatencyMs: null,
        writeLatencyMs: 3,
      }),
    ]);
    expect(t!.mbps).toBeCloseTo(43, 10);
    expect(t!.readIops).toBe(900);
    expect(t!.writeIops).toBe(1100);
    expect(t!.readLatencyMs).toBeCloseTo(0.2, 10);
    // (100 × 0.4 + 1000 × 3) / 1100
    expect(t!.writeLatencyMs).toBeCloseTo(3040 / 1100, 10);
    // (900 × 0.2 + 100 × 0.4 + 1000 × 3) / 2000
    expect(t!.latencyMs).toBeCloseTo(3220 / 2000, 10);
  });

  it('disks that did nothing: zero MB/s, latency n/a rather than 0', () => {
    const idle = {
      readIops: 0,
      writeIops: 0,
      readMBps: 0,
      writeMBps: 0,
      readLatencyMs: null,
      writeLatencyMs: null,
    };
    expect(deviceTotals([device('vda', 'data', idle)])).toMatchObject({
      mbps: 0,
      readLatencyMs: null,
      writeLatencyMs: null,
      latencyMs: null,
    });
  });

  it('distinctDevices: a disk two local targets share is counted once; same name on two hosts twice', () => {
    const vda = device('vda', 'data');
    const a = { devices: [vda], monitor: LOCAL };
    const b = { devices: [device('vda', 'data'), device('vdb', 'log')], monitor: LOCAL };
    expect(distinctDevices([a, b])?.map((d) => d.name)).toEqual(['vda', 'vdb']);
    const db1 = { devices: [vda], monitor: { source: 'node_exporter http://db1:9100' } };
    const db2 = { devices: [vda], monitor: { source: 'node_exporter http://db2:9100' } };
    expect(distinctDevices([db1, db2])).toHaveLength(2);
    expect(distinctDevices([a, { devices: undefined }])).toBeUndefined();
  });
});

describe('the storage lines of the run summary', () => {
  it('one line per disk, every figure with its unit', () => {
    expect(formatStorage({ devices: [device('vda', 'data+log')], monitor: LOCAL })).toEqual([
      'storage vda (data+log): read 12 IOPS 0.40 MB/s, write 850 IOPS 14.2 MB/s, latency avg r 0.41 / w 1.20 ms, ' +
        'p99 r 0.90 / w 3.10 ms, max 4.00 ms, queue 1.3, busy 62%',
      'monitored through local /proc',
    ]);
  });

  it('the per-second tail: a p99 with the seconds it rests on, or the slowest second named max', () => {
    const [line] = formatStorage({
      devices: [
        device('vda', 'data+log', {
          readLatencyMsP99: 0.9,
          readLatencyMsMax: 2.5,
          readLatencySeconds: 600,
          writeLatencyMsP99: null,
          writeLatencyMsMax: 3.1,
          writeLatencySeconds: 45,
        }),
      ],
    });
    expect(line).toContain(
      'latency avg r 0.41 / w 1.20 ms, per second r p99 0.90 ms of 600 s / w max 3.10 ms of 45 s (too few for a p99), max 4.00 ms',
    );
    expect(line).not.toMatch(/p99 3\.10/);
  });

  it('a stacked device: its line, then its members beneath as detail', () => {
    const legs = ['sda1', 'sdb1'].map((name) => device(name, 'data+log', { readIops: 12, writeIops: 850 }));
    const lines = formatStorage({ devices: [device('md0', 'data+log', { members: legs })] });
    expect(lines[0]).toMatch(/^storage md0 \(data\+log\): read 12 IOPS/);
    expect(lines.slice(1)).toEqual([
      '  member sda1: read 12 IOPS 0.40 MB/s, write 850 IOPS 14.2 MB/s, latency avg r 0.41 / w 1.20 ms, busy 62%',
      '  member sdb1: read 12 IOPS 0.40 MB/s, write 850 IOPS 14.2 MB/s, latency avg r 0.41 / w 1.20 ms, busy 62%',
    ]);
    expect(deviceTotals([device('md0', 'data+log', { members: legs })])!.writeIops).toBe(850);
  });

  it('a disk without reads says n/a for their latency, not 0', () => {
    const [line] = formatStorage({
      devices: [device('sdb', 'log', { readIops: 0, readLatencyMs: null, readLatencyMsP99: null })],
    });
    expect(line).toContain('read 0.0 IOPS');
    expect(line).toContain('latency avg r n/a / w 1.20 ms, p99 r n/a / w 3.10 ms');
  });

  it('the host line: CPU by kind, memory, and txbench’s own CPU (n/a for another host)', () => {
    const lines = formatStorage({ devices: [device('vda', 'data')], host: HOST, monitor: LOCAL });
    expect(lines[1]).toBe(
      'host: CPU user 35.2%, system 8.1%, iowait 4.0%, steal 0.0%; memory used 2,345 MB, page cache 5,678 MB; txbench CPU 12.5% of a core',
    );
    const remote = formatStorage({
      devices: [device('vda', 'data')],
      host: { ...HOST, txbenchCpuPct: null },
    });
    expect(remote[1]).toMatch(/; txbench CPU n\/a \(another host\)$/);
  });

  it('n/a with the reason: not monitored (monitoring off, an older run), or monitoring’s own note', () => {
    expect(formatStorage({})).toEqual(['storage: n/a (not monitored)']);
    expect(
      formatStorage({
        devices: [],
        monitor: { source: 'local /proc', notes: ['/d is on tmpfs: no block device'] },
      }),
    ).toEqual(['storage: n/a (/d is on tmpfs: no block device)']);
  });

  it('notes beside figures: where they came from and what was chosen', () => {
    const lines = formatStorage({
      devices: [device('nvme0n1', 'data+log')],
      monitor: {
        source: 'node_exporter http://db1:9100',
        notes: ['no --device: watching the busiest disk, nvme0n1'],
      },
    });
    expect(lines.at(-1)).toBe(
      'monitored through node_exporter http://db1:9100: no --device: watching the busiest disk, nvme0n1',
    );
  });

  it('the run summary ends with them', () => {
    const report = runJson({
      devices: [device('vda', 'data'), device('vdb', 'log')],
      host: HOST,
      monitor: LOCAL,
    });
    const lines = formatRunSummary(report as unknown as RunReport).split('\n');
    expect(lines.slice(-4).map((l) => l.trim().split(':')[0])).toEqual([
      'storage vda (data)',
      'storage vdb (log)',
      'host',
      'monitored through local /proc',
    ]);
    expect(
      formatRunSummary(runJson() as unknown as RunReport)
        .split('\n')
        .at(-1),
    ).toBe('  storage: n/a (not monitored)');
  });

  it('several targets: each target’s disks, labelled', () => {
    const reports = [
      runJson({ target: 'vm1', devices: [device('vda', 'data')], monitor: LOCAL }),
      runJson({ target: 'vm2' }),
    ] as unknown as RunReport[];
    const sum = { ...reports[0]!.summary, targets: 2, spread: { minTps: 1, maxTps: 1, maxOverMin: 1 } };
    const text = formatTargetsTable(reports, sum as unknown as AggregateSummary);
    expect(text).toMatch(/^vm1: storage vda \(data\): read 12 IOPS/m);
    expect(text).toMatch(/^vm2: storage: n\/a \(not monitored\)$/m);
  });
});

describe('steps and sweep tables: device MB/s and latency', () => {
  const row = (label: string, f: FixtureRun) => {
    const r = runJson(f) as unknown as RunReport;
    return { label, summary: r.summary, config: r.config };
  };

  it('the memory sweep reads setting | TPS | avg response ms | device MB/s | device latency ms', () => {
    const table = formatScaling('shared_buffers', [
      row('8GB', {
        tps: 900,
        avg: 12,
        devices: [
          device('vda', 'data+log', { readMBps: 780, writeMBps: 20.5, readIops: 9000, writeIops: 1000 }),
        ],
      }),
      row('128GB', {
        tps: 1500,
        avg: 6,
        devices: [device('vda', 'data+log', { readMBps: 40, writeMBps: 20, readIops: 500, writeIops: 1500 })],
      }),
    ]);
    const cells = table.split('\n').map((l) => l.split(/\s{2,}/));
    expect(cells[0]!.slice(0, 5)).toEqual([
      'shared_buffers',
      'TPS',
      'avg response ms',
      'device MB/s',
      'device latency ms',
    ]);
    // 780 + 20.5 MB/s; (9000 × 0.41 + 1000 × 1.2) / 10000 ms.
    expect(cells[1]!.slice(0, 5)).toEqual(['8GB', '900.00', '12.0', '801', '0.49']);
    expect(cells[2]!.slice(0, 5)).toEqual(['128GB', '1,500.00', '6.00', '60.0', '1.00']);
  });

  it('a step without device figures shows n/a', () => {
    const steps = stepsJson('ssd', [
      { terminals: 1 },
      { terminals: 20, devices: [device('vda', 'data')] },
    ]) as {
      steps: { users: number; summary: RunReport['summary']; report: RunReport }[];
    };
    const lines = formatStepsTable(steps.steps, undefined).split('\n');
    expect(lines[1]!.split(/\s{2,}/).slice(3, 5)).toEqual(['n/a', 'n/a']);
    expect(lines[2]!.split(/\s{2,}/).slice(3, 5)).toEqual(['14.6', '1.19']);
  });
});

describe('compare: device columns per row', () => {
  function record(json: Record<string, unknown>, id = 'r'): RunRecord {
    return {
      path: `/r/${id}`,
      file: `/r/${id}/run.json`,
      id,
      schemaVersion: 3,
      kind: json.kind as RunRecord['kind'],
      startedAt: '2024-05-01T12:00:00.000Z',
      status: 'completed',
      workload: 'tpcc',
      config: json.config as RunRecord['config'],
      label: (json.config as { target: string }).target,
      tags: [],
      summary: json.summary as RunRecord['summary'],
      targets: json.targets as RunRecord['targets'],
      steps: json.steps as RunRecord['steps'],
      sweep: json.sweep as RunRecord['sweep'],
    };
  }

  it('a sweep row carries its disks’ totals; text shows MB/s and latency, CSV the raw directions', () => {
    const sweep = sweepJson('pg', 'shared_buffers', [
      ['8GB', { devices: [device('vda', 'data'), device('vdb', 'log')] }],
      ['128GB', {}],
    ]);
    const rows = compareRuns([record(sweep)]).rows;
    expect(rows.map((r) => [r.label, r.device?.mbps])).toEqual([
      ['pg @ shared_buffers=8GB', 2 * (0.4 + 14.2)],
      ['pg @ shared_buffers=128GB', undefined],
    ]);
    const text = formatComparison(rows, 'text').split('\n');
    expect(text[0]).toMatch(/^label\s+TPS\s+avg response ms\s+device MB\/s\s+device latency ms\s/);
    expect(text[1]).toMatch(/^pg @ shared_buffers=8GB\s+100\.00\s+5\.00\s+29\.2\s+1\.19\s/);
    expect(text[2]).toMatch(/^pg @ shared_buffers=128GB\s+100\.00\s+5\.00\s+n\/a\s+n\/a\s/);
    const csv = formatComparison(rows, 'csv').split('\n');
    const header = csv[0]!.split(',');
    const first = Object.fromEntries(header.map((h, i) => [h, csv[1]!.split(',')[i]]));
    expect(first).toMatchObject({
      'device read IOPS': '24',
      'device write IOPS': '1700',
      'device read MB/s': '0.8',
      'device write MB/s': '28.4',
      'device read latency ms': '0.41',
      'device write latency ms': '1.2',
    });
    const second = Object.fromEntries(header.map((h, i) => [h, csv[2]!.split(',')[i]]));
    expect(second['device MB/s']).toBe('');
    expect(second['device write latency ms']).toBe('');
  });

  it('several targets on one machine sharing a disk: the sum row counts it once', () => {
    const shared = { devices: [device('vda', 'data+log')], monitor: LOCAL };
    const json = targetsJson([
      { target: 'a', ...shared },
      { target: 'b', ...shared },
    ]);
    const rows = rowsFromRun(record(json));
    expect(rows.map((r) => [r.label, r.device?.writeIops])).toEqual([
      ['a', 850],
      ['b', 850],
      ['a + b (sum)', 850],
    ]);
  });

  it('several hosts, each its own disk: the sum row adds them; one host unmonitored makes it n/a', () => {
    const on = (host: string): FixtureRun => ({
      devices: [device('nvme0n1', 'data+log')],
      monitor: { source: `node_exporter http://${host}:9100`, notes: [] },
    });
    const both = rowsFromRun(
      record(
        targetsJson([
          { target: 'db1', ...on('db1') },
          { target: 'db2', ...on('db2') },
        ]),
      ),
    );
    expect(both.at(-1)!.device?.writeIops).toBe(1700);
    const one = rowsFromRun(record(targetsJson([{ target: 'db1', ...on('db1') }, { target: 'db2' }])));
    expect(one.at(-1)!.device).toBeNull();
  });
});

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repeatMeasurements } from '../../src/run/repeat.js';
import { REPEAT_FILE } from '../../src/results/repeat-file.js';
import { repeatSchemaCheck } from '../../src/results/repeat-schema.js';
import {
  aggregateRepetitions,
  figureValuesOf,
  repeatedFigure,
  type MeasuredEntry,
} from '../../src/run/repeat-aggregate.js';
import { optionsOfRecord } from '../../src/run/reload.js';
import { formatRepeat, meanPlusMinus } from '../../src/report/repeat-table.js';
import type { RepeatFile } from '../../src/results/repeat-file.js';
import { tQuantile975 } from '../../src/metrics/confidence.js';
import { findWorkload } from '../../src/workloads/registry.js';

const repeatCheck = repeatSchemaCheck();
const repeatSchemaErrors = (value: unknown): string[] => repeatCheck.errors(value);

function entry(label: string, tps: number, avg: number, users?: number): MeasuredEntry {
  return {
    label,
    ...(users === undefined ? {} : { users }),
    figures: {
      summary: {
        tps,
        responseMs: { avg, p99: avg * 4 },
        figures: [
          { key: 'tpmC', label: 'tpmC', unit: 'New-Orders/min', value: tps * 27, pacedSpec: true },
          { key: 'tps', label: 'TPS', unit: 'transactions/s', value: tps },
        ],
      },
      transactions: { newOrder: { name: 'New-Order', responseMs: { avg: avg + 1, p99: avg * 5 } } },
    },
  };
}

describe('aggregateRepetitions', () => {
  it('takes each figure over the repetitions: mean, Student t interval, range and each value', () => {
    const [group] = aggregateRepetitions([
      [entry('pg', 100, 10)],
      [entry('pg', 110, 12)],
      [entry('pg', 120, 14)],
    ]);
    const tps = group!.figures.find((f) => f.key === 'tps')!;
    expect(tps.mean).toBe(110);
    // sd 10 over 3 values: t(0.975, 2) * 10 / sqrt(3)
    expect(tps.halfWidth).toBeCloseTo((tQuantile975(2) * 10) / Math.sqrt(3), 9);
    expect([tps.min, tps.max, tps.values]).toEqual([100, 120, [100, 110, 120]]);
    expect(group!.figures.map((f) => f.key)).toEqual([
      'tps',
      'figure:tpmC',
      'avgMs',
      'p99Ms',
      'type:newOrder:avgMs',
      'type:newOrder:p99Ms',
    ]);
    expect(group!.figures.find((f) => f.key === 'type:newOrder:avgMs')!.label).toBe('New-Order avg ms');
  });

  it('has no interval for one repetition', () => {
    const [group] = aggregateRepetitions([[entry('pg', 100, 10)]]);
    expect(group!.figures[0]!.halfWidth).toBeNull();
  });

  it('groups steps by label in first-seen order and leaves a missing step out of its mean', () => {
    const groups = aggregateRepetitions([
      [entry('1 users', 10, 1, 1), entry('5 users', 40, 2, 5)],
      [entry('1 users', 12, 1, 1)],
    ]);
    expect(groups.map((g) => [g.label, g.users])).toEqual([
      ['1 users', 1],
      ['5 users', 5],
    ]);
    const five = groups[1]!.figures.find((f) => f.key === 'tps')!;
    expect(five.values).toEqual([40, null]);
    expect([five.mean, five.halfWidth]).toEqual([40, null]);
  });

  it('leaves out a figure no repetition measured', () => {
    expect(repeatedFigure({ key: 'k', label: 'k', unit: 'u' }, [null, null])).toBeUndefined();
    const m = entry('pg', 1, 1).figures;
    const noRate = {
      ...m,
      summary: { ...m.summary, figures: [{ key: 'tpmC', label: 'tpmC', unit: 'x', value: null }] },
    };
    expect(
      aggregateRepetitions([[{ label: 'pg', figures: noRate }]])[0]!.figures.map((f) => f.key),
    ).not.toContain('figure:tpmC');
    expect(figureValuesOf(m).filter((f) => f.label === 'TPS')).toHaveLength(1);
  });
});

describe('formatRepeat', () => {
  const groups = aggregateRepetitions([[entry('pg', 1600, 10)], [entry('pg', 1680, 12)]]);
  const file: RepeatFile = {
    schemaVersion: 1,
    kind: 'repeat',
    of: 'run',
    status: 'completed',
    startedAt: '',
    endedAt: '',
    requested: 3,
    reload: false,
    config: { thinkScale: 0 },
    repetitions: [
      { index: 1, dir: 'rep-1', status: 'completed' },
      { index: 2, dir: 'rep-2', status: 'completed' },
    ],
    groups,
  };

  it('prints one table: figure | mean ± CI | min … max | each repetition, naming the rate as the conditions allow', () => {
    expect(repeatSchemaErrors(file)).toEqual([]);
    const text = formatRepeat(file);
    expect(text).toContain('over 2 repetitions of the 3 asked for');
    expect(text).toMatch(/figure\s+mean ± 95% CI\s+min … max\s+rep 1\s+rep 2/);
    expect(text).toMatch(/TPS\s+1,640 ± 508\s+1,600 … 1,680\s+1,600\s+1,680/);
    expect(text).toContain('New-Orders/min (unpaced)');
    expect(text).not.toContain('tpmC');
  });

  it('prints the steps table with mean ± CI per step', () => {
    const steps = aggregateRepetitions([
      [entry('1 users', 10, 1, 1), entry('5 users', 40, 2, 5)],
      [entry('1 users', 12, 1, 1), entry('5 users', 44, 2, 5)],
    ]);
    const text = formatRepeat({ ...file, of: 'steps', groups: steps });
    expect(text).toMatch(/^users\s+TPS \(± 95% CI\)/m);
    expect(text).toMatch(/^5\s+42 ± 25/m);
  });

  it('rounds the mean to the interval’s two significant digits', () => {
    expect(meanPlusMinus({ mean: 155.43, halfWidth: 8.58, unit: 'transactions/s' })).toBe('155.4 ± 8.6');
    expect(meanPlusMinus({ mean: 3995, halfWidth: 432, unit: 'New-Orders/min' })).toBe('3,995 ± 432');
    expect(meanPlusMinus({ mean: 90.31, halfWidth: null, unit: 'ms' })).toBe('90.3');
  });
});

describe('optionsOfRecord', () => {
  it('gives back the options that plan the recorded population with its seed', async () => {
    const tpcc = await findWorkload('tpcc');
    const record = tpcc.loader.plan({ warehouses: 3 }, 42);
    const options = optionsOfRecord(tpcc, JSON.parse(JSON.stringify(record)), 42);
    expect(options?.warehouses).toBe(3);
  });

  it('refuses a record the options cannot give again (another seed)', async () => {
    const tpcc = await findWorkload('tpcc');
    const record = tpcc.loader.plan({ warehouses: 3 }, 42);
    expect(optionsOfRecord(tpcc, record, 43)).toBeUndefined();
  });
});

describe('repeatMeasurements', () => {
  it('keeps each repetition in rep-N and writes repeat.json, schema-valid; one that throws ends the series, the ones before it kept', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'txbench-repeat-'));
    try {
      const seen: string[] = [];
      const result = await repeatMeasurements(
        { of: 'run', count: 3, resultsDir: parent },
        async (dir, index) => {
          seen.push(path.basename(dir.dir));
          if (index === 2) throw new Error('database lost');
          const report = { ...entry('pg', 100, 10).figures, status: 'completed', workload: 'tpcc' };
          return { reports: [], entries: [{ label: 'pg', figures: report }], status: 'completed' };
        },
      );
      expect(seen).toEqual(['rep-1', 'rep-2']);
      expect((result.error as Error).message).toBe('database lost');
      const file = JSON.parse(await readFile(path.join(result.dir, REPEAT_FILE), 'utf8')) as RepeatFile;
      expect(repeatSchemaErrors(file)).toEqual([]);
      expect([file.status, file.requested, file.repetitions.map((r) => r.dir)]).toEqual([
        'failed',
        3,
        ['rep-1'],
      ]);
      expect(file.groups[0]!.figures[0]!.values).toEqual([100]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('stops after a repetition that did not complete', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'txbench-repeat-'));
    try {
      let runs = 0;
      const result = await repeatMeasurements({ of: 'run', count: 3, resultsDir: parent }, async () => {
        runs++;
        return { reports: [], entries: [entry('pg', 100, 10)], status: 'interrupted' };
      });
      expect([runs, result.file.status, result.error]).toEqual([1, 'interrupted', undefined]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });
});

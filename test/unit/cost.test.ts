import { describe, expect, it } from 'vitest';
import type { CompareRow } from '../../src/report/compare-rows.js';
import {
  costRows,
  formatCostTable,
  parseCosts,
  usableCapacityGB,
  type CostEntry,
} from '../../src/report/cost.js';
import { ExitCode, UsageError } from '../../src/errors.js';

function row(label: string, tps: number, costLabels = [label], run = `run-${label}`): CompareRow {
  return {
    label,
    costLabels,
    run,
    status: 'completed',
    conditions: {},
    tps,
    tpmC: null,
    figures: [],
    avgMs: 1,
    p90Ms: 2,
    p99Ms: 3,
    device: null,
    noise: { tps: null, tpmC: null, avgMs: null, p99Ms: null },
  };
}

function entry(e: Partial<CostEntry> & Pick<CostEntry, 'protection'>): CostEntry {
  return { label: 'x', drivePrice: 100, drives: 4, driveGB: 1000, ...e };
}

function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(ExitCode.usage);
    expect((err as UsageError).message).not.toContain('\n');
    return err as UsageError;
  }
  throw new Error('expected a UsageError, but nothing was thrown');
}

describe('usable capacity per protection', () => {
  it.each([
    ['raid1', 2, 1000],
    ['raid1', 4, 2000],
    ['raid10', 4, 2000],
    ['raid10', 8, 4000],
    ['raid5', 3, 2000],
    ['raid5', 5, 4000],
    ['raid6', 4, 2000],
    ['raid6', 6, 4000],
    [0.75, 4, 3000],
    [1, 3, 3000],
  ] as const)('%s over %i drives of 1000 GB: %d GB usable', (protection, drives, usable) => {
    expect(usableCapacityGB(entry({ protection, drives, driveGB: 1000 }))).toBe(usable);
  });
});

describe('cost arithmetic, worked by hand', () => {
  it('raid10: 4 drives at 1200, 1000 GB each, 2400 TPS', () => {
    // total 4 x 1200 = 4800; raw 4 x 1000 = 4000; usable 4000 / 2 = 2000;
    // 4800 / 2400 = 2 per TPS; 4800 / 4000 = 1.2 per raw GB; 4800 / 2000 = 2.4 per usable GB;
    // 2.4 / 2400 = 0.001 per usable GB per TPS.
    const costs = new Map([
      ['a', entry({ label: 'a', drivePrice: 1200, drives: 4, driveGB: 1000, protection: 'raid10' })],
    ]);
    const [r] = costRows([row('a', 2400)], costs).rows;
    expect(r).toMatchObject({
      drives: 4,
      protection: 'raid10',
      totalCost: 4800,
      rawGB: 4000,
      usableGB: 2000,
    });
    expect(r!.costPerTps).toBeCloseTo(2, 12);
    expect(r!.costPerRawGB).toBeCloseTo(1.2, 12);
    expect(r!.costPerUsableGB).toBeCloseTo(2.4, 12);
    expect(r!.costPerUsableGBPerTps).toBeCloseTo(0.001, 15);
  });

  it('raid6: 6 drives at 250, 600 GB each, 500 TPS', () => {
    // total 1500; raw 3600; usable 600 x (6 - 2) = 2400; 1500 / 500 = 3; 1500 / 3600 = 0.41666…;
    // 1500 / 2400 = 0.625; 0.625 / 500 = 0.00125.
    const costs = new Map([
      ['b', entry({ label: 'b', drivePrice: 250, drives: 6, driveGB: 600, protection: 'raid6' })],
    ]);
    const [r] = costRows([row('b', 500)], costs).rows;
    expect(r).toMatchObject({
      totalCost: 1500,
      rawGB: 3600,
      usableGB: 2400,
      costPerTps: 3,
      costPerUsableGB: 0.625,
    });
    expect(r!.costPerRawGB).toBeCloseTo(5 / 12, 12);
    expect(r!.costPerUsableGBPerTps).toBeCloseTo(0.00125, 15);
  });

  it('raid5: 3 drives at 3000, 3840 GB each, 7500 TPS', () => {
    // total 9000; raw 11520; usable 3840 x 2 = 7680; 9000 / 7500 = 1.2; 9000 / 11520 = 0.78125;
    // 9000 / 7680 = 1.171875; 1.171875 / 7500 = 0.00015625.
    const costs = new Map([
      ['c', entry({ label: 'c', drivePrice: 3000, drives: 3, driveGB: 3840, protection: 'raid5' })],
    ]);
    const [r] = costRows([row('c', 7500)], costs).rows;
    expect(r).toMatchObject({
      totalCost: 9000,
      rawGB: 11520,
      usableGB: 7680,
      costPerRawGB: 0.78125,
      costPerUsableGB: 1.171875,
    });
    expect(r!.costPerTps).toBeCloseTo(1.2, 12);
    expect(r!.costPerUsableGBPerTps).toBeCloseTo(0.00015625, 15);
  });

  it('raid1: 2 drives at 80, 500 GB each, 200 TPS', () => {
    // total 160; raw 1000; usable 500; 0.8 per TPS; 0.16 per raw GB; 0.32 per usable GB; 0.0016.
    const costs = new Map([
      ['d', entry({ label: 'd', drivePrice: 80, drives: 2, driveGB: 500, protection: 'raid1' })],
    ]);
    const [r] = costRows([row('d', 200)], costs).rows;
    expect(r).toMatchObject({
      totalCost: 160,
      rawGB: 1000,
      usableGB: 500,
      costPerTps: 0.8,
      costPerRawGB: 0.16,
    });
    expect(r!.costPerUsableGB).toBeCloseTo(0.32, 12);
    expect(r!.costPerUsableGBPerTps).toBeCloseTo(0.0016, 15);
  });

  it('a usable fraction: 1 drive at 500, 2000 GB, fraction 0.9, 1000 TPS', () => {
    // total 500; raw 2000; usable 1800; 0.5 per TPS; 0.25 per raw GB; 0.2777… per usable GB.
    const costs = new Map([
      ['e', entry({ label: 'e', drivePrice: 500, drives: 1, driveGB: 2000, protection: 0.9 })],
    ]);
    const [r] = costRows([row('e', 1000)], costs).rows;
    expect(r).toMatchObject({
      protection: '0.9',
      totalCost: 500,
      rawGB: 2000,
      costPerTps: 0.5,
      costPerRawGB: 0.25,
    });
    expect(r!.usableGB).toBeCloseTo(1800, 9);
    expect(r!.costPerUsableGB).toBeCloseTo(500 / 1800, 12);
    expect(r!.costPerUsableGBPerTps).toBeCloseTo(500 / 1800 / 1000, 15);
  });

  it('zero TPS leaves the per-TPS ratios undefined (n/a), the capacity ratios stand', () => {
    const costs = new Map([
      ['z', entry({ label: 'z', drivePrice: 100, drives: 2, driveGB: 100, protection: 'raid1' })],
    ]);
    const [r] = costRows([row('z', 0)], costs).rows;
    // total 200; raw 200; usable 100: 1 per raw GB, 2 per usable GB.
    expect(r).toMatchObject({
      costPerTps: null,
      costPerUsableGBPerTps: null,
      costPerRawGB: 1,
      costPerUsableGB: 2,
    });
    expect(formatCostTable([r!], 'text').split('\n')[1]).toMatch(/n\/a\s+1\.00\s+2\.00\s+n\/a$/);
  });

  it('free drives cost nothing per anything', () => {
    const costs = new Map([['f', entry({ label: 'f', drivePrice: 0, protection: 'raid10' })]]);
    const [r] = costRows([row('f', 10)], costs).rows;
    expect(r).toMatchObject({
      totalCost: 0,
      costPerTps: 0,
      costPerRawGB: 0,
      costPerUsableGB: 0,
      costPerUsableGBPerTps: 0,
    });
  });

  it('a sum over targets adds their drives, costs and capacities', () => {
    // vm1: 2 x 100, 1000 GB, raid1 -> 200, raw 2000, usable 1000.
    // vm2: 4 x 50, 500 GB, raid5 -> 200, raw 2000, usable 1500.
    // sum: 400, raw 4000, usable 2500, 6 drives; at 800 TPS: 0.5 per TPS, 0.1 per raw GB,
    // 0.16 per usable GB, 0.0002 per usable GB per TPS.
    const costs = new Map([
      ['vm1', entry({ label: 'vm1', drivePrice: 100, drives: 2, driveGB: 1000, protection: 'raid1' })],
      ['vm2', entry({ label: 'vm2', drivePrice: 50, drives: 4, driveGB: 500, protection: 'raid5' })],
    ]);
    const { rows, notes } = costRows([row('vm1 + vm2 (sum)', 800, ['vm1', 'vm2'])], costs);
    expect(notes).toEqual([]);
    expect(rows[0]).toMatchObject({
      drives: 6,
      protection: 'mixed',
      totalCost: 400,
      rawGB: 4000,
      usableGB: 2500,
    });
    expect(rows[0]!.costPerTps).toBeCloseTo(0.5, 12);
    expect(rows[0]!.costPerRawGB).toBeCloseTo(0.1, 12);
    expect(rows[0]!.costPerUsableGB).toBeCloseTo(0.16, 12);
    expect(rows[0]!.costPerUsableGBPerTps).toBeCloseTo(0.0002, 15);
  });
});

describe('matching rows and cost entries', () => {
  const costs = new Map([
    ['a', entry({ label: 'a', protection: 'raid10' })],
    ['spare', entry({ label: 'spare', protection: 'raid10' })],
  ]);

  it('keeps the rows order, notes rows without an entry and entries without a row', () => {
    const { rows, notes } = costRows(
      [row('b', 5, ['b'], 'run-2'), row('a', 10), row('b', 7, ['b'], 'run-3')],
      costs,
    );
    expect(rows.map((r) => r.label)).toEqual(['a']);
    expect(notes).toEqual(['no cost entry for "b" (run run-2, run-3)', 'cost entry "spare" matches no run']);
  });

  it('one costs file for several plans: no note for entries of other runs while every run has its entry', () => {
    const { rows, notes } = costRows([row('a', 10)], costs);
    expect(rows.map((r) => r.label)).toEqual(['a']);
    expect(notes).toEqual([]);
  });

  it('leaves out a sum whose targets are not all costed', () => {
    const { rows, notes } = costRows([row('a + b (sum)', 5, ['a', 'b'])], costs);
    expect(rows).toEqual([]);
    expect(notes).toContain('no cost entry for "b" (run run-a + b (sum))');
  });
});

describe('the costs file', () => {
  const good = `
"PX600, 64 GB":
  drivePrice: 1200
  drives: 4
  driveGB: 1000
  protection: raid10
hdd:
  drivePrice: 250.5
  drives: 6
  driveGB: 600
  protection: RAID 6
ssd:
  drivePrice: 0
  drives: 1
  driveGB: 960
  protection: 0.5
`;

  it('reads one entry per label; RAID levels in any case, with spaces or dashes', () => {
    const costs = parseCosts(good, 'costs.yaml');
    expect([...costs.keys()]).toEqual(['PX600, 64 GB', 'hdd', 'ssd']);
    expect(costs.get('PX600, 64 GB')).toEqual({
      label: 'PX600, 64 GB',
      drivePrice: 1200,
      drives: 4,
      driveGB: 1000,
      protection: 'raid10',
    });
    expect(costs.get('hdd')?.protection).toBe('raid6');
    expect(costs.get('ssd')?.protection).toBe(0.5);
  });

  const base = (fields: string): string =>
    `dev:\n${fields
      .trim()
      .split('\n')
      .map((l) => `  ${l.trim()}`)
      .join('\n')}\n`;
  const ok = { drivePrice: '100', drives: '4', driveGB: '1000', protection: 'raid10' };
  const withField = (field: string, value: string | undefined): string =>
    base(
      Object.entries({ ...ok, [field]: value })
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
    );

  it.each([
    ['a: [1, 2', /^costs\.yaml: not valid YAML: .* at line 1, column 9$/],
    ['a: 1\na: 2', /^costs\.yaml: not valid YAML: .*unique/i],
    ['', /^costs\.yaml: expected one entry per label/],
    ['- a\n- b', /^costs\.yaml: expected one entry per label/],
    ['just text', /^costs\.yaml: expected one entry per label/],
    ['dev: 5', /^costs\.yaml: "dev" must be a mapping of drivePrice, drives, driveGB, protection$/],
    [
      withField('price', '100'),
      /^costs\.yaml: "dev": price is not a cost field; use drivePrice, drives, driveGB, protection$/,
    ],
    [withField('drives', undefined), /^costs\.yaml: "dev": drives is missing$/],
    [withField('drivePrice', '-1'), /"dev": drivePrice must be a price >= 0, not -1$/],
    [withField('drivePrice', '"1200"'), /"dev": drivePrice must be a price >= 0, not "1200"$/],
    [withField('drivePrice', '.nan'), /"dev": drivePrice must be a price >= 0, not NaN$/],
    [withField('drivePrice', '[1]'), /"dev": drivePrice must be a price >= 0, not \[1\]$/],
    [withField('drives', '0'), /"dev": drives must be a whole number >= 1, not 0$/],
    [withField('drives', '2.5'), /"dev": drives must be a whole number >= 1, not 2\.5$/],
    [withField('drives', ''), /"dev": drives must be a whole number >= 1, not empty$/],
    [withField('driveGB', '0'), /"dev": driveGB must be a capacity in GB > 0, not 0$/],
    [
      withField('protection', 'raid7'),
      /"dev": protection must be raid1, raid10, raid5, raid6 or a usable fraction such as 0\.5, not "raid7"$/,
    ],
    [withField('protection', '1/2'), /"dev": protection must be .* not "1\/2"$/],
    [
      withField('protection', '0'),
      /"dev": protection as a fraction must be more than 0 and at most 1, not 0$/,
    ],
    [
      withField('protection', '1.5'),
      /"dev": protection as a fraction must be more than 0 and at most 1, not 1\.5$/,
    ],
  ])('rejects %j', (text, pattern) => {
    expect(usageError(() => parseCosts(text, 'costs.yaml')).message).toMatch(pattern);
  });

  it.each([
    ['raid1', 1, /raid1 needs an even number of drives >= 2 .*, not 1$/],
    ['raid1', 3, /raid1 needs an even number of drives >= 2 .*, not 3$/],
    ['raid10', 3, /raid10 needs an even number of drives >= 2 .*, not 3$/],
    ['raid10', 1, /raid10 needs an even number of drives >= 2 .*, not 1$/],
    ['raid5', 2, /raid5 needs at least 3 drives, not 2$/],
    ['raid6', 3, /raid6 needs at least 4 drives, not 3$/],
  ])('rejects %s over %i drives, naming the label and field', (protection, drives, pattern) => {
    const text = base(`drivePrice: 1\ndrives: ${drives}\ndriveGB: 1\nprotection: ${protection}`);
    const message = usageError(() => parseCosts(text, 'c.yaml')).message;
    expect(message).toMatch(/^c\.yaml: "dev": protection /);
    expect(message).toMatch(pattern);
  });

  it.each([
    ['raid1', 2],
    ['raid10', 2],
    ['raid10', 4],
    ['raid5', 3],
    ['raid6', 4],
  ])('accepts %s over %i drives', (protection, drives) => {
    const text = base(`drivePrice: 1\ndrives: ${drives}\ndriveGB: 1\nprotection: ${protection}`);
    expect(parseCosts(text, 'c.yaml').get('dev')?.protection).toBe(protection);
  });
});

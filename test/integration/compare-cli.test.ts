/**
 * `txbench compare` and `txbench results` as a user runs them (the built CLI), over fixture run
 * directories: no database involved.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { device, runJson, stepsJson, writeRun } from '../unit/run-fixtures.js';

const BIN = fileURLToPath(new URL('../../bin/txbench.js', import.meta.url));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function expectUsageError(r: CliResult, pattern: RegExp): void {
  expect(r.code, JSON.stringify(r)).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^txbench [a-z]+: /);
  expect(lines[0]).toMatch(pattern);
}

/** A CSV parser good enough for RFC 4180 output (quoted fields with commas and doubled quotes). */
function parseCsv(text: string): string[][] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const fields: string[] = [];
      let field = '';
      let quoted = false;
      for (let i = 0; i < line.length; i++) {
        const c = line[i]!;
        if (quoted) {
          if (c === '"' && line[i + 1] === '"') {
            field += '"';
            i++;
          } else if (c === '"') quoted = false;
          else field += c;
        } else if (c === '"') quoted = true;
        else if (c === ',') {
          fields.push(field);
          field = '';
        } else field += c;
      }
      fields.push(field);
      return fields;
    });
}

/** The three drives under test: price per drive, drives, GB per drive, protection, and measured TPS. */
const DRIVES = [
  { label: 'PX600, 64 GB', price: 1200, drives: 4, gb: 1000, protection: 'raid10', usable: 0.5, tps: 2400 },
  { label: 'HDD 15k', price: 250, drives: 6, gb: 600, protection: 'raid6', usable: 4 / 6, tps: 500 },
  { label: 'NVMe "fast"', price: 3000, drives: 3, gb: 3840, protection: 'raid5', usable: 2 / 3, tps: 7500 },
];

const COSTS_YAML = `# drive prices for the comparison
'PX600, 64 GB':
  drivePrice: 1200
  drives: 4
  driveGB: 1000
  protection: raid10
HDD 15k:
  drivePrice: 250
  drives: 6
  driveGB: 600
  protection: raid6
'NVMe "fast"':
  drivePrice: 3000
  drives: 3
  driveGB: 3840
  protection: raid5
Spare:
  drivePrice: 1
  drives: 1
  driveGB: 1
  protection: 1
`;

let dir: string;
let results: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-compare-'));
  results = path.join(dir, 'results');
  for (const [i, d] of DRIVES.entries()) {
    await writeRun(
      results,
      `run-2024050${i + 1}-120000`,
      runJson({
        target: d.label,
        startedAt: `2024-05-0${i + 1}T12:00:00.000Z`,
        tps: d.tps,
        tpmC: d.tps * 27,
        avg: 2 + i,
        p90: 5 + i,
        p99: 10 + i,
      }),
    );
  }
  await writeFile(path.join(dir, 'costs.yaml'), COSTS_YAML);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('txbench compare --cost', () => {
  it('prints every cost column, and the numbers follow from the inputs', async () => {
    const r = await runCli(['compare', 'results', '--cost', 'costs.yaml', '--format', 'csv'], dir);
    expect(r.code, r.stderr).toBe(0);
    // Every run has its entry: "Spare" (a drive not in these runs) is no matter for a note.
    expect(r.stderr).toBe('');
    const [header, ...rows] = parseCsv(r.stdout);
    expect(header).toEqual([
      'label',
      'TPS',
      'drives',
      'protection',
      'total cost',
      'raw GB',
      'usable GB',
      'cost/TPS',
      'cost/raw GB',
      'cost/usable GB',
      'cost/usable GB/TPS',
      'run',
    ]);
    // Highest TPS first.
    expect(rows.map((row) => row[0])).toEqual(['NVMe "fast"', 'PX600, 64 GB', 'HDD 15k']);
    for (const row of rows) {
      const d = DRIVES.find((x) => x.label === row[0])!;
      const total = d.price * d.drives;
      const raw = d.gb * d.drives;
      const usable = raw * d.usable;
      const n = row.slice(1).map(Number);
      expect(n[0]).toBe(d.tps);
      expect(n[1]).toBe(d.drives);
      expect(row[3]).toBe(d.protection);
      expect(n[3]).toBe(total);
      expect(n[4]).toBe(raw);
      expect(n[5]).toBeCloseTo(usable, 9);
      expect(n[6]).toBeCloseTo(total / d.tps, 12);
      expect(n[7]).toBeCloseTo(total / raw, 12);
      expect(n[8]).toBeCloseTo(total / usable, 12);
      expect(n[9]).toBeCloseTo(total / usable / d.tps, 15);
    }
  });

  it('as text: the comparison, then the cost table with every column', async () => {
    const r = await runCli(['compare', 'results', '--cost', 'costs.yaml'], dir);
    expect(r.code, r.stderr).toBe(0);
    const [comparison, cost] = r.stdout.trimEnd().split('\n\n');
    expect(comparison!.split('\n')[0]).toMatch(
      /^label\s+TPS\s+avg response ms\s+device MB\/s\s+device latency ms\s+New-Orders\/min \(unpaced\)\s+p90 ms\s+p99 ms\s+status$/,
    );
    expect(cost!.split('\n')).toEqual([
      'label              TPS  drives  protection  total cost  raw GB  usable GB  cost/TPS  cost/raw GB  cost/usable GB  cost/usable GB/TPS',
      'NVMe "fast"   7,500.00       3  raid5         9,000.00  11,520      7,680      1.20        0.781            1.17            0.000156',
      'PX600, 64 GB  2,400.00       4  raid10        4,800.00   4,000      2,000      2.00         1.20            2.40               0.001',
      'HDD 15k         500.00       6  raid6         1,500.00   3,600      2,400      3.00        0.417           0.625             0.00125',
    ]);
  });

  it('as Markdown: both tables', async () => {
    const r = await runCli(
      ['compare', 'results', '--cost', 'costs.yaml', '--format', 'markdown', '--sort', 'label'],
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(
      '| label | TPS | avg response ms | device MB/s | device latency ms | New-Orders/min (unpaced) | p90 ms | p99 ms | status |',
    );
    expect(lines[2]).toBe('| HDD 15k | 500.00 | 3.00 | n/a | n/a | 13,500 | 6.00 | 11.0 | completed |');
    expect(lines).toContain(
      '| label | TPS | drives | protection | total cost | raw GB | usable GB | cost/TPS | cost/raw GB | cost/usable GB | cost/usable GB/TPS |',
    );
    expect(lines).toContain(
      '| PX600, 64 GB | 2,400.00 | 4 | raid10 | 4,800.00 | 4,000 | 2,000 | 2.00 | 1.20 | 2.40 | 0.001 |',
    );
  });

  it('names a run that has no cost entry, on one line, and still prints the rest', async () => {
    const extra = await writeRun(path.join(dir, 'more'), 'run-x', runJson({ target: 'Unpriced' }));
    const r = await runCli(['compare', 'results', extra, '--cost', 'costs.yaml'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('txbench compare: note: no cost entry for "Unpriced" (run run-x)\n');
    expect(r.stdout).toContain('Unpriced');
    expect(r.stdout.split('\n\n')[1]).not.toContain('Unpriced');
  });

  it.each([
    [['--cost', 'missing.yaml'], /--cost missing\.yaml: cannot read \(ENOENT\)/],
    [['--format', 'html'], /--format must be text, markdown, csv; not "html"/],
    [['--sort', 'p99'], /--sort must be tps, tpmC, avg, label; not "p99"/],
    [['--nope'], /unknown flag --nope/],
    [['--cost'], /--cost needs a value/],
    [['nowhere'], /nowhere: no such run directory, run\.json or results directory/],
  ])('exits 2 with one line for %j', async (args, pattern) => {
    expectUsageError(await runCli(['compare', 'results', ...args], dir), pattern);
  });

  it('exits 2 naming the label and field for a bad costs file', async () => {
    await writeFile(
      path.join(dir, 'bad.yaml'),
      'HDD 15k:\n  drivePrice: 1\n  drives: 2\n  driveGB: 1\n  protection: raid5\n',
    );
    expectUsageError(
      await runCli(['compare', 'results', '--cost', 'bad.yaml'], dir),
      /^txbench compare: bad\.yaml: "HDD 15k": protection raid5 needs at least 3 drives, not 2$/,
    );
    await writeFile(path.join(dir, 'bad.yaml'), 'x: [');
    expectUsageError(
      await runCli(['compare', 'results', '--cost', 'bad.yaml'], dir),
      /bad\.yaml: not valid YAML/,
    );
  });
});

describe('txbench compare: status, comparability, honest labels, versions', () => {
  it("shows each row's status, ranks completed runs first, and warns once per differing condition", async () => {
    const runs = path.join(dir, 'mixed-conditions');
    await writeRun(
      runs,
      'run-a',
      runJson({ target: 'ssd', tps: 300, thinkScale: 1, tpmC: 128, devices: [device('vda', 'data+log')] }),
    );
    await writeRun(runs, 'run-b', runJson({ target: 'hdd', tps: 900, status: 'interrupted', warehouses: 4 }));
    await writeRun(runs, 'run-c', stepsJson('nvme', [{ terminals: 1, tps: 50, nonstandardMix: true }]));
    const r = await runCli(['compare', 'mixed-conditions'], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toEqual([
      'label             TPS  avg response ms  device MB/s  device latency ms  tpmC  New-Orders/min (unpaced)  New-Orders/min (unpaced, non-standard mix)  p90 ms  p99 ms  status',
      'ssd            300.00             5.00         14.6               1.19   128                         -                                           -    9.00    20.0  completed',
      'nvme @ 1 user   50.00             5.00          n/a                n/a     -                         -                                       2,000    9.00    20.0  completed, non-standard mix',
      'hdd            900.00             5.00          n/a                n/a     -                     2,000                                           -    9.00    20.0  interrupted',
    ]);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'txbench compare: warning: warehouses differs between rows: 1 (ssd, nvme @ 1 user); 4 (hdd); they may not be comparable',
      'txbench compare: warning: terminals differs between rows: 10 (ssd, hdd); 1 (nvme @ 1 user); they may not be comparable',
      'txbench compare: warning: think-scale differs between rows: 1 (ssd); 0 (nvme @ 1 user, hdd); they may not be comparable',
      'txbench compare: warning: mix differs between rows: 10/10/1/1/1 (ssd, hdd); 16/6/1/1/1 (nvme @ 1 user); they may not be comparable',
    ]);
  });

  it('refuses a run.json from a newer txbench: exit 2, one line naming the file and version', async () => {
    const newer = await writeRun(path.join(dir, 'from-the-future'), 'run-z', {
      ...runJson(),
      schemaVersion: 99,
    });
    for (const args of [
      ['compare', newer],
      ['results', 'from-the-future'],
    ]) {
      expectUsageError(
        await runCli(args, dir),
        /run-z\/run\.json: run\.json schemaVersion 99 is newer than this txbench reads \(up to 3\); upgrade txbench$/,
      );
    }
  });
});

describe('txbench results', () => {
  it('lists the runs newest first, one line each', async () => {
    const r = await runCli(['results'], dir);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^id\s+started \(UTC\)\s+label\s+status\s+TPS\s+New-Orders\/min \(unpaced\)\s+avg ms\s+tags$/,
    );
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 7))).toEqual([
      [
        'run-20240503-120000',
        '2024-05-03 12:00:00',
        'NVMe "fast"',
        'completed',
        '7,500.00',
        '202,500',
        '4.00',
      ],
      ['run-20240502-120000', '2024-05-02 12:00:00', 'HDD 15k', 'completed', '500.00', '13,500', '3.00'],
      [
        'run-20240501-120000',
        '2024-05-01 12:00:00',
        'PX600, 64 GB',
        'completed',
        '2,400.00',
        '64,800',
        '2.00',
      ],
    ]);
  });

  it('tags runs and filters on tags, without touching run.json', async () => {
    const runDir = path.join(results, 'run-20240502-120000');
    const before = await readFile(path.join(runDir, 'run.json'), 'utf8');
    const tagged = await runCli(['results', 'tag', 'run-20240502-120000', 'hdd', 'baseline'], dir);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stdout.trim()).toMatch(/run-20240502-120000: tags hdd, baseline$/);
    expect(await readFile(path.join(runDir, 'run.json'), 'utf8')).toBe(before);

    const listed = await runCli(['results', 'results', '--tag', 'hdd'], dir);
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(listed.stdout).toMatch(/HDD 15k .* hdd, baseline\n$/);

    const json = await runCli(['results', '--json', '--tag', 'baseline', '--tag', 'hdd'], dir);
    const runs = JSON.parse(json.stdout) as {
      id: string;
      label: string;
      tags: string[];
      summary: { tps: number };
    }[];
    expect(runs.map((x) => [x.id, x.label, x.tags, x.summary.tps])).toEqual([
      ['run-20240502-120000', 'HDD 15k', ['hdd', 'baseline'], 500],
    ]);

    const none = await runCli(['results', '--tag', 'ssd'], dir);
    expect(none.stdout.trim()).toBe('no runs tagged ssd in results');

    const untagged = await runCli(['results', 'untag', path.join(runDir, 'run.json'), 'hdd'], dir);
    expect(untagged.stdout.trim()).toMatch(/tags baseline$/);
  });

  it('warns about an unreadable run and lists the others', async () => {
    await writeRun(path.join(dir, 'mixed'), 'run-ok', runJson({ target: 'fine' }));
    await writeRun(path.join(dir, 'mixed'), 'run-broken', '{"schemaVersion":');
    const r = await runCli(['results', 'mixed'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('fine');
    expect(r.stderr.trim()).toMatch(
      /^txbench results: warning: .*run-broken\/run\.json: not valid JSON .*; skipped$/,
    );
  });

  it.each([
    [['results', 'tag', 'run-nope', 'x'], /run-nope: not a run directory/],
    [['results', 'tag', 'run-20240501-120000'], /usage: txbench results tag RUN TAG\.\.\./],
    [['results', 'tag', 'run-20240501-120000', 'two words'], /tag "two words" must be one word/],
    [['results', 'nowhere'], /no results directory "nowhere"/],
    [['results', 'a', 'b'], /unexpected argument b/],
  ])('exits 2 with one line for %j', async (args, pattern) => {
    expectUsageError(await runCli(args, dir), pattern);
  });
});

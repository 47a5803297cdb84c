import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { summaryFromIntervals } from '../../src/results/crashed.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const type = (count: number, avgMs: number, p90Ms: number, p99Ms: number) => ({
  count,
  errors: 0,
  avgMs,
  p50Ms: avgMs,
  p90Ms,
  p95Ms: p90Ms,
  p99Ms,
});

describe('summaryFromIntervals (a crashed run)', () => {
  it('sums the measured intervals only, weights the average by count, takes the worst percentiles, skips a cut-short last line', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-crashed-'));
    const rows = [
      { atS: 1, phase: 'warmup', seconds: 1, tps: 1000, tpmC: 9, perType: { a: type(1000, 99, 99, 99) } },
      { atS: 2, phase: 'measure', seconds: 1, tps: 100, tpmC: 600, perType: { a: type(100, 10, 20, 30) } },
      {
        atS: 4,
        phase: 'measure',
        seconds: 2,
        tps: 40,
        tpmC: 300,
        perType: { a: type(60, 20, 40, 50), b: type(20, 40, 45, 90) },
      },
    ];
    const text = rows.map((r) => JSON.stringify(r)).join('\n') + '\n{"atS": 5, "phase": "meas';
    await writeFile(path.join(dir, 'intervals.ndjson'), text);
    const s = await summaryFromIntervals(dir);
    expect(s).toBeDefined();
    expect(s!.fromIntervals).toEqual({ intervals: 2, seconds: 3, lastAtS: 4 });
    expect(s!.tps).toBeCloseTo((100 + 80) / 3, 10);
    expect(s!.tpmC).toBeCloseTo((600 + 600) / 3, 10);
    expect(s!.responseMs.avg).toBeCloseTo((100 * 10 + 60 * 20 + 20 * 40) / 180, 10);
    expect(s!.responseMs.p90).toBe(45);
    expect(s!.responseMs.p99).toBe(90);
  });

  it('gives nothing for a run that measured nothing', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-crashed-'));
    await writeFile(
      path.join(dir, 'intervals.ndjson'),
      JSON.stringify({ phase: 'warmup', seconds: 1, tps: 5 }) + '\n',
    );
    expect(await summaryFromIntervals(dir)).toBeUndefined();
  });
});

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  collectRuns,
  listRuns,
  NewerRunError,
  readRun,
  resolveRunDir,
  tagRun,
  untagRun,
} from '../../src/results/store.js';
import { device, HOST, runJson, stepsJson, sweepJson, targetsJson, writeRun } from './run-fixtures.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-store-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rejection(p: Promise<unknown>): Promise<UsageError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UsageError);
  return err as UsageError;
}

describe('listRuns', () => {
  it('lists the repetitions of a repeated run (a directory with repeat.json) among the runs', async () => {
    const parent = path.join(dir, 'run-rep');
    await writeRun(parent, 'rep-1', runJson({ target: 'r', startedAt: '2024-01-01T00:00:00.000Z' }));
    await writeRun(parent, 'rep-2', runJson({ target: 'r', startedAt: '2024-01-02T00:00:00.000Z' }));
    await writeFile(path.join(parent, 'repeat.json'), '{}');
    await writeRun(dir, 'run-a', runJson({ target: 'a', startedAt: '2024-01-03T00:00:00.000Z' }));
    const { runs, warnings } = await listRuns(dir);
    expect(warnings).toEqual([]);
    expect(runs.map((r) => r.path)).toEqual([
      path.join(dir, 'run-a'),
      path.join(parent, 'rep-2'),
      path.join(parent, 'rep-1'),
    ]);
  });

  it('lists every readable run newest first, with id, label, status, tags and summary', async () => {
    await writeRun(dir, 'run-a', runJson({ target: 'old', startedAt: '2024-01-01T00:00:00.000Z', tps: 10 }));
    await writeRun(
      dir,
      'run-b',
      runJson({ target: 'new', startedAt: '2024-03-01T00:00:00.000Z', status: 'interrupted' }),
    );
    await writeRun(dir, 'run-c', runJson({ target: 'mid', startedAt: '2024-02-01T00:00:00.000Z' }));
    const { runs, warnings } = await listRuns(dir);
    expect(warnings).toEqual([]);
    expect(runs.map((r) => r.id)).toEqual(['run-b', 'run-c', 'run-a']);
    expect(runs[0]).toMatchObject({
      path: path.join(dir, 'run-b'),
      id: 'run-b',
      startedAt: '2024-03-01T00:00:00.000Z',
      status: 'interrupted',
      label: 'new',
      tags: [],
    });
    expect(runs[2]!.summary).toMatchObject({ tps: 10, tpmC: 2000, responseMs: { avg: 5, p90: 9, p99: 20 } });
    // The rest of the summary passes through for --json.
    expect(runs[2]!.summary?.windowSeconds).toBe(60);
  });

  it('skips unreadable runs with one warning each, and never throws for them', async () => {
    await writeRun(dir, 'run-good', runJson({ target: 'ok' }));
    await writeRun(dir, 'run-corrupt', '{"schemaVersion": 1, "status": "compl');
    await writeRun(dir, 'run-not-a-run', { hello: 'world' });
    await writeRun(dir, 'run-bad-summary', runJson({}, { summary: { tps: 'fast' } }));
    await mkdir(path.join(dir, 'run-crashed'));
    await writeFile(path.join(dir, 'run-crashed', 'intervals.ndjson'), '{}\n');
    await mkdir(path.join(dir, 'not-a-run'));
    await writeFile(path.join(dir, 'notes.txt'), 'a file, not a run');
    const { runs, warnings } = await listRuns(dir);
    expect(runs.map((r) => r.id)).toEqual(['run-good']);
    expect(warnings).toHaveLength(4);
    expect(warnings.join('\n')).not.toContain(path.join(dir, 'not-a-run') + '/');
    expect(warnings.find((w) => w.includes('run-corrupt'))).toMatch(/run\.json: not valid JSON .*; skipped$/);
    expect(warnings.find((w) => w.includes('run-not-a-run'))).toMatch(
      /not a txbench run \(schemaVersion: Required\)/,
    );
    expect(warnings.find((w) => w.includes('run-bad-summary'))).toMatch(/summary\.tps: Expected number/);
    expect(warnings.find((w) => w.includes('run-crashed'))).toMatch(
      /no run\.json \(the run ended before writing it\)/,
    );
    for (const w of warnings) expect(w).not.toContain('\n');
  });

  it('keeps a run whose tags.json is broken, without tags, and says so', async () => {
    const run = await writeRun(dir, 'run-x', runJson());
    await writeFile(path.join(run, 'tags.json'), 'nope');
    const { runs, warnings } = await listRuns(dir);
    expect(runs.map((r) => r.tags)).toEqual([[]]);
    expect(warnings).toEqual([expect.stringMatching(/tags\.json: not a tags file .*; listed without tags$/)]);
  });

  it('reads every kind, with its kind, and runs without a summary', async () => {
    await writeRun(dir, 'steps', stepsJson('ssd', [{ terminals: 1 }]));
    await writeRun(dir, 'targets', targetsJson([{ target: 'vm1' }, { target: 'vm2' }]));
    await writeRun(dir, 'sweep', sweepJson('pg', 'shared_buffers', [['1GB', { thinkScale: 1 }]]));
    await writeRun(dir, 'run', runJson({ nonstandardMix: true }));
    const { runs, warnings } = await listRuns(dir);
    expect(warnings).toEqual([]);
    const byId = new Map(runs.map((r) => [r.id, r]));
    expect(runs.map((r) => [r.id, r.kind, r.schemaVersion]).sort()).toEqual([
      ['run', 'run', 3],
      ['steps', 'steps', 3],
      ['sweep', 'sweep', 3],
      ['targets', 'targets', 3],
    ]);
    expect(byId.get('steps')?.summary).toBeUndefined();
    expect(byId.get('steps')?.steps).toHaveLength(1);
    expect(byId.get('targets')?.label).toBe('vm1 + vm2');
    expect(byId.get('sweep')?.sweep?.[0]?.value).toBe('1GB');
    expect(byId.get('sweep')?.sweep?.[0]?.report?.config?.thinkScale).toBe(1);
    expect(byId.get('run')?.config?.nonstandardMix).toBe(true);
    expect(byId.get('run')?.workload).toBe('tpcc');
  });

  it('reads version 1 files, taking the kind of a single run from its shape', async () => {
    const v1 = { schemaVersion: 1, status: 'completed', startedAt: '2024-01-01T00:00:00Z' };
    const s = runJson().summary;
    await writeRun(dir, 'single', { ...v1, config: { target: 'old' }, summary: s });
    await writeRun(dir, 'steps', { ...v1, kind: 'steps', steps: [{ users: 1, summary: s }] });
    await writeRun(dir, 'targets', { ...v1, targets: [{ label: 'a', summary: s }] });
    const { runs, warnings } = await listRuns(dir);
    expect(warnings).toEqual([]);
    expect(runs.map((r) => [r.id, r.kind, r.schemaVersion])).toEqual([
      ['targets', 'targets', 1],
      ['steps', 'steps', 1],
      ['single', 'run', 1],
    ]);
  });

  it('reads version 2 files as they are: no device figures', async () => {
    await writeRun(dir, 'v2', { ...runJson({ target: 'v2' }), schemaVersion: 2 });
    const { runs, warnings } = await listRuns(dir);
    expect(warnings).toEqual([]);
    expect(runs.map((r) => [r.id, r.kind, r.schemaVersion, r.label])).toEqual([['v2', 'run', 2, 'v2']]);
    expect(runs[0]!.summary?.devices).toBeUndefined();
  });

  it('reads version 3 device figures, per disk, in single runs and in every step', async () => {
    const devices = [device('vda', 'data'), device('vdb', 'log', { readLatencyMs: null, readIops: 0 })];
    const monitor = { source: 'local /proc', notes: [] };
    await writeRun(dir, 'run', runJson({ devices, host: HOST, monitor }));
    await writeRun(dir, 'steps', stepsJson('ssd', [{ terminals: 1, devices }]));
    const { runs, warnings } = await listRuns(dir);
    expect(warnings).toEqual([]);
    const byId = new Map(runs.map((r) => [r.id, r]));
    expect(byId.get('run')?.summary?.devices).toEqual(devices);
    expect(byId.get('run')?.summary?.monitor).toEqual(monitor);
    expect(byId.get('steps')?.steps?.[0]?.summary.devices?.map((d) => d.name)).toEqual(['vda', 'vdb']);
  });

  it('refuses device figures that are not figures, naming where', async () => {
    const bad = runJson({ devices: [device('vda', 'data', { writeIops: 'many' as unknown as number })] });
    const run = await writeRun(dir, 'bad', bad);
    expect((await rejection(readRun(path.join(run, 'run.json')))).message).toMatch(
      /not a txbench run \(summary\.devices\.0\.writeIops: Expected number, received string\)/,
    );
  });

  it('skips a version 2 file that does not name its kind', async () => {
    const { kind: _kind, ...unnamed } = runJson();
    await writeRun(dir, 'run-unnamed', unnamed);
    const { runs, warnings } = await listRuns(dir);
    expect(runs).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/not a txbench run \(kind: Required from schemaVersion 2\); skipped$/),
    ]);
  });

  it('refuses a run.json from a newer txbench, naming the file and its version, even in a listing', async () => {
    await writeRun(dir, 'run-old', runJson());
    const newer = await writeRun(dir, 'run-new', { ...runJson(), schemaVersion: 4, shape: 'unknown' });
    const file = path.join(newer, 'run.json');
    const message = `${file}: run.json schemaVersion 4 is newer than this txbench reads (up to 3); upgrade txbench`;
    const attempts = [
      () => readRun(file),
      () => listRuns(dir),
      () => collectRuns([dir]),
      () => collectRuns([newer]),
    ];
    for (const attempt of attempts) {
      const err = await rejection(attempt());
      expect(err).toBeInstanceOf(NewerRunError);
      expect(err.exitCode).toBe(2);
      expect(err.message).toBe(message);
    }
  });

  it('refuses a schemaVersion below 1', async () => {
    const run = await writeRun(dir, 'run-0', { ...runJson(), schemaVersion: 0 });
    expect((await rejection(readRun(path.join(run, 'run.json')))).message).toMatch(
      /not a txbench run \(schemaVersion: Number must be greater than or equal to 1\)/,
    );
  });

  it('orders runs with the same start by id, and unparseable starts last', async () => {
    await writeRun(dir, 'b', runJson({ startedAt: '2024-01-01T00:00:00Z' }));
    await writeRun(dir, 'a', runJson({ startedAt: '2024-01-01T00:00:00Z' }));
    await writeRun(dir, 'z', runJson({ startedAt: 'yesterday' }));
    expect((await listRuns(dir)).runs.map((r) => r.id)).toEqual(['b', 'a', 'z']);
  });

  it('is a usage error for a missing results directory', async () => {
    const err = await rejection(listRuns(path.join(dir, 'nope')));
    expect(err.message).toMatch(
      /no results directory ".*nope"; `txbench run --out .*nope` writes runs there/,
    );
  });
});

describe('tags', () => {
  it('adds tags in tags.json beside run.json, without rewriting run.json', async () => {
    const run = await writeRun(dir, 'run-1', runJson());
    const before = await readFile(path.join(run, 'run.json'), 'utf8');
    expect(await tagRun(run, ['baseline', 'px600'])).toEqual(['baseline', 'px600']);
    expect(await tagRun(run, ['px600', 'raid10'])).toEqual(['baseline', 'px600', 'raid10']);
    expect(JSON.parse(await readFile(path.join(run, 'tags.json'), 'utf8'))).toEqual({
      tags: ['baseline', 'px600', 'raid10'],
    });
    expect(await readFile(path.join(run, 'run.json'), 'utf8')).toBe(before);
    expect((await readRun(path.join(run, 'run.json'))).tags).toEqual(['baseline', 'px600', 'raid10']);
    expect(await untagRun(run, ['px600', 'never-there'])).toEqual(['baseline', 'raid10']);
  });

  it.each([['two words'], ['a,b'], [''], ['x'.repeat(101)]])('rejects the tag %j', async (tag) => {
    const run = await writeRun(dir, 'run-1', runJson());
    expect((await rejection(tagRun(run, [tag]))).message).toMatch(/must be one word/);
  });

  it('refuses a directory that is not a run', async () => {
    expect((await rejection(tagRun(dir, ['x']))).message).toMatch(/not a run directory \(no run\.json\)/);
  });

  it('finds a run by directory, by run.json, or by id in the results directory', async () => {
    const run = await writeRun(path.join(dir, 'results'), 'run-9', runJson());
    expect(await resolveRunDir(run)).toBe(run);
    expect(await resolveRunDir(path.join(run, 'run.json'))).toBe(run);
    expect(await resolveRunDir('run-9', path.join(dir, 'results'))).toBe(run);
    expect((await rejection(resolveRunDir('run-0', path.join(dir, 'results')))).message).toMatch(
      /run-0: not a run directory/,
    );
  });
});

describe('collectRuns', () => {
  it('takes run directories, run.json files and results directories, each run once', async () => {
    const results = path.join(dir, 'results');
    const a = await writeRun(results, 'run-a', runJson({ target: 'a' }));
    await writeRun(results, 'run-b', runJson({ target: 'b' }));
    const loose = path.join(dir, 'elsewhere.json');
    await writeFile(loose, JSON.stringify(runJson({ target: 'loose' })));
    const { runs, warnings } = await collectRuns([a, path.join(a, 'run.json'), results, loose]);
    expect(warnings).toEqual([]);
    expect(runs.map((r) => `${r.id}:${r.label}`)).toEqual(['run-a:a', 'run-b:b', 'elsewhere:loose']);
  });

  it('is a usage error for a named run that cannot be read, a warning inside a results directory', async () => {
    const bad = await writeRun(dir, 'run-bad', '{');
    expect((await rejection(collectRuns([bad]))).message).toMatch(/run-bad\/run\.json: not valid JSON/);
    const { runs, warnings } = await collectRuns([dir]);
    expect(runs).toEqual([]);
    expect(warnings).toHaveLength(1);
  });

  it('is a usage error for a path that is nothing, or a directory with no runs', async () => {
    expect((await rejection(collectRuns([path.join(dir, 'nope')]))).message).toMatch(
      /nope: no such run directory, run\.json or results directory$/,
    );
    expect((await rejection(collectRuns([dir]))).message).toMatch(/no runs here/);
  });
});

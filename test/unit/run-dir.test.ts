import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkResultsDir, RunDirectory, writeJson } from '../../src/results/run-dir.js';
import { listRuns } from '../../src/results/store.js';

let parent: string;

beforeEach(async () => {
  parent = await mkdtemp(path.join(os.tmpdir(), 'txbench-run-dir-'));
});

afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
  return Number(child.stdout.trim());
}

describe('run directory files', () => {
  it('writes JSON atomically: the whole new file, no temporary file left behind', async () => {
    const file = path.join(parent, 'run.json');
    await writeFile(file, '{"old": true}\n');
    await writeJson(file, { schemaVersion: 3, big: 'x'.repeat(100_000) });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ schemaVersion: 3, big: 'x'.repeat(100_000) });
    expect(await readdir(parent)).toEqual(['run.json']);
  });

  it('appends intervals in the order given, each on its own line, even when not awaited', async () => {
    const dir = await RunDirectory.create(parent, new Date('2024-05-01T12:00:00Z'));
    for (let i = 0; i < 50; i++) void dir.appendInterval({ i });
    expect(await dir.intervalsError()).toBeUndefined();
    const lines = (await readFile(path.join(dir.dir, 'intervals.ndjson'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([...Array(50).keys()]);
  });

  it('an interval that cannot be written is reported, not thrown into the run', async () => {
    const dir = await RunDirectory.create(parent, new Date('2024-05-01T12:00:00Z'));
    await rm(dir.dir, { recursive: true });
    await expect(dir.appendInterval({ i: 1 })).resolves.toBeUndefined();
    expect(await dir.intervalsError()).toMatch(/intervals\.ndjson: .*ENOENT/);
  });
});

describe('the results directory, checked before a run starts', () => {
  it('refuses one with a file in the way, in one line', async () => {
    await writeFile(path.join(parent, 'file'), 'x');
    await expect(checkResultsDir(path.join(parent, 'file', 'results'))).rejects.toThrow(
      /^cannot write results to .*: a file is in the way; choose another --out$/,
    );
  });

  it('leaves no trace of a writable one it had to create, nor of its probe in one that exists', async () => {
    await checkResultsDir(path.join(parent, 'a', 'b'));
    expect(await readdir(parent)).toEqual([]);
    await checkResultsDir(parent);
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('a run killed before it finished', () => {
  it('is listed as running while its writer lives, and as crashed once it is gone', async () => {
    const live = await RunDirectory.create(parent, new Date('2024-05-01T12:00:00Z'), 'steps');
    const killed = await RunDirectory.create(parent, new Date('2024-05-01T13:00:00Z'), 'run');
    const file = path.join(killed.dir, 'run.json');
    const stub = JSON.parse(await readFile(file, 'utf8')) as { writer: { pid: number; host: string } };
    expect(stub.writer).toEqual({ pid: process.pid, host: os.hostname() });
    await writeFile(file, JSON.stringify({ ...stub, writer: { ...stub.writer, pid: deadPid() } }));
    const { runs } = await listRuns(parent);
    const statusOf = (dir: string): string | undefined => runs.find((r) => r.path === dir)?.status;
    expect(statusOf(live.dir)).toBe('running');
    expect(statusOf(killed.dir)).toBe('crashed');
  });
});

/**
 * report.html is an output (issue 31, item 2): the session writes run.json and tells its outputs
 * the run directory is written, naming no report writer; what an output could not write still
 * makes the exit 1 and is named, and a report that cannot be drawn is a warning only. Real run
 * directories in a temporary directory, the CLI's real outputs (built: the page needs its bundled
 * script from dist/).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { printedOutputs } from '../../dist/cli/run-outputs.js';
import { RunDirectory } from '../../src/results/run-dir.js';
import type { Output, RunEvent } from '../../src/results/run-events.js';
import type { RunReport } from '../../src/results/run-file.js';
import { RunSession, type SessionOutputs } from '../../src/run/session.js';
import { runJson } from './run-fixtures.js';

/** A finished run as exitCodeOf reads it: completed, nothing exceeded. */
const COMPLETED = {
  status: 'completed',
  faults: { exceeded: null },
  config: { target: 'pg' },
} as unknown as RunReport;

let root: string;
let stderr: MockInstance<typeof console.error>;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'txbench-run-dir-outputs-'));
  stderr = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

const told = (): string[] => stderr.mock.calls.map((c) => String(c[0]));

/** The CLI's outputs with their run-directory outputs replaced by `runDirOutputs`. */
function outputsWith(runDirOutputs: readonly Output[]): SessionOutputs {
  return { ...printedOutputs(undefined), runDirOutputs };
}

describe('a written run directory, told to the outputs', () => {
  it('each output hears it once run.json is on disk; the session draws no report itself', async () => {
    const heard: { event: RunEvent; status: unknown }[] = [];
    const listening: Output = {
      name: 'listening',
      event: (event) => {
        const run = JSON.parse(readFileSync(path.join(root, 'run', 'run.json'), 'utf8')) as {
          status: unknown;
        };
        heard.push({ event, status: run.status });
      },
    };
    const session = new RunSession(outputsWith([listening]), undefined);
    const runDir = await RunDirectory.create(root, new Date(), 'run', 'run');
    await session.saveResults(runDir, undefined, runJson());
    expect(heard).toEqual([{ event: { kind: 'written', dir: runDir.dir }, status: 'completed' }]);
    // No report.html without an output that draws it, and nothing said about one.
    expect(existsSync(path.join(runDir.dir, 'report.html'))).toBe(false);
    expect(told()).toEqual([]);
    expect(session.exitCodeOf([COMPLETED])).toBe(0);
  });

  it('what an output could not write is named in the exit, which is 1', async () => {
    const failing: Output = {
      name: 'failing',
      event: () => undefined,
      unwritten: () => ['/somewhere/summary.txt'],
    };
    const session = new RunSession(outputsWith([failing]), undefined);
    const runDir = await RunDirectory.create(root, new Date(), 'run', 'run');
    await session.saveResults(runDir, undefined, runJson());
    expect(session.exitCodeOf([COMPLETED])).toBe(1);
    expect(told().at(-1)).toMatch(/^txbench: not written: \/somewhere\/summary\.txt; /);
  });
});

describe('report.html as the CLI writes it', () => {
  it('is drawn into the run directory', async () => {
    const session = new RunSession(printedOutputs(undefined), undefined);
    const runDir = await RunDirectory.create(root, new Date(), 'run', 'run');
    await session.saveResults(runDir, undefined, runJson());
    expect(await readFile(path.join(runDir.dir, 'report.html'), 'utf8')).toContain('<html');
    expect(session.exitCodeOf([COMPLETED])).toBe(0);
  });

  it('one the file system will not take: a warning, run.json kept, and the exit 1 naming it', async () => {
    const session = new RunSession(printedOutputs(undefined), undefined);
    const runDir = await RunDirectory.create(root, new Date(), 'run', 'run');
    // A directory where the report should go: the write fails as a full disk would, with a code.
    await mkdir(path.join(runDir.dir, 'report.html'));
    await session.saveResults(runDir, undefined, runJson());
    expect(JSON.parse(await readFile(path.join(runDir.dir, 'run.json'), 'utf8')).status).toBe('completed');
    expect(told()).toEqual([expect.stringMatching(/^warning: report\.html not written \(EISDIR/)]);
    expect(session.exitCodeOf([COMPLETED])).toBe(1);
    expect(told().at(-1)).toContain(`not written: ${runDir.dir}/report.html;`);
  });

  it('one that cannot be drawn: a warning only, the exit as before', async () => {
    const session = new RunSession(printedOutputs(undefined), undefined);
    const runDir = await RunDirectory.create(root, new Date(), 'run', 'run');
    // A run.json newer than this txbench reads: refused by the report, without a file-system code.
    await session.saveResults(runDir, undefined, runJson({}, { schemaVersion: 99 }));
    expect(told()).toEqual([
      expect.stringMatching(/^warning: report\.html not written \(.*schemaVersion 99/),
    ]);
    expect(existsSync(path.join(runDir.dir, 'report.html'))).toBe(false);
    expect(session.exitCodeOf([COMPLETED])).toBe(0);
  });
});

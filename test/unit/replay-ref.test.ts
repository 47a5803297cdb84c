/**
 * A replay's ref in the workload registry (replay/replay-ref.ts): a worker thread makes the same
 * replay workload again from it (registry.ts `findWorkload`), from the capture file and the speed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseReplayRef, replayRef } from '../../src/replay/replay-ref.js';
import { openReplay } from '../../src/replay/replay-workload.js';
import { findWorkload, isWorkloadPath, workloadRef } from '../../src/workloads/registry.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-replay-ref-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A capture of one PostgreSQL session sending two statements of two templates. */
async function capture(): Promise<string> {
  const file = path.join(dir, 'two:templates.ndjson');
  const records = [
    {
      type: 'header',
      format: 'txbench-workload',
      version: 1,
      source: { kind: 'postgres', from: 'csvlog' },
      captureStart: '2026-12-01T00:00:00.000Z',
      redacted: false,
      tool: 'test',
    },
    {
      type: 'session',
      id: 1,
      user: null,
      database: null,
      application: null,
      startedBeforeCapture: false,
      connectAtMs: 0,
    },
    { type: 'statement', session: 1, atMs: 0, sql: 'select 1', durationMs: 0.1, outcome: 'ok' },
    {
      type: 'statement',
      session: 1,
      atMs: 5,
      sql: 'select * from t where id = 2',
      durationMs: 0.1,
      outcome: 'ok',
    },
    { type: 'disconnect', session: 1, atMs: 10 },
  ];
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

describe('a replay ref', () => {
  it('holds the capture file, made absolute, and the speed, max included', () => {
    expect(parseReplayRef(replayRef('captures/a:b.ndjson', 2.5))).toEqual({
      file: path.resolve('captures/a:b.ndjson'),
      speed: 2.5,
    });
    expect(parseReplayRef(replayRef('/tmp/c.ndjson.gz', Infinity))).toEqual({
      file: '/tmp/c.ndjson.gz',
      speed: Infinity,
    });
  });

  it('a malformed one is a usage error', () => {
    for (const bad of ['replay:', 'replay:/tmp/c.ndjson', 'replay:0:/tmp/c.ndjson', 'replay:fast:/tmp/c'])
      expect(() => parseReplayRef(bad), bad).toThrow(UsageError);
  });

  it('is what the registry makes the same replay workload again from, as a worker thread does', async () => {
    const { workload } = await openReplay(await capture(), { speed: 2, maxErrorRatePct: null });
    const ref = workload.ref!;
    expect(ref).toMatch(/^replay:2:\//);
    // Not a workload file's path: a worker is handed it as it is.
    expect(isWorkloadPath(ref)).toBe(false);
    expect(workloadRef(ref)).toBe(ref);
    const again = await findWorkload(ref);
    expect(again.name).toBe('replay');
    expect(again.ref).toBe(ref);
    expect(again.profiles).toEqual(workload.profiles);
    expect(again.profiles).toHaveLength(4);
  });
});

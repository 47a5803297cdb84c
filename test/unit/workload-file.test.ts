import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptureBuilder } from '../../src/capture/builder.js';
import { readWorkload, WorkloadWriter } from '../../src/capture/file-io.js';
import { WORKLOAD_VERSION, type WorkloadRecord } from '../../src/capture/format.js';
import { UsageError } from '../../src/errors.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-wl-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(file: string): Promise<WorkloadRecord[]> {
  const out: WorkloadRecord[] = [];
  for await (const r of readWorkload(file)) out.push(r);
  return out;
}

async function build(file: string, redact: boolean): Promise<void> {
  const builder = new CaptureBuilder(await WorkloadWriter.create(file), {
    kind: 'postgres',
    from: 'csvlog',
    redact,
  });
  const t0 = Date.parse('2024-05-01T10:00:00Z');
  await builder.add({
    kind: 'session',
    key: 'a',
    user: 'app',
    database: 'shop',
    application: 'web',
    atMs: t0,
    startedBeforeCapture: false,
  });
  await builder.add({
    kind: 'statement',
    key: 'a',
    startMs: t0 + 5,
    sql: 'BEGIN',
    durationMs: 0.01,
    outcome: 'ok',
  });
  await builder.add({
    kind: 'statement',
    key: 'a',
    startMs: t0 + 6,
    sql: "select * from customer where name = 'Alice' and id = $1",
    params: ['42'],
    prepared: true,
    durationMs: 0.5,
    outcome: 'ok',
  });
  await builder.add({
    kind: 'statement',
    key: 'a',
    startMs: t0 + 7,
    sql: 'commit',
    durationMs: 1,
    outcome: 'ok',
  });
  // A session whose connection was before the capture: first seen through a statement.
  await builder.add({
    kind: 'statement',
    key: 'b',
    startMs: t0 + 8,
    sql: 'insert into t values (1)',
    durationMs: null,
    outcome: 'error',
    error: { code: '23505', message: 'duplicate key value' },
    session: { user: 'batch', database: 'shop', application: null },
  });
  await builder.add({ kind: 'disconnect', key: 'a', atMs: t0 + 20 });
  await builder.finish();
}

describe('workload file', () => {
  it('writes a header, sessions, statements with boundaries, a disconnect and a trailer, and reads them back', async () => {
    const file = path.join(dir, 'plain.ndjson');
    await build(file, false);
    const records = await readAll(file);
    expect(records.map((r) => r.type)).toEqual([
      'header',
      'session',
      'statement',
      'statement',
      'statement',
      'session',
      'statement',
      'disconnect',
      'trailer',
    ]);
    const header = records[0]!;
    expect(header).toMatchObject({
      format: 'txbench-workload',
      version: WORKLOAD_VERSION,
      source: { kind: 'postgres', from: 'csvlog' },
      captureStart: '2024-05-01T10:00:00.000Z',
      redacted: false,
    });
    const statements = records.filter((r) => r.type === 'statement');
    expect(statements.map((s) => s.tx)).toEqual(['begin', undefined, 'commit', undefined]);
    expect(statements[1]).toMatchObject({ atMs: 6, params: ['42'], prepared: true, durationMs: 0.5 });
    expect(statements[3]).toMatchObject({ session: 2, outcome: 'error', error: { code: '23505' } });
    expect(records[5]).toMatchObject({
      type: 'session',
      id: 2,
      user: 'batch',
      startedBeforeCapture: true,
      connectAtMs: null,
    });
    expect(records.at(-1)).toMatchObject({
      type: 'trailer',
      counts: { sessions: 2, statements: 4, sessionsBeforeCapture: 1 },
      endMs: 20,
    });
  });

  it('gzips a file whose name ends in .gz, and reads it back by its content', async () => {
    const file = path.join(dir, 'zipped.ndjson.gz');
    await build(file, false);
    const raw = await readFile(file);
    expect(gunzipSync(raw).toString('utf8').split('\n')[0]).toContain('"txbench-workload"');
    expect((await readAll(file)).length).toBe(9);
  });

  it('--redact-literals leaves no literal, parameter or error message, and says so in the header', async () => {
    const file = path.join(dir, 'redacted.ndjson');
    await build(file, true);
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain('Alice');
    expect(text).not.toContain('"42"');
    expect(text).not.toContain('duplicate key');
    const records = await readAll(file);
    expect(records[0]).toMatchObject({ redacted: true });
    const statements = records.filter((r) => r.type === 'statement');
    expect(statements[1]).toMatchObject({
      sql: 'select * from customer where name = ?str and id = $1',
      params: ['?int'],
    });
    expect(statements[3]).toMatchObject({ sql: 'insert into t values (?int)' });
  });

  it('refuses a file of a newer version with one line naming both versions', async () => {
    const file = path.join(dir, 'newer.ndjson');
    await writeFile(
      file,
      JSON.stringify({ type: 'header', format: 'txbench-workload', version: WORKLOAD_VERSION + 1 }) + '\n',
    );
    const err = await readAll(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(2);
    expect((err as Error).message).toMatch(
      new RegExp(`version ${WORKLOAD_VERSION + 1}.*up to ${WORKLOAD_VERSION}.*upgrade txbench`),
    );
    expect((err as Error).message).not.toContain('\n');
  });

  it.each([
    ['a log instead of a workload', '2024-05-01 10:00:00.000 UTC,"u","d",1\n'],
    ['JSON that is not a workload', '{"type":"run","schemaVersion":3}\n'],
    ['an empty file', ''],
  ])('refuses %s with one line', async (_what, content) => {
    const file = path.join(dir, 'bad.ndjson');
    await writeFile(file, content);
    const err = await readAll(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).not.toContain('\n');
  });

  it('a file that does not exist is one line naming it', async () => {
    const err = await readAll(path.join(dir, 'missing.ndjson')).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/cannot read the workload file .*missing\.ndjson \(ENOENT\)/);
  });
});

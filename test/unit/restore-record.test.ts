import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordFile, restorePending, saveRecord } from '../../src/capture/restore-record.js';
import { ExitCode, TxbenchError } from '../../src/errors.js';

describe('capture restore record', () => {
  let dir: string;
  const previous = process.env.TXBENCH_STATE_DIR;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-restore-'));
    process.env.TXBENCH_STATE_DIR = dir;
  });
  afterEach(async () => {
    if (previous === undefined) delete process.env.TXBENCH_STATE_DIR;
    else process.env.TXBENCH_STATE_DIR = previous;
    await rm(dir, { recursive: true, force: true });
  });

  const undo = [
    { what: 'log_min_duration_statement', sql: 'alter system reset log_min_duration_statement' },
    { what: 'configuration reload', sql: 'select pg_reload_conf()' },
  ];

  it('keeps the URL without its password, and runs every step in order once', async () => {
    await saveRecord('postgres 73 /data:5432', 'postgres://admin:s3cret@db1/shop', undo);
    const text = await readFile(recordFile('postgres 73 /data:5432'), 'utf8');
    expect(text).not.toContain('s3cret');
    const ran: string[] = [];
    const restored = await restorePending('postgres 73 /data:5432', (sql) => Promise.resolve(ran.push(sql)));
    expect(ran).toEqual(undo.map((s) => s.sql));
    expect(restored.what).toEqual(['log_min_duration_statement', 'configuration reload']);
    expect(
      (await restorePending('postgres 73 /data:5432', () => Promise.reject(new Error('x')))).what,
    ).toEqual([]);
  });

  it('a step that fails is an error (exit 3) and the record stays to retry', async () => {
    await saveRecord('mysql abc', 'mysql://root@db1/x', undo);
    const failing = restorePending('mysql abc', () => Promise.reject(new Error('connection lost')));
    await expect(failing).rejects.toThrow(/could not put back log_min_duration_statement.*connection lost/);
    await expect(failing).rejects.toSatisfy(
      (e) => e instanceof TxbenchError && e.exitCode === ExitCode.database,
    );
    expect((await restorePending('mysql abc', () => Promise.resolve())).what).toHaveLength(2);
  });
});

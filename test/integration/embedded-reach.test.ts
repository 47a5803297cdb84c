/**
 * As root the embedded server runs as the `postgres` user: a data directory below a directory that
 * user cannot enter is refused at once with one line saying what to change, before any initdb.
 */
import { chmod, mkdir, readdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli } from './helpers.js';

let dir: string;

beforeAll(async () => {
  dir = await makeTempDir();
});

afterAll(async () => {
  await removeDir(dir);
});

describe.runIf(userInfo().uid === 0)('embedded server reachability as root', () => {
  it('refuses a data directory the postgres user cannot reach, with one line and exit 2', async () => {
    const closed = path.join(dir, 'closed');
    await mkdir(closed, { mode: 0o700 });
    await chmod(closed, 0o700);
    const dataDir = path.join(closed, 'data');
    const result = await runCli(dir, ['load', '--warehouses', '1', '--data-dir', dataDir]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`cannot enter ${closed}`);
    expect(lines[0]).toContain('chmod o+x');
    expect(await readdir(dataDir)).toEqual([]);
  });
});

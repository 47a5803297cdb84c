/**
 * The built CLI (`node bin/txbench.js`) as a user runs it: exit codes (0 ok, 1 check failed,
 * 2 usage, 3 database), one-line errors without stack traces, and no password in any output.
 *
 * An in-process embedded server (never loaded) serves the `--db URL` cases. The load/check/drop
 * flow drives its own data directory through `--data-dir`, so that only one server at a time
 * owns that directory.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../../dist/targets/embedded.js';
import {
  makeTempDir,
  removeDir,
  startTempServer,
  type TempServer,
  runCli as runCliIn,
  type CliResult,
} from './helpers.js';

let cwd: string;

const runCli = (args: string[], timeoutMs?: number): Promise<CliResult> => runCliIn(cwd, args, timeoutMs);

/** An error run: the exit code, and exactly one line on stderr that names the command, no stack. */
function expectOneLineError(r: CliResult, code: number, pattern?: RegExp): string {
  const context = JSON.stringify(r);
  expect(r.timedOut, context).toBe(false);
  expect(r.code, context).toBe(code);
  expect(r.stderr, context).not.toContain('    at ');
  const lines = r.stderr.trim().split('\n');
  expect(lines, context).toHaveLength(1);
  expect(lines[0], context).toMatch(/^txbench( [a-z]+)?: /);
  if (pattern) expect(lines[0]).toMatch(pattern);
  return lines[0]!;
}

beforeAll(async () => {
  cwd = await makeTempDir('txbench-cli-cwd-');
});

afterAll(async () => {
  await removeDir(cwd);
});

describe('usage errors exit 2 before touching any database', () => {
  it.each([
    [['load', '--warehouses', '0'], /--warehouses must be a whole number/],
    [['load', '--warehouses', 'abc'], /--warehouses must be a whole number.*"abc"/],
    [['load'], /--warehouses is required/],
    [['load', '--nope'], /unknown flag --nope/],
    [['check', 'extra'], /unexpected argument extra/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['check', '--db', 'oracle://u:sekret@h/db'], /postgres:\/\//],
  ])('txbench %j', async (args, pattern) => {
    const r = await runCli(args);
    const line = expectOneLineError(r, 2, pattern);
    expect(line).not.toContain('sekret');
  });

  it('an unwritable --data-dir (parent is a file) exits 2', async () => {
    const file = path.join(cwd, 'a-file');
    await writeFile(file, 'not a directory\n');
    const r = await runCli(['load', '--warehouses', '1', '--data-dir', path.join(file, 'pg')]);
    expectOneLineError(r, 2, /data directory .* is not writable/);
  });

  // procfs answers mkdir with ENOENT, which sends Node's recursive mkdir into an endless loop.
  it('an unwritable --data-dir under /proc exits 2 promptly', async () => {
    const r = await runCli(['load', '--warehouses', '1', '--data-dir', '/proc/txbench-nope'], 10_000);
    expectOneLineError(r, 2, /data directory .* is not writable/);
  });
});

describe('database errors exit 3 and never print the password', () => {
  let pg: TempServer;

  beforeAll(async () => {
    pg = await startTempServer();
  });

  afterAll(async () => {
    await pg?.stop();
  });

  it('an unreachable server', async () => {
    const r = await runCli(['check', '--db', 'postgres://u:sekret@127.0.0.1:1/db']);
    expectOneLineError(r, 3, /127\.0\.0\.1:1/);
    expect(r.stdout + r.stderr).not.toContain('sekret');
  });

  it('a wrong password against a live server', async () => {
    const url = new URL(pg.url);
    const port = url.port;
    url.password = 'wrongpass';
    const r = await runCli(['check', '--db', url.toString()]);
    expectOneLineError(r, 3, new RegExp(`password authentication failed.*127\\.0\\.0\\.1:${port}`));
    expect(r.stdout + r.stderr).not.toContain('wrongpass');
    expect(r.stdout + r.stderr).not.toContain(pg.server.password);
  });

  it('check on an empty database exits 2 and says to load first', async () => {
    const r = await runCli(['check', '--db', pg.url]);
    expectOneLineError(r, 2, /txbench load/);
    expect(r.stdout + r.stderr).not.toContain(pg.server.password);
  });
});

describe('load, check, drop through --data-dir', () => {
  let dir: string;
  let dataDir: string;
  let secret: string;

  /** Everything a run printed must be free of the cluster's password. */
  function expectNoSecret(r: CliResult): void {
    expect(secret.length).toBeGreaterThan(8);
    expect(r.stdout + r.stderr).not.toContain(secret);
  }

  beforeAll(async () => {
    dir = await makeTempDir();
    dataDir = path.join(dir, 'pg');
  });

  afterAll(async () => {
    await removeDir(dir);
  });

  it('load --warehouses 1 creates the cluster and loads it (exit 0)', async () => {
    const r = await runCli(['load', '--warehouses', '1', '--seed', '11', '--data-dir', dataDir], 110_000);
    expect(r.code, JSON.stringify(r)).toBe(0);
    secret = (await readFile(path.join(dataDir, 'txbench.secret'), 'utf8')).trim();
    expectNoSecret(r);
    expect(r.stderr).not.toContain('    at ');
  });

  it('check --after-load passes everything (exit 0)', async () => {
    const r = await runCli(['check', '--after-load', '--data-dir', dataDir]);
    expect(r.code, JSON.stringify(r)).toBe(0);
    expect(r.stdout).not.toContain('FAIL');
    expect(r.stdout).toMatch(/all \d+ checks passed/);
    expectNoSecret(r);
  });

  it('a second load is refused (exit 2) and points at `txbench drop`', async () => {
    const r = await runCli(['load', '--warehouses', '1', '--data-dir', dataDir]);
    expect(r.code, JSON.stringify(r)).toBe(2);
    expect(r.stderr).not.toContain('    at ');
    const errors = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('txbench load:'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/txbench drop/);
    expectNoSecret(r);
  });

  it('check exits 1 and prints FAIL after W_YTD is changed', async () => {
    // The CLI has stopped its server: start one in-process on the same directory, corrupt, stop.
    const server = await startEmbedded(dataDir, { create: true });
    try {
      const sql = postgres(server.url, { max: 1, onnotice: () => undefined });
      try {
        await sql`update warehouse set w_ytd = w_ytd + 1 where w_id = 1`;
      } finally {
        await sql.end({ timeout: 5 });
      }
    } finally {
      await server.stop();
    }
    const json = path.join(dir, 'check.json');
    const r = await runCli(['check', '--data-dir', dataDir, '--json', json]);
    expect(r.code, JSON.stringify(r)).toBe(1);
    expect(r.stdout).toMatch(/^FAIL\s+1\s/m);
    expect(r.stdout).toMatch(/^FAIL\s+8\s/m);
    expect(r.stdout).toMatch(/^PASS\s+2\s/m);
    expect(r.stdout).toMatch(/FAILED/);
    expect(r.stderr).not.toContain('    at ');
    expectNoSecret(r);
    const report = JSON.parse(await readFile(json, 'utf8')) as { checks: { id: string; pass: boolean }[] };
    expect(report.checks.filter((c) => !c.pass).map((c) => c.id)).toEqual(['1', '8']);
  });

  it('drop exits 0, after which check exits 2', async () => {
    const dropped = await runCli(['drop', '--data-dir', dataDir]);
    expect(dropped.code, JSON.stringify(dropped)).toBe(0);
    expectNoSecret(dropped);
    const r = await runCli(['check', '--data-dir', dataDir]);
    expectOneLineError(r, 2, /nothing is loaded/);
    expectNoSecret(r);
  });
});

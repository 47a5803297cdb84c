/**
 * A `--mix` below the spec's minimums is refused by `run`, `steps` and `sweep` before anything
 * starts (exit 2, one line naming the share and the override), not found by the audit afterwards.
 * The target is unreachable on purpose: a refusal must come before any connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli } from './helpers.js';

const NOWHERE = 'postgres://u:sekret@127.0.0.1:1/none';
let cwd: string;

beforeAll(async () => {
  cwd = await makeTempDir('txbench-mix-cwd-');
});

afterAll(async () => {
  await removeDir(cwd);
});

describe('--mix below the minimums exits 2 before touching the database', () => {
  it.each([
    ['run', []],
    ['steps', ['--users', '1,2']],
    ['sweep', ['--set', 'shared_buffers=128MB,256MB']],
  ])('txbench %s', async (command, extra) => {
    const r = await runCli(cwd, [command, '--db', NOWHERE, ...extra, '--mix', '60,30,4,3,3'], 30_000);
    const context = JSON.stringify(r);
    expect(r.timedOut, context).toBe(false);
    expect(r.code, context).toBe(2);
    expect(r.stderr, context).not.toContain('    at ');
    const lines = r.stderr.trim().split('\n');
    expect(lines, context).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^txbench ${command}: --mix 60,30,4,3,3 `));
    expect(lines[0]).toContain('Payment 30% (minimum 43%)');
    expect(lines[0]).toContain('Delivery 3% (minimum 4%)');
    expect(lines[0]).toContain('--allow-nonstandard-mix');
    expect(r.stdout).toBe('');
  });

  it('with --allow-nonstandard-mix the mix passes, and the run goes on to the (unreachable) database', async () => {
    const r = await runCli(
      cwd,
      ['run', '--db', NOWHERE, '--mix', '60,30,4,3,3', '--allow-nonstandard-mix', '--duration', '1s'],
      30_000,
    );
    expect(r.code, JSON.stringify(r)).toBe(3);
    expect(r.stderr).not.toContain('--mix');
    expect(r.stderr).not.toContain('sekret');
  });

  it('`txbench run --help` names the override', async () => {
    const r = await runCli(cwd, ['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--allow-nonstandard-mix');
  });
});

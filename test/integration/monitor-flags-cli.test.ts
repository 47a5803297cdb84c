/**
 * The monitoring flags as a user gives them to the built CLI: every bad value is one line on
 * stderr and exit 2, before any server starts (the data directory is never created).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli } from './helpers.js';

let cwd: string;

beforeAll(async () => {
  cwd = await makeTempDir('txbench-monitor-flags-');
});

afterAll(async () => {
  await removeDir(cwd);
});

describe('monitoring flags: bad input exits 2 with one line, before anything starts', () => {
  it.each([
    [['run', '--device', 'nosuchdisk9'], /--device nosuchdisk9: no such disk on this machine/],
    [['steps', '--users', '1', '--device', 'nosuchdisk9'], /--device nosuchdisk9: no such disk/],
    [['sweep', '--set', 'work_mem=4MB', '--device', 'nosuchdisk9'], /--device nosuchdisk9: no such disk/],
    [['run', '--device', 'mapper/vg-lv'], /--device must be a disk's kernel name/],
    [['run', '--node-exporter', 'db1:9100'], /--node-exporter must be an http:\/\/ or https:\/\/ URL/],
    [['run', '--node-exporter', 'ftp://u:sekret@db1:9100'], /--node-exporter must be/],
    [['run', '--metrics-port', '0'], /--metrics-port must be a whole number from 1 to 65535, not "0"/],
    [['run', '--metrics-port', '70000'], /--metrics-port must be a whole number from 1 to 65535/],
    [['run', '--metrics-host', '0.0.0.0'], /--metrics-host needs --metrics-port/],
    [['run', '--no-monitor', '--device', 'sda'], /--no-monitor turns monitoring off; drop --device/],
    [['run', '--no-monitor=yes'], /--no-monitor does not take a value/],
  ])('txbench %j', async (args, pattern) => {
    const dataDir = path.join(cwd, 'pg');
    const r = await runCli(cwd, [...args, '--data-dir', dataDir]);
    const context = JSON.stringify(r);
    expect(r.timedOut, context).toBe(false);
    expect(r.code, context).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, context).toHaveLength(1);
    expect(lines[0]).toMatch(/^txbench [a-z]+: /);
    expect(lines[0]).toMatch(pattern);
    expect(lines[0]).not.toContain('sekret');
    expect(existsSync(dataDir), 'no server was started').toBe(false);
  });

  it('--help documents every monitoring flag', async () => {
    const r = await runCli(cwd, ['run', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--node-exporter', '--device', '--metrics-port', '--metrics-host', '--no-monitor']) {
      expect(r.stdout).toContain(flag);
    }
  });
});

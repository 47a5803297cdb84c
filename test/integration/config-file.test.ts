/**
 * `--config` end to end on a real PostgreSQL: one file loads and runs a workload, its target's
 * password read from a file; a flag on the command line wins over the file; the password appears
 * in no output and not in run.json.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli, startTempServer, type TempServer } from './helpers.js';
import { runDirOf } from './run-dir-schema.js';

describe('--config on the embedded PostgreSQL', () => {
  let server: TempServer;
  let dir: string;
  let config: string;
  let password: string;

  beforeAll(async () => {
    server = await startTempServer();
    dir = await makeTempDir();
    const url = new URL(server.url);
    password = decodeURIComponent(url.password);
    expect(password.length).toBeGreaterThan(0);
    url.password = '';
    await writeFile(path.join(dir, 'db-password'), `${password}\n`);
    config = path.join(dir, 'study.yaml');
    await writeFile(
      config,
      `workload: tpcb
scale: 1
no-monitor: true
targets:
  - label: pg under test
    url: ${url.toString()}
    passwordFile: ${path.join(dir, 'db-password')}
run:
  terminals: 3
  connections: 2
  warmup: 1s
  duration: 30s
  out: ${path.join(dir, 'results')}
`,
    );
  });
  afterAll(async () => {
    await server?.stop();
    await removeDir(dir);
  });

  it('loads and runs from the file; --duration on the command line wins', async () => {
    const load = await runCli(dir, ['load', '--config', config], 180_000);
    expect(load.code, load.stderr).toBe(0);
    expect(load.stdout).toContain('pg under test');
    const run = await runCli(dir, ['run', '--config', config, '--duration', '3s'], 120_000);
    expect(run.code, run.stderr).toBe(0);
    const runDir = runDirOf(run.stdout);
    expect(path.dirname(runDir)).toBe(path.join(dir, 'results'));
    const text = await readFile(path.join(runDir, 'run.json'), 'utf8');
    const report = JSON.parse(text) as {
      config: { target: string; terminals: number; connections: number; durationS: number; warmupS: number };
      workload: string;
    };
    expect(report.config).toMatchObject({
      target: 'pg under test',
      terminals: 3,
      connections: 2,
      durationS: 3,
      warmupS: 1,
    });
    expect(report.workload).toBe('tpcb');
    for (const output of [load.stdout, load.stderr, run.stdout, run.stderr, text]) {
      expect(output).not.toContain(password);
    }
  });
});

describe('--config: bad files through the built CLI', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir();
  });
  afterAll(async () => {
    await removeDir(dir);
  });

  it('exits 2 with one line per problem and nothing else on stderr', async () => {
    const config = path.join(dir, 'bad.yaml');
    await writeFile(
      config,
      'warmup: soon\ntargets:\n  - url: mysql://root:hunter2@db/tpcc\nrun:\n  terminal: 10\n',
    );
    const run = await runCli(dir, ['run', '--config', config]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      `txbench run: config ${config}: warmup: must be a duration such as 30s, 5m, 2h or 1h30m (a bare number is seconds), or auto / auto:MAX to end on steady state`,
      `txbench run: config ${config}: run.terminal: unknown key: not an option of txbench run; keys are long flag names such as think-scale`,
      `txbench run: config ${config}: targets[0].url: has a password in it, which is refused; take it out and name passwordEnv or passwordFile`,
    ]);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain('hunter2');
    const missing = await runCli(dir, ['load', '--config', path.join(dir, 'nope.yml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});

/**
 * The reviewers' protocol through the CLI: user-count steps, two targets driven at once and added
 * up, and a sweep of a server setting that needs a restart, on real embedded PostgreSQL servers.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTpcc } from '../../dist/workloads/tpcc/loader.js';
import {
  cleanEnv,
  makeTempDir,
  removeDir,
  REPO_ROOT,
  startTempServer,
  withDatabase,
  type TempServer,
} from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';

interface Summary {
  tps: number;
  tpmC: number;
  clientCpu: { coresUsed: number; usPerTransaction: number } | null;
}

function txbench(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin/txbench.js'), ...args], {
    cwd: REPO_ROOT,
    env: cleanEnv(),
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const WINDOW = ['--warmup', '1s', '--duration', '4s', '--interval', '60s'];
const SHORT = [...WINDOW, '--think-scale', '0'];

describe('steps and two targets on one PostgreSQL server', () => {
  let pg: TempServer;
  let dir: string;
  let vm1: string;
  let vm2: string;

  beforeAll(async () => {
    pg = await startTempServer();
    dir = await makeTempDir('txbench-protocol-');
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    await admin.unsafe('create database vm1');
    await admin.unsafe('create database vm2');
    await admin.end();
    vm1 = withDatabase(pg.url, 'vm1');
    vm2 = withDatabase(pg.url, 'vm2');
    await loadTpcc(vm1, { warehouses: 1, seed: 1 });
    await loadTpcc(vm2, { warehouses: 1, seed: 2 });
  });

  afterAll(async () => {
    await pg?.stop();
    await removeDir(dir);
  });

  it('steps give one row per user count, and paced TPS rises with users', async () => {
    const json = path.join(dir, 'steps.json');
    // Paced (keying and think times at 1/500 of the spec's, a cycle of about 40 ms): unpaced, one
    // user on one warehouse already fills two cores, and four contend for its rows, so whether
    // four beat one depended on the machine. Paced, four users offer four times the load.
    const r = txbench([
      'steps',
      '--db',
      vm1,
      '--users',
      '1,4',
      ...WINDOW,
      '--think-scale',
      '0.002',
      '--out',
      dir,
      '--json',
      json,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/knee/);
    expect(r.stdout).toMatch(/^users\s+TPS\s+avg response ms\s+device MB\/s\s+device latency ms\s/m);
    // The server is on this machine: its disk is watched, so the device columns carry figures.
    expect(r.stdout).toMatch(/^4\s+[\d.,]+\s+[\d.,]+\s+[\d.,]+\s+[\d.,]+\s/m);
    const steps = (
      JSON.parse(await readFile(json, 'utf8')) as { steps: { users: number; summary: Summary }[] }
    ).steps;
    expect(steps.map((s) => s.users)).toEqual([1, 4]);
    const [one, four] = [steps[0]!.summary.tps, steps[1]!.summary.tps];
    expect(four, `paced TPS: 1 user ${one}, 4 users ${four}`).toBeGreaterThan(2 * one);
    await expectValidRunDir(runDirOf(r.stdout), 'steps');
  });

  it('two targets driven at once report each target, and the sum equals their figures added', async () => {
    const json = path.join(dir, 'targets.json');
    const r = txbench([
      'run',
      '--db',
      vm1,
      '--label',
      'vm1',
      '--db',
      vm2,
      '--label',
      'vm2',
      '--terminals',
      '3',
      ...SHORT,
      '--out',
      dir,
      '--json',
      json,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/all 2 \(sum\)/);
    expect(r.stdout).not.toContain(new URL(pg.url).password);
    const out = JSON.parse(await readFile(json, 'utf8')) as {
      summary: Summary;
      targets: { label: string; summary: Summary }[];
    };
    expect(out.targets.map((t) => t.label)).toEqual(['vm1', 'vm2']);
    for (const t of out.targets) expect(t.summary.tps).toBeGreaterThan(0);
    expect(out.summary.tps).toBeCloseTo(out.targets[0]!.summary.tps + out.targets[1]!.summary.tps, 1);
    expect(out.summary.tpmC).toBe(out.targets[0]!.summary.tpmC + out.targets[1]!.summary.tpmC);
    // One process drives both: its CPU is reported once, for the sum, and charged to neither target.
    for (const t of out.targets) expect(t.summary.clientCpu).toBeNull();
    expect(out.summary.clientCpu?.usPerTransaction).toBeGreaterThan(0);
    expect(r.stdout.match(/cores/g)).toHaveLength(1);
    await expectValidRunDir(runDirOf(r.stdout), 'targets');
  });
});

describe('a sweep of shared_buffers on the embedded server', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await makeTempDir('txbench-sweep-');
    const load = txbench(['load', '--warehouses', '1', '--data-dir', path.join(dir, 'pg')]);
    expect(load.status, load.stderr).toBe(0);
  });

  afterAll(async () => {
    await removeDir(dir);
  });

  it('reports one row per value, each run under the value it was given', async () => {
    const json = path.join(dir, 'sweep.json');
    const r = txbench([
      'sweep',
      '--data-dir',
      path.join(dir, 'pg'),
      '--set',
      'shared_buffers=64MB,256MB',
      '--terminals',
      '3',
      ...SHORT,
      '--out',
      dir,
      '--json',
      json,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(await readFile(json, 'utf8')) as {
      sweep: {
        setting: string;
        value: string;
        summary: Summary;
        report: { environment: { database: { settings: Record<string, string> } } };
      }[];
    };
    expect(r.stdout).toMatch(/^shared_buffers\s+TPS\s+avg response ms\s+device MB\/s\s+device latency ms\s/m);
    expect(r.stdout).toMatch(/^256MB\s+[\d.,]+\s+[\d.,]+\s+[\d.,]+\s+[\d.,]+\s/m);
    expect(out.sweep.map((s) => `${s.setting}=${s.value}`)).toEqual([
      'shared_buffers=64MB',
      'shared_buffers=256MB',
    ]);
    // 8 kB pages: 64 MB = 8192, 256 MB = 32768
    expect(out.sweep.map((s) => s.report.environment.database.settings.shared_buffers)).toEqual([
      '8192 8kB',
      '32768 8kB',
    ]);
    for (const s of out.sweep) expect(s.summary.tps).toBeGreaterThan(0);
    await expectValidRunDir(runDirOf(r.stdout), 'sweep');
  });
});

/**
 * A replay is a run like any other (issue 31, item 3): on a real embedded PostgreSQL, a workload
 * file replayed by `txbench replay` prints the device line, serves the live dashboard
 * (--dashboard) and the Prometheus endpoint (--metrics-port) while it goes on, honours
 * --on-error as `txbench run` documents it (continue: a lost connection fails its statement and
 * the session goes on, on a new one; stop: the replay ends there, exit 3), and writes report.html
 * into its run directory.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../free-port.js';
import { makeTempDir, removeDir, runCli, spawnCli, startTempServer, type TempServer } from './helpers.js';
import { expectValidRunDir, runDirOf } from './run-dir-schema.js';

let server: TempServer;
let dir: string;

beforeAll(async () => {
  server = await startTempServer();
  dir = await makeTempDir('txbench-replay-run-');
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await removeDir(dir);
});

/** A workload file of one PostgreSQL session: its statements at their offsets (ms), all succeeded. */
async function workloadFile(name: string, statements: [number, string][]): Promise<string> {
  const file = path.join(dir, name);
  const last = statements.at(-1)![0];
  const records = [
    {
      type: 'header',
      format: 'txbench-workload',
      version: 1,
      source: { kind: 'postgres', from: 'csvlog' },
      captureStart: new Date().toISOString(),
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
    ...statements.map(([atMs, sql]) => ({
      type: 'statement',
      session: 1,
      atMs,
      sql,
      durationMs: 0.1,
      outcome: 'ok',
    })),
    { type: 'disconnect', session: 1, atMs: last + 100 },
  ];
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/** Writes spread over about `seconds` (two a second), so that the replay lasts that long. */
function writesOver(seconds: number): [number, string][] {
  const out: [number, string][] = [[0, 'create table if not exists replayed (id int, pad text)']];
  for (let i = 1; i <= seconds * 2; i++) {
    out.push([i * 500, `insert into replayed select g, repeat('x', 200) from generate_series(1, 2000) g`]);
  }
  return out;
}

describe('txbench replay on the run path', () => {
  /** One replay of writes, monitored as any run is: its output and its run directory. */
  let monitored: { stdout: string; runDir: string };
  beforeAll(async () => {
    const file = await workloadFile('writes.ndjson', writesOver(3));
    const r = await runCli(
      dir,
      ['replay', file, '--db', server.url, '--interval', '1s', '--out', path.join(dir, 'results')],
      120_000,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^(FAITHFUL|DIVERGED): /m);
    monitored = { stdout: r.stdout, runDir: runDirOf(r.stdout) };
  }, 180_000);

  it('prints the device line, and keeps the device figures in run.json beside the fidelity', async () => {
    expect(monitored.stdout).toMatch(
      /storage \S+ \((data\+log|data)\): read .* write [\d.,]+ IOPS [\d.]+ MB\/s/,
    );
    const run = JSON.parse(await readFile(path.join(monitored.runDir, 'run.json'), 'utf8')) as {
      workload: string;
      summary: { devices?: unknown[] };
      fidelity: { statements: { captured: number; replayed: number } };
    };
    expect(run.workload).toBe('replay');
    expect(run.summary.devices?.length).toBeGreaterThan(0);
    expect(run.fidelity.statements).toMatchObject({ captured: 7, replayed: 7 });
  });

  it('writes report.html into its run directory as any run: the device charts and the fidelity', async () => {
    await expectValidRunDir(monitored.runDir, 'run');
    const report = await readFile(path.join(monitored.runDir, 'report.html'), 'utf8');
    expect(report).toContain('Device I/O operations per second');
    expect(report).toContain('Replay fidelity');
  });

  it('serves the live dashboard (--dashboard) and Prometheus metrics (--metrics-port) while it replays', async () => {
    const file = await workloadFile('live.ndjson', writesOver(8));
    const port = await freePort();
    const cli = spawnCli(dir, [
      'replay',
      file,
      '--db',
      server.url,
      '--interval',
      '1s',
      '--dashboard',
      '--metrics-port',
      String(port),
      '--out',
      path.join(dir, 'results'),
    ]);
    await cli.untilStderr((s) => /^dashboard: http:\/\/127\.0\.0\.1:\d+\/$/m.test(s) && / measure\]/.test(s));
    const dashboard = /^dashboard: (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(cli.stderr())![1]!;
    const page = await fetch(dashboard);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^txbench_transactions_total\{[^}]*outcome="ok"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^txbench_terminals\{[^}]*\} 1$/m);
    expect(await cli.exit, cli.stderr()).toBe(0);
  }, 180_000);

  // A captured statement that loses its connection on replay (it terminates its own backend).
  const dying: [number, string][] = [
    [0, 'select 1'],
    [100, 'select pg_terminate_backend(pg_backend_pid())'],
    [200, 'select 2'],
    [300, 'select 3'],
  ];

  it('--on-error continue: the lost connection fails its statement, the session goes on on a new one', async () => {
    const file = await workloadFile('dying-continue.ndjson', dying);
    const r = await runCli(
      dir,
      ['replay', file, '--db', server.url, '--on-error', 'continue', '--out', path.join(dir, 'results')],
      120_000,
    );
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(await readFile(path.join(runDirOf(r.stdout), 'run.json'), 'utf8')) as {
      status: string;
      faults: { onError: string };
      errors: Record<string, number>;
      fidelity: { statements: { replayed: number; asCaptured: number; unexpectedErrors: number } };
    };
    expect(run.status).toBe('completed');
    expect(run.faults.onError).toBe('continue');
    expect(run.errors.connection).toBe(1);
    expect(run.fidelity.statements).toMatchObject({ replayed: 4, asCaptured: 3, unexpectedErrors: 1 });
  }, 180_000);

  it('--on-error stop: the replay ends at the lost connection, exit 3', async () => {
    const file = await workloadFile('dying-stop.ndjson', dying);
    const r = await runCli(
      dir,
      ['replay', file, '--db', server.url, '--on-error', 'stop', '--out', path.join(dir, 'results')],
      120_000,
    );
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/lost the database connection/);
    const runDir = runDirOf(r.stdout);
    expect(existsSync(path.join(runDir, 'run.json'))).toBe(true);
    const run = JSON.parse(await readFile(path.join(runDir, 'run.json'), 'utf8')) as {
      status: string;
      faults: { onError: string };
      fidelity: { statements: { replayed: number } };
    };
    expect(run.status).toBe('failed');
    expect(run.faults.onError).toBe('stop');
    // `select 2` and `select 3` were never sent.
    expect(run.fidelity.statements.replayed).toBe(2);
  }, 180_000);
});

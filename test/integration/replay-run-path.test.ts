/**
 * A replay is a run like any other (issue 31, item 3): on a real embedded PostgreSQL, a workload
 * file replayed by `txbench replay` prints the device line, serves the live dashboard
 * (--dashboard) and the Prometheus endpoint (--metrics-port) while it goes on, honours
 * --on-error as `txbench run` documents it (continue: a lost connection fails its statement and
 * the session goes on, on a new one; stop: the replay ends there, exit 3), writes report.html
 * into its run directory, and drives its sessions over worker threads (--workers), each session
 * on one thread.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../free-port.js';
import { makeTempDir, removeDir, spawnCli, startTempServer, type TempServer } from './helpers.js';
import { freshDatabase, replayCli, runJsonOf, writeWorkload, type Captured } from './replay-fixture.js';
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
function workloadFile(name: string, statements: Captured[]): Promise<string> {
  return writeWorkload(path.join(dir, name), [statements]);
}

/** What the workers test reads of a replay's run.json. */
interface WorkersRun {
  config: { workers: number; workerSlices: { count: number }[] };
  fidelity: {
    statements: Record<string, number>;
    transactions: { captured: number; replayed: number };
    templates: { id: string; captured: { count: number }; replayed: { count: number } }[];
  };
}

/** Writes spread over about `seconds` (two a second), so that the replay lasts that long. */
function writesOver(seconds: number): Captured[] {
  const out: Captured[] = [[0, 'create table if not exists replayed (id int, pad text)']];
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
    const r = await replayCli(dir, file, server.url, ['--interval', '1s']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^(FAITHFUL|DIVERGED): /m);
    monitored = { stdout: r.stdout, runDir: runDirOf(r.stdout) };
  }, 180_000);

  it('prints the device line, and keeps the device figures in run.json beside the fidelity', async () => {
    expect(monitored.stdout).toMatch(
      /storage \S+ \((data\+log|data)\): read .* write [\d.,]+ IOPS [\d.]+ MB\/s/,
    );
    const run = await runJsonOf<{
      workload: string;
      summary: { devices?: unknown[] };
      fidelity: { statements: { captured: number; replayed: number } };
    }>(monitored.stdout);
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
  const dying: Captured[] = [
    [0, 'select 1'],
    [100, 'select pg_terminate_backend(pg_backend_pid())'],
    [200, 'select 2'],
    [300, 'select 3'],
  ];

  it('--on-error continue: the lost connection fails its statement, the session goes on on a new one', async () => {
    const file = await workloadFile('dying-continue.ndjson', dying);
    const r = await replayCli(dir, file, server.url, ['--on-error', 'continue']);
    expect(r.code, r.stderr).toBe(0);
    const run = await runJsonOf<{
      status: string;
      faults: { onError: string };
      errors: Record<string, number>;
      fidelity: { statements: { replayed: number; asCaptured: number; unexpectedErrors: number } };
    }>(r.stdout);
    expect(run.status).toBe('completed');
    expect(run.faults.onError).toBe('continue');
    expect(run.errors.connection).toBe(1);
    expect(run.fidelity.statements).toMatchObject({ replayed: 4, asCaptured: 3, unexpectedErrors: 1 });
  }, 180_000);

  it('--on-error stop: the replay ends at the lost connection, exit 3', async () => {
    const file = await workloadFile('dying-stop.ndjson', dying);
    const r = await replayCli(dir, file, server.url, ['--on-error', 'stop']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/lost the database connection/);
    expect(existsSync(path.join(runDirOf(r.stdout), 'run.json'))).toBe(true);
    const run = await runJsonOf<{
      status: string;
      faults: { onError: string };
      fidelity: { statements: { replayed: number } };
    }>(r.stdout);
    expect(run.status).toBe('failed');
    expect(run.faults.onError).toBe('stop');
    // `select 2` and `select 3` were never sent.
    expect(run.fidelity.statements.replayed).toBe(2);
  }, 180_000);

  it('--workers 2: every session replayed once, in its order, on one connection; the same statements as over one worker', async () => {
    // Four sessions, two a worker, at once: each inserts its steps in order, naming its
    // connection, then counts them.
    const sessions = [1, 2, 3, 4].map((s): Captured[] => [
      ...[1, 2, 3, 4].map((seq): Captured => [
        seq * 40 + s,
        `insert into worked (session, seq, pid) values (${s}, ${seq}, pg_backend_pid())`,
      ]),
      [200 + s, `select count(*) from worked where session = ${s}`],
    ]);
    const file = await writeWorkload(path.join(dir, 'sessions.ndjson'), sessions);
    const replayOver = async (
      workers: number,
    ): Promise<{
      runDir: string;
      run: WorkersRun;
      rows: { session: number; seq: number; pid: number }[];
    }> => {
      const db = await freshDatabase(server.url, `over_${workers}_workers`);
      const sql = postgres(db, { max: 1, onnotice: () => undefined });
      try {
        await sql.unsafe('create table worked (n bigserial primary key, session int, seq int, pid int)');
        const r = await replayCli(dir, file, db, ['--workers', String(workers)]);
        expect(r.code, r.stderr).toBe(0);
        const rows = await sql<{ session: number; seq: number; pid: number }[]>`
          select session, seq, pid from worked order by n`;
        return { runDir: runDirOf(r.stdout), run: await runJsonOf<WorkersRun>(r.stdout), rows: [...rows] };
      } finally {
        await sql.end();
      }
    };
    const one = await replayOver(1);
    const two = await replayOver(2);
    expect(one.run.config.workers).toBe(1);
    expect(two.run.config.workers).toBe(2);
    expect(two.run.config.workerSlices.map((s) => s.count)).toEqual([2, 2]);
    await expectValidRunDir(two.runDir, 'run');
    const counts = (run: WorkersRun): Record<string, number> =>
      Object.fromEntries(run.fidelity.templates.map((t) => [t.id, t.replayed.count]));
    expect(two.run.fidelity.statements).toMatchObject({ captured: 20, replayed: 20, asCaptured: 20 });
    expect(two.run.fidelity.statements).toEqual(one.run.fidelity.statements);
    expect(two.run.fidelity.transactions).toEqual({ captured: 20, replayed: 20 });
    expect(two.run.fidelity.transactions).toEqual(one.run.fidelity.transactions);
    expect(counts(two.run)).toEqual(counts(one.run));
    for (const t of two.run.fidelity.templates) expect(t.replayed.count, t.id).toBe(t.captured.count);
    for (const { rows } of [one, two]) {
      expect(rows).toHaveLength(16);
      for (const s of [1, 2, 3, 4]) {
        const own = rows.filter((r) => r.session === s);
        expect(own.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
        expect(new Set(own.map((r) => r.pid)).size).toBe(1);
      }
    }
  }, 300_000);
});

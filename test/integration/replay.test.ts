/**
 * Capture and replay on a real embedded PostgreSQL: a txbench TPC-C run (client-SQL mode) captured
 * live (statement logging switched on for the window and restored), the same seed loaded into a
 * fresh database, the capture replayed there at speed 1 and at max: at least 99% of the statements
 * succeed, per-template counts equal the capture's, and the replayed database passes `txbench check`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli, startTempServer, withDatabase, type TempServer } from './helpers.js';

let server: TempServer;
let dir: string;
const admin = (): postgres.Sql =>
  postgres(withDatabase(server.url, 'postgres'), { max: 1, onnotice: () => undefined });

async function freshDatabase(name: string): Promise<string> {
  const sql = admin();
  try {
    await sql.unsafe(`drop database if exists ${name}`);
    await sql.unsafe(`create database ${name}`);
  } finally {
    await sql.end();
  }
  return withDatabase(server.url, name);
}

async function autoConf(): Promise<string> {
  const sql = admin();
  try {
    const rows = await sql<{ name: string; setting: string }[]>`
      select name, setting from pg_file_settings where sourcefile like '%postgresql.auto.conf' order by name`;
    return JSON.stringify(rows);
  } finally {
    await sql.end();
  }
}

interface Fidelity {
  statements: { captured: number; replayed: number; asCaptured: number };
  templates: { id: string; captured: { count: number }; replayed: { count: number; errors: number } }[];
  pass: boolean;
}

beforeAll(async () => {
  server = await startTempServer();
  dir = await makeTempDir('txbench-replay-');
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await removeDir(dir);
});

describe('capture and replay on PostgreSQL', () => {
  const workload = (): string => path.join(dir, 'tpcc.ndjson.gz');

  it('captures a TPC-C run live and restores every setting it changed', async () => {
    const source = await freshDatabase('source');
    expect(
      (await runCli(dir, ['load', '--db', source, '--warehouses', '1', '--seed', '11'], 300_000)).code,
    ).toBe(0);
    const before = await autoConf();
    const capture = runCli(
      dir,
      ['capture', '--db', source, '--duration', '12s', '--out', workload()],
      120_000,
    );
    await new Promise((r) => setTimeout(r, 2000));
    const run = await runCli(
      dir,
      [
        'run',
        '--db',
        source,
        '--warmup',
        '0s',
        '--duration',
        '5s',
        '--terminals',
        '4',
        '--no-monitor',
        '--out',
        path.join(dir, 'results'),
      ],
      120_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const captured = await capture;
    expect(captured.code, captured.stderr).toBe(0);
    expect(captured.stdout).toMatch(/captured [\d,]+ statements in \d+ sessions/);
    expect(await autoConf()).toBe(before);
  });

  for (const speed of ['1', 'max']) {
    it(`replays onto a fresh load of the same seed at --speed ${speed}: >= 99% succeed, template counts equal, check passes`, async () => {
      const target = await freshDatabase(`replay_${speed}`);
      expect(
        (await runCli(dir, ['load', '--db', target, '--warehouses', '1', '--seed', '11'], 300_000)).code,
      ).toBe(0);
      const json = path.join(dir, `replay-${speed}.json`);
      const replay = await runCli(
        dir,
        [
          'replay',
          workload(),
          '--db',
          target,
          '--speed',
          speed,
          '--json',
          json,
          '--out',
          path.join(dir, 'results'),
          '--max-error-rate',
          '1',
        ],
        300_000,
      );
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toMatch(/^(FAITHFUL|DIVERGED): /m);
      const report = JSON.parse(await readFile(json, 'utf8')) as { workload: string; fidelity: Fidelity };
      expect(report.workload).toBe('replay');
      const f = report.fidelity;
      expect(f.statements.captured).toBeGreaterThan(500);
      expect(f.statements.asCaptured / f.statements.captured).toBeGreaterThanOrEqual(0.99);
      for (const t of f.templates) expect(t.replayed.count + t.replayed.errors, t.id).toBe(t.captured.count);
      const check = await runCli(dir, ['check', '--db', target], 120_000);
      expect(check.code, check.stdout).toBe(0);
    });
  }

  it('a statement that failed in the capture and succeeds now diverges; transactions are counted over the whole replay, warm-up included', async () => {
    // One session: an autocommit statement and an explicit transaction in the first second (the
    // warm-up), then a statement the capture saw fail (its table was gone) that succeeds here, and
    // one more: 6 statements in 4 transactions.
    const file = path.join(dir, 'outcomes.ndjson');
    const statement = (atMs: number, sql: string, extra: Record<string, unknown> = {}): string =>
      JSON.stringify({ type: 'statement', session: 1, atMs, sql, durationMs: 0.1, outcome: 'ok', ...extra });
    const records = [
      JSON.stringify({
        type: 'header',
        format: 'txbench-workload',
        version: 1,
        source: { kind: 'postgres', from: 'csvlog' },
        captureStart: new Date().toISOString(),
        redacted: false,
        tool: 'test',
      }),
      JSON.stringify({
        type: 'session',
        id: 1,
        user: null,
        database: null,
        application: null,
        startedBeforeCapture: false,
        connectAtMs: 0,
      }),
      statement(0, 'select 1'),
      statement(100, 'begin', { tx: 'begin' }),
      statement(150, 'select 2'),
      statement(200, 'commit', { tx: 'commit' }),
      statement(1600, 'select 3', {
        outcome: 'error',
        error: { code: '42P01', message: 'relation "gone" does not exist' },
      }),
      statement(1700, 'select 4'),
      JSON.stringify({ type: 'disconnect', session: 1, atMs: 1800 }),
    ];
    await import('node:fs/promises').then((fs) => fs.writeFile(file, records.join('\n') + '\n'));
    const json = path.join(dir, 'outcomes.json');
    const r = await runCli(
      dir,
      [
        'replay',
        file,
        '--db',
        server.url,
        '--warmup',
        '1s',
        '--interval',
        '1s',
        '--json',
        json,
        '--out',
        path.join(dir, 'results'),
      ],
      120_000,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^DIVERGED: .*1 statements that failed in the capture succeeded/m);
    const f = (
      JSON.parse(await readFile(json, 'utf8')) as {
        fidelity: Fidelity & {
          statements: { unexpectedSuccesses: number };
          transactions: { captured: number; replayed: number };
          verdict: string;
        };
      }
    ).fidelity;
    expect(f.statements).toMatchObject({ captured: 6, replayed: 6, asCaptured: 5, unexpectedSuccesses: 1 });
    expect(f.transactions).toEqual({ captured: 4, replayed: 4 });
  }, 180_000);

  it('a redacted workload is refused for replay with one line, exit 2', async () => {
    const log = path.join(dir, 'redacted.ndjson');
    await import('node:fs/promises').then((fs) =>
      fs.writeFile(
        log,
        JSON.stringify({
          type: 'header',
          format: 'txbench-workload',
          version: 1,
          source: { kind: 'postgres', from: 'csvlog' },
          captureStart: new Date().toISOString(),
          redacted: true,
          tool: 'x',
        }) + '\n',
      ),
    );
    const r = await runCli(dir, ['replay', log, '--db', server.url, '--out', path.join(dir, 'results')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/redacted/);
  });

  it('a capture by a user who may not change settings: one line, exit 2, nothing changed', async () => {
    const sql = admin();
    await sql.unsafe(`create role plain login password 'plain-pw'`);
    await sql.end();
    const url = new URL(server.url);
    url.username = 'plain';
    url.password = 'plain-pw';
    const before = await autoConf();
    const r = await runCli(dir, [
      'capture',
      '--db',
      url.toString(),
      '--duration',
      '2s',
      '--out',
      path.join(dir, 'no.ndjson'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/needs a superuser/);
    expect(r.stderr).not.toContain('plain-pw');
    expect(await autoConf()).toBe(before);
  });
});

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
import {
  captureHeader,
  captureTpcc,
  expectTpccReplayed,
  freshDatabase,
  loadTpcc,
  replayCli,
  writeRecords,
  writeWorkload,
  type Fidelity,
} from './replay-fixture.js';

let server: TempServer;
let dir: string;
const admin = (): postgres.Sql =>
  postgres(withDatabase(server.url, 'postgres'), { max: 1, onnotice: () => undefined });

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
    const source = await freshDatabase(server.url, 'source');
    await loadTpcc(dir, source);
    const before = await autoConf();
    await captureTpcc(dir, source, workload(), { captureS: 12, leadMs: 2000, runS: 5, terminals: 4 });
    expect(await autoConf()).toBe(before);
  });

  for (const speed of ['1', 'max']) {
    it(`replays onto a fresh load of the same seed at --speed ${speed}: >= 99% succeed, template counts equal, check passes`, async () => {
      const target = await freshDatabase(server.url, `replay_${speed}`);
      await loadTpcc(dir, target);
      const json = path.join(dir, `replay-${speed}.json`);
      const replay = await replayCli(
        dir,
        workload(),
        target,
        ['--speed', speed, '--json', json, '--max-error-rate', '1'],
        300_000,
      );
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stdout).toMatch(/^(FAITHFUL|DIVERGED): /m);
      const report = JSON.parse(await readFile(json, 'utf8')) as { workload: string; fidelity: Fidelity };
      expect(report.workload).toBe('replay');
      await expectTpccReplayed(dir, target, report.fidelity, 500);
    });
  }

  it('a statement that failed in the capture and succeeds now diverges; transactions are counted over the whole replay, warm-up included', async () => {
    // One session: an autocommit statement and an explicit transaction in the first second (the
    // warm-up), then a statement the capture saw fail (its table was gone) that succeeds here, and
    // one more: 6 statements in 4 transactions.
    const file = await writeWorkload(path.join(dir, 'outcomes.ndjson'), [
      [
        [0, 'select 1'],
        [100, 'begin', { tx: 'begin' }],
        [150, 'select 2'],
        [200, 'commit', { tx: 'commit' }],
        [
          1600,
          'select 3',
          { outcome: 'error', error: { code: '42P01', message: 'relation "gone" does not exist' } },
        ],
        [1700, 'select 4'],
      ],
    ]);
    const json = path.join(dir, 'outcomes.json');
    const r = await replayCli(dir, file, server.url, ['--warmup', '1s', '--interval', '1s', '--json', json]);
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
    const log = await writeRecords(path.join(dir, 'redacted.ndjson'), [captureHeader(true)]);
    const r = await replayCli(dir, log, server.url);
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

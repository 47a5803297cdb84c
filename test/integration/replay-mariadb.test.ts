/**
 * Capture and replay on a real MariaDB: a txbench TPC-C run captured live through the general-log
 * table (the server's logging settings restored afterwards), the same seed loaded into a fresh
 * database, the capture replayed there: at least 99% of the statements succeed, per-template counts
 * equal the capture's, and the replayed database passes `txbench check`.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli } from './helpers.js';
import { captureTpcc, expectTpccReplayed, loadTpcc, replayCli, type Fidelity } from './replay-fixture.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

const exec = promisify(execFile);

let server: MariaDbServer;
let dir: string;

/** Root over the socket with the command-line client; the output's rows, tab-separated. */
async function root(statements: string): Promise<string> {
  const { stdout } = await exec('mariadb', [
    '--no-defaults',
    `--socket=${server.socket}`,
    '-uroot',
    '-N',
    '-B',
    '-e',
    statements,
  ]);
  return stdout.trim();
}

/** Root over TCP to this database (capture needs SUPER; the test user has only tpcc.*). */
function url(database: string): string {
  const u = new URL(server.rootUrl);
  u.pathname = `/${database}`;
  return u.toString();
}

const logSettings = (): Promise<string> =>
  root('select @@global.general_log, @@global.log_output, @@global.performance_schema');

beforeAll(async () => {
  server = await startMariaDb();
  dir = await makeTempDir('txbench-replay-mariadb-');
  await root('create database source; create database target');
  for (const db of ['source', 'target']) await loadTpcc(dir, url(db));
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await removeDir(dir);
});

describe('capture and replay on MariaDB', () => {
  const workload = (): string => path.join(dir, 'tpcc.ndjson.gz');

  it('captures a TPC-C run through the general-log table and restores the settings', async () => {
    const before = await logSettings();
    await captureTpcc(dir, url('source'), workload(), { captureS: 8, leadMs: 1500, runS: 3, terminals: 4 });
    expect(await logSettings()).toBe(before);
  });

  it('a capture by a user who may not change settings: one line, exit 2, nothing changed', async () => {
    const before = await logSettings();
    // The test user has privileges on its own database only: no SUPER, no SYSTEM_VARIABLES_ADMIN.
    const r = await runCli(dir, [
      'capture',
      '--db',
      server.url,
      '--duration',
      '2s',
      '--out',
      path.join(dir, 'no.ndjson'),
    ]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/capturing needs SUPER .*no setting was left changed/);
    expect(r.stderr).not.toContain(new URL(server.url).password);
    expect(await logSettings()).toBe(before);
  });

  it('replays onto a fresh load of the same seed: >= 99% succeed, template counts equal, check passes', async () => {
    const json = path.join(dir, 'replay.json');
    const replay = await replayCli(
      dir,
      workload(),
      url('target'),
      ['--speed', 'max', '--json', json, '--max-error-rate', '1'],
      300_000,
    );
    expect(replay.code, replay.stderr).toBe(0);
    // Like every run, the replay's run directory has its HTML report, with the fidelity in it.
    const runDir = /^run directory: (.+)$/m.exec(replay.stdout)?.[1];
    expect(runDir, replay.stdout).toBeDefined();
    expect(await readFile(path.join(runDir!, 'report.html'), 'utf8')).toContain(
      'Replay fidelity per template',
    );
    const f = (JSON.parse(await readFile(json, 'utf8')) as { fidelity: Fidelity }).fidelity;
    await expectTpccReplayed(dir, url('target'), f, 200);
  });
});

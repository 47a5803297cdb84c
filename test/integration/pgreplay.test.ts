/**
 * Cross-check with pgreplay (Debian's package): one PostgreSQL csvlog of a txbench TPC-C run,
 * replayed by pgreplay and by txbench (capture --from-log, replay) onto two clones of the same
 * loaded database, executes the same number of statements per template, counted by the server
 * itself (pg_stat_statements calls per queryid and database).
 *
 * The server is the distribution's PostgreSQL 15, not the embedded 17: pgreplay 1.2 reads bind
 * parameters only from a `parameters:` detail, which PostgreSQL 17 spells `Parameters:`.
 * The run has one terminal: pgreplay keeps the log's global order and hangs when a later statement
 * overtakes an earlier one on a hot row (its README says so), which concurrent TPC-C sessions on one
 * warehouse do at once.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleanup } from '../../dist/bench/cleanup.js';
import { startCluster, type PgCluster } from '../../dist/bench/pg-cluster.js';
import { makeTempDir, removeDir, runCli } from './helpers.js';
import { loadTpcc, replayCli, runTpcc, writeWorkload } from './replay-fixture.js';

const exec = promisify(execFile);

/** What pgreplay's README asks of the log, plus csvlog and the statement counter. */
const LOGGING = {
  logging_collector: 'on',
  log_destination: 'csvlog',
  log_statement: 'all',
  log_connections: 'on',
  log_disconnections: 'on',
  log_min_messages: 'error',
  log_min_error_statement: 'log',
  lc_messages: 'C',
  shared_preload_libraries: 'pg_stat_statements',
};

let cluster: PgCluster;
let dir: string;
let admin: postgres.Sql;

beforeAll(async () => {
  cluster = await startCluster(new Cleanup(), LOGGING);
  dir = await makeTempDir('txbench-pgreplay-');
  admin = postgres(cluster.url('postgres'), { max: 1, onnotice: () => undefined });
  await admin.unsafe('create extension pg_stat_statements');
}, 120_000);

afterAll(async () => {
  await admin?.end({ timeout: 5 });
  await cluster?.stop();
  await removeDir(dir);
});

/** A copy of the loaded database: both replays start from the state the capture started from. */
async function clone(name: string): Promise<void> {
  await admin.unsafe(`drop database if exists ${name}`);
  await admin.unsafe(`create database ${name} template pristine strategy file_copy`);
}

async function currentLog(): Promise<string | null> {
  const [row] = await admin<{ f: string | null }[]>`select pg_current_logfile('csvlog') as f`;
  return row?.f ?? null;
}

/**
 * A new log file from now on (log_filename has seconds: wait for the next one). The logging
 * collector rotates asynchronously: wait until it names a file other than the one before.
 */
async function rotate(): Promise<string> {
  const before = await currentLog();
  await new Promise((r) => setTimeout(r, 1100));
  await admin`select pg_rotate_logfile()`;
  for (;;) {
    const f = await currentLog();
    if (f !== null && f !== before) return path.join(cluster.baseDir, 'data', f);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Calls per queryid in one database, as pg_stat_statements counted them. */
async function callsIn(database: string): Promise<Map<string, { calls: number; query: string }>> {
  const rows = await admin<{ q: string; calls: number; query: string }[]>`
    select s.queryid::text as q, s.calls::int as calls, s.query
    from pg_stat_statements s join pg_database d on d.oid = s.dbid
    where d.datname = ${database}`;
  return new Map(rows.map((r) => [r.q, { calls: r.calls, query: r.query }]));
}

describe('pgreplay and txbench replay the same log alike', () => {
  it('execute the same number of statements per template (pg_stat_statements)', async () => {
    await admin.unsafe('create database pristine');
    await loadTpcc(dir, cluster.url('pristine'));
    await clone('source');
    const logFile = await rotate();
    await runTpcc(dir, cluster.url('source'), 3, 1);
    await rotate();
    // The run's records only (this test's own statements run in the postgres database).
    const rows = parse(await readFile(logFile, 'utf8'), {
      raw: true,
      relax_column_count: true,
    }) as unknown as {
      record: string[];
      raw: string;
    }[];
    const log = path.join(dir, 'run.csv');
    await writeFile(
      log,
      rows
        .filter((r) => r.record[2] === 'source')
        .map((r) => (r.raw.endsWith('\n') ? r.raw : `${r.raw}\n`))
        .join(''),
    );
    const workload = path.join(dir, 'run.ndjson');
    const capture = await runCli(dir, ['capture', '--from-log', log, '--out', workload]);
    expect(capture.code, capture.stderr).toBe(0);

    // pgreplay connects to the database the log names: a fresh clone under that name.
    await clone('source');
    await clone('replay_tx');
    await admin`select pg_stat_statements_reset()`;
    await exec('pgreplay', ['-c', '-h', '127.0.0.1', '-p', String(cluster.port), log], {
      timeout: 120_000,
    });
    const replay = await replayCli(dir, workload, cluster.url('replay_tx'), ['--no-monitor']);
    expect(replay.code, replay.stderr).toBe(0);
    // A replay is a run: its side connection reads the server's identity and counters, as every
    // run's does, in numbers that depend on timing. Its templates (those a replay of one marker
    // statement sends beside it) are left out of the comparison, on both sides.
    await clone('replay_own');
    // One session sending one statement of its own kind.
    const marker = await writeWorkload(path.join(dir, 'marker.ndjson'), [
      [[0, 'select 1 as txbench_marker']],
    ]);
    const own = await replayCli(dir, marker, cluster.url('replay_own'), ['--no-monitor']);
    expect(own.code, own.stderr).toBe(0);
    const sideTemplates = [...(await callsIn('replay_own'))]
      .filter(([, s]) => !s.query.includes('txbench_marker'))
      .map(([q]) => q);

    const byPgreplay = await callsIn('source');
    const byTxbench = await callsIn('replay_tx');
    for (const q of sideTemplates) {
      byPgreplay.delete(q);
      byTxbench.delete(q);
    }
    const total = [...byPgreplay.values()].reduce((a, s) => a + s.calls, 0);
    expect(total).toBeGreaterThan(200);
    const differences: string[] = [];
    for (const q of new Set([...byPgreplay.keys(), ...byTxbench.keys()])) {
      const a = byPgreplay.get(q);
      const b = byTxbench.get(q);
      if (a?.calls !== b?.calls)
        differences.push(`${a?.calls ?? 0} vs ${b?.calls ?? 0}: ${(a ?? b)!.query.slice(0, 80)}`);
    }
    expect(differences).toEqual([]);
  }, 600_000);
});

/**
 * Bad input across every command, table-driven: each case is answered by one line on stderr saying
 * what was wrong and what to do, the documented exit code (2 usage, 3 database), no stack trace, and
 * no password anywhere in the output. One embedded PostgreSQL serves the cases that need a server:
 * a loaded database, an empty one, and one with TPC-C-looking tables txbench did not load.
 */
import { createServer, type Server } from 'node:net';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { freePort } from '../free-port.js';
import {
  makeTempDir,
  removeDir,
  runCli,
  startTempServer,
  withDatabase,
  type CliResult,
  type TempServer,
} from './helpers.js';

const SECRET = 'Sekr3tPassw0rd';

let pg: TempServer;
let dir: string;
let busy: Server;
let busyPort: number;
let loaded: string;
let empty: string;
let foreign: string;

beforeAll(async () => {
  pg = await startTempServer();
  dir = await makeTempDir();
  const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
  try {
    for (const db of ['tpcc_loaded', 'tpcc_empty', 'tpcc_foreign'])
      await admin.unsafe(`create database ${db}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  loaded = withDatabase(pg.url, 'tpcc_loaded');
  empty = withDatabase(pg.url, 'tpcc_empty');
  foreign = withDatabase(pg.url, 'tpcc_foreign');
  const other = postgres(foreign, { max: 1, onnotice: () => undefined });
  try {
    await other.unsafe('create table warehouse (w_id int primary key, w_name varchar(10))');
  } finally {
    await other.end({ timeout: 5 });
  }
  const load = await runCli(dir, ['load', '--db', loaded, '--warehouses', '1'], 180_000);
  expect(load.code, load.stderr).toBe(0);
  await mkdir(path.join(dir, 'results', 'run-broken'), { recursive: true });
  await writeFile(path.join(dir, 'results', 'run-broken', 'run.json'), '{"schemaVersion": 2, "kind": "ru');
  await writeFile(path.join(dir, 'costs.yaml'), "'disk a':\n  drivePrice: -5\n");
  await writeCaptureFiles();
  busyPort = await freePort();
  busy = createServer().listen(busyPort, '127.0.0.1');
}, 300_000);

afterAll(async () => {
  busy?.close();
  await pg?.stop();
  await removeDir(dir);
});

/** A csvlog record of one session (PostgreSQL 17's 26 fields), as the server writes it. */
function csvRecord(second: number, line: number, message: string): string {
  const q = (v: string): string => (v === '' ? '' : `"${v.replace(/"/g, '""')}"`);
  const time = `2026-12-01 10:22:${String(second).padStart(2, '0')}.000 UTC`;
  return [
    time,
    '"postgres"',
    '"tpcc_loaded"',
    '15424',
    '"127.0.0.1:38510"',
    '6b0e9fe7.3c40',
    String(line),
    '"SELECT"',
    '2026-12-01 10:20:00 UTC',
    '7/9',
    '0',
    'LOG',
    '00000',
    q(message),
    ...Array<string>(8).fill(''),
    '"app"',
    '"client backend"',
    '',
    '0',
  ].join(',');
}

const captureFile = (name: string): string => path.join(dir, 'capture', name);

/** Logs and workload files for the capture and replay cases. */
async function writeCaptureFiles(): Promise<void> {
  await mkdir(path.join(dir, 'capture'));
  await writeFile(
    captureFile('stderr.log'),
    '2026-12-01 10:22:31.000 UTC [15424] LOG:  duration: 0.050 ms  statement: begin\n',
  );
  // Rotated mid-session (no connection record: the session was open before the log began) and cut
  // off inside its last record (an unclosed quote).
  const rotated = [
    csvRecord(31, 7, 'duration: 0.020 ms  statement: begin'),
    csvRecord(31, 8, 'duration: 0.900 ms  statement: select count(*) from warehouse'),
    csvRecord(32, 9, 'duration: 0.300 ms  statement: commit'),
    csvRecord(33, 10, 'duration: 0.100 ms  statement: select 1').slice(0, 150),
  ];
  await writeFile(captureFile('rotated.csv'), rotated.join('\n'));
  await writeFile(
    captureFile('jsonlog.json'),
    JSON.stringify({
      timestamp: '2026-12-01 10:22:34.000 UTC',
      error_severity: 'LOG',
      session_id: '6b0e9fe7.3c41',
      message: 'duration: 0.1 ms  statement: select 1',
    }) + '\n',
  );
  await writeFile(
    captureFile('newer.ndjson'),
    JSON.stringify({
      type: 'header',
      format: 'txbench-workload',
      version: 99,
      source: { kind: 'postgres', from: 'csvlog' },
      captureStart: '2026-12-01T10:22:31.000Z',
      redacted: false,
      tool: 'txbench 99',
    }) + '\n',
  );
}

/** A URL to the test server with the password replaced, so that leaking it can be caught. */
function withPassword(url: string, password: string): string {
  const u = new URL(url);
  u.password = password;
  return u.toString();
}

type Case = [name: string, args: () => string[], code: 2 | 3, message: RegExp];

const SHORT = ['--warmup', '0s', '--duration', '1s'];
const CASES: Case[] = [
  ['an unknown command', () => ['frobnicate'], 2, /unknown command/i],
  ['an unknown flag', () => ['run', '--frobnicate', '1'], 2, /--frobnicate/],
  ['--terminals 0', () => ['run', '--db', loaded, '--terminals', '0'], 2, /--terminals/],
  ['--terminals not a number', () => ['run', '--db', loaded, '--terminals', 'many'], 2, /--terminals/],
  ['--warehouses 0', () => ['run', '--db', loaded, '--warehouses', '0'], 2, /--warehouses/],
  ['more warehouses than loaded', () => ['run', '--db', loaded, '--warehouses', '5', ...SHORT], 2, /loaded/],
  ['--think-scale negative', () => ['run', '--db', loaded, '--think-scale', '-1'], 2, /--think-scale/],
  ['--duration 0s', () => ['run', '--db', loaded, '--duration', '0s'], 2, /--duration/],
  ['--duration with a bad unit', () => ['run', '--db', loaded, '--duration', '5x'], 2, /duration|5x/],
  ['--interval too short', () => ['run', '--db', loaded, '--interval', '10ms'], 2, /--interval/],
  ['--mix with four shares', () => ['run', '--db', loaded, '--mix', '45,43,4,8'], 2, /--mix/],
  [
    '--mix below the minimums',
    () => ['run', '--db', loaded, '--mix', '60,30,4,3,3'],
    2,
    /--allow-nonstandard-mix/,
  ],
  ['an unknown URL scheme', () => ['run', '--db', 'oracle://u:x@h/db'], 2, /unsupported database URL scheme/],
  [
    'an unreachable server',
    () => ['check', '--db', `postgres://u:${SECRET}@127.0.0.1:1/db`],
    3,
    /127\.0\.0\.1:1/,
  ],
  [
    'a wrong password',
    () => ['check', '--db', withPassword(loaded, SECRET)],
    3,
    /password authentication failed/,
  ],
  ['a missing database', () => ['check', '--db', withDatabase(pg.url, 'no_such_db')], 3, /no_such_db/],
  ['a database without the schema', () => ['run', '--db', empty, ...SHORT], 2, /txbench load/],
  [
    'a TPC-C schema txbench did not load',
    () => ['run', '--db', foreign, ...SHORT],
    2,
    /not loaded by txbench/,
  ],
  ['load --warehouses -1', () => ['load', '--db', empty, '--warehouses', '-1'], 2, /--warehouses/],
  ['load --jobs 0', () => ['load', '--db', empty, '--warehouses', '1', '--jobs', '0'], 2, /--jobs/],
  ['load over a loaded database', () => ['load', '--db', loaded, '--warehouses', '1'], 2, /drop|--replace/],
  ['run --repeat 0', () => ['run', '--db', loaded, '--repeat', '0'], 2, /--repeat must be a whole number/],
  ['run --repeat x', () => ['run', '--db', loaded, '--repeat', 'x'], 2, /--repeat must be a whole number/],
  [
    'steps --repeat with several targets',
    () => ['steps', '--db', loaded, '--db', loaded, '--users', '1', '--repeat', '2'],
    2,
    /one target/,
  ],
  ['steps without --users', () => ['steps', '--db', loaded], 2, /--users/],
  [
    'steps with --users that are not numbers',
    () => ['steps', '--db', loaded, '--users', 'a,b'],
    2,
    /--users/,
  ],
  ['sweep without --set', () => ['sweep', '--db', loaded], 2, /--set/],
  ['sweep --set without values', () => ['sweep', '--db', loaded, '--set', 'shared_buffers'], 2, /--set/],
  ['compare a path that does not exist', () => ['compare', path.join(dir, 'nowhere')], 2, /nowhere/],
  ['compare --sort unknown', () => ['compare', path.join(dir, 'results'), '--sort', 'speed'], 2, /--sort/],
  [
    'compare --format unknown',
    () => ['compare', path.join(dir, 'results'), '--format', 'xml'],
    2,
    /--format/,
  ],
  [
    'compare a corrupted run.json',
    () => ['compare', path.join(dir, 'results', 'run-broken')],
    2,
    /run\.json/,
  ],
  [
    'compare --cost with a bad file',
    () => ['compare', path.join(dir, 'results'), '--cost', path.join(dir, 'costs.yaml')],
    2,
    /drivePrice|cost/,
  ],
  ['results of a directory that does not exist', () => ['results', path.join(dir, 'nowhere')], 2, /nowhere/],
  [
    '--metrics-port out of range',
    () => ['run', '--db', loaded, '--metrics-port', '70000'],
    2,
    /--metrics-port/,
  ],
  [
    '--metrics-port in use',
    () => ['run', '--db', loaded, '--metrics-port', String(busyPort), ...SHORT],
    2,
    /in use/,
  ],
  [
    '--node-exporter not http',
    () => ['run', '--db', loaded, '--node-exporter', 'ftp://db1:9100'],
    2,
    /--node-exporter/,
  ],
  [
    '--device that does not exist',
    () => ['run', '--db', loaded, '--device', 'nosuchdisk9'],
    2,
    /--device nosuchdisk9/,
  ],
  [
    'capture from a log in another format',
    () => ['capture', '--from-log', captureFile('stderr.log'), '--out', captureFile('x.ndjson')],
    2,
    /not a PostgreSQL csvlog or jsonlog file/,
  ],
  [
    'capture from logs in two formats',
    () => [
      'capture',
      '--from-log',
      captureFile('rotated.csv'),
      captureFile('jsonlog.json'),
      '--out',
      captureFile('x.ndjson'),
    ],
    2,
    /mix csvlog and jsonlog/,
  ],
  [
    'replay a workload file of a newer version',
    () => ['replay', captureFile('newer.ndjson'), '--db', loaded, '--out', captureFile('results')],
    2,
    /version 99 .*upgrade txbench/,
  ],
  [
    'replay a log instead of a workload file',
    () => ['replay', captureFile('rotated.csv'), '--db', loaded, '--out', captureFile('results')],
    2,
    /workload/,
  ],
];

function expectOneLine(expect: ExpectStatic, r: CliResult, code: number, message: RegExp): void {
  const lines = r.stderr.trim().split('\n');
  expect(r.code, r.stderr).toBe(code);
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  const everything = r.stdout + r.stderr;
  expect(everything).not.toContain(SECRET);
  expect(everything).not.toContain(pg.server.password);
}

describe('bad input: one line, the documented exit code, no stack trace, no password', () => {
  it('has at least 30 cases across every command', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    const commands = new Set(CASES.map(([, args]) => args()[0]));
    for (const c of ['run', 'load', 'check', 'steps', 'sweep', 'compare', 'results'])
      expect(commands).toContain(c);
  });

  // Each case is its own txbench process against the one server, nothing shared between them:
  // several at a time (vitest's maxConcurrency), each asserting through its own test's expect.
  it.concurrent.for(CASES)('%s', async ([, args, code, message], { expect }) => {
    expectOneLine(expect, await runCli(dir, args(), 120_000), code, message);
  });

  it.concurrent('a refused workload file leaves no run directory behind', async ({ expect }) => {
    await runCli(dir, [
      'replay',
      captureFile('newer.ndjson'),
      '--db',
      loaded,
      '--out',
      captureFile('results'),
    ]);
    expect(await readdir(captureFile('results')).catch(() => [])).toEqual([]);
  });

  it.concurrent(
    'a rotated, truncated log is captured (exit 0) with one line counting the open session and the cut-off record, and replays from its first statement seen',
    async ({ expect }) => {
      const workload = captureFile('rotated.ndjson');
      const capture = await runCli(dir, [
        'capture',
        '--from-log',
        captureFile('rotated.csv'),
        '--out',
        workload,
      ]);
      expect(capture.code, capture.stderr).toBe(0);
      expect(capture.stderr).toBe('');
      expect(capture.stdout.trim().split('\n')).toHaveLength(1);
      expect(capture.stdout).toMatch(/captured 3 statements in 1 sessions/);
      expect(capture.stdout).toMatch(
        /1 started before the capture \(replayed from their first statement seen\)/,
      );
      expect(capture.stdout).toMatch(/1 unreadable log records skipped/);
      const replay = await runCli(dir, [
        'replay',
        workload,
        '--db',
        loaded,
        '--speed',
        'max',
        '--out',
        captureFile('replayed'),
      ]);
      expect(replay.code, replay.stderr).toBe(0);
      expect(replay.stderr).toMatch(
        /1 sessions started before the capture, replayed from their first statement seen/,
      );
      expect(replay.stdout).toMatch(/statements: captured 3, replayed 3, as captured 3, new errors 0/);
    },
  );
});

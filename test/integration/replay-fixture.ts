/**
 * What the replay suites share: workload files written record by record as `txbench capture`
 * writes a PostgreSQL capture, a fresh database to replay into, and `txbench replay` run as a
 * user runs it, with the run.json it wrote.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { expect } from 'vitest';
import { runCli, withDatabase, type CliResult } from './helpers.js';
import { runDirOf } from './run-dir-schema.js';

/** One captured statement: its offset (ms), its text, and its record's other fields (tx, outcome, error). */
export type Captured = readonly [atMs: number, sql: string, fields?: Readonly<Record<string, unknown>>];

/** The header record of a capture from a PostgreSQL csvlog. */
export function captureHeader(redacted = false): Record<string, unknown> {
  return {
    type: 'header',
    format: 'txbench-workload',
    version: 1,
    source: { kind: 'postgres', from: 'csvlog' },
    captureStart: new Date().toISOString(),
    redacted,
    tool: 'test',
  };
}

/** Writes `records` as a workload file (NDJSON). */
export async function writeRecords(file: string, records: readonly unknown[]): Promise<string> {
  await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return file;
}

/**
 * A workload file of PostgreSQL sessions 1, 2, … (one per list), each connected at 0 and gone
 * 100 ms after its last statement; each statement took 0.1 ms and succeeded unless its fields
 * say otherwise.
 */
export function writeWorkload(file: string, sessions: readonly (readonly Captured[])[]): Promise<string> {
  return writeRecords(file, [
    captureHeader(),
    ...sessions.flatMap((statements, i) => [
      {
        type: 'session',
        id: i + 1,
        user: null,
        database: null,
        application: null,
        startedBeforeCapture: false,
        connectAtMs: 0,
      },
      ...statements.map(([atMs, sql, fields]) => ({
        type: 'statement',
        session: i + 1,
        atMs,
        sql,
        durationMs: 0.1,
        outcome: 'ok',
        ...fields,
      })),
      { type: 'disconnect', session: i + 1, atMs: statements.at(-1)![0] + 100 },
    ]),
  ]);
}

/** `txbench replay FILE --db DB ARGS`, its run directory under `dir`/results. */
export function replayCli(
  dir: string,
  file: string,
  db: string,
  args: readonly string[] = [],
  timeoutMs = 120_000,
): Promise<CliResult> {
  return runCli(dir, ['replay', file, '--db', db, ...args, '--out', path.join(dir, 'results')], timeoutMs);
}

/** The run.json of the run directory a command printed. */
export async function runJsonOf<T>(stdout: string): Promise<T> {
  return JSON.parse(await readFile(path.join(runDirOf(stdout), 'run.json'), 'utf8')) as T;
}

/** An empty database `name` on the server of `url` (dropped first if there), and its URL. */
export async function freshDatabase(url: string, name: string): Promise<string> {
  const sql = postgres(withDatabase(url, 'postgres'), { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(`drop database if exists ${name}`);
    await sql.unsafe(`create database ${name}`);
  } finally {
    await sql.end();
  }
  return withDatabase(url, name);
}

/** A TPC-C run on `db` for `seconds` with `terminals` terminals, no warm-up, unmonitored: what the suites capture. */
export async function runTpcc(dir: string, db: string, seconds: number, terminals: number): Promise<void> {
  const run = await runCli(
    dir,
    [
      'run',
      '--db',
      db,
      '--warmup',
      '0s',
      '--duration',
      `${seconds}s`,
      '--terminals',
      String(terminals),
      '--no-monitor',
      '--out',
      path.join(dir, 'results'),
    ],
    120_000,
  );
  expect(run.code, run.stderr).toBe(0);
}

/**
 * `txbench capture --db DB` live for `captureS` seconds into `out`, around a TPC-C run of `runS`
 * seconds that starts `leadMs` into it (runTpcc); the capture ends well and says what it captured.
 */
export async function captureTpcc(
  dir: string,
  db: string,
  out: string,
  timing: { captureS: number; leadMs: number; runS: number; terminals: number },
): Promise<void> {
  const capture = runCli(
    dir,
    ['capture', '--db', db, '--duration', `${timing.captureS}s`, '--out', out],
    120_000,
  );
  await new Promise((r) => setTimeout(r, timing.leadMs));
  await runTpcc(dir, db, timing.runS, timing.terminals);
  const captured = await capture;
  expect(captured.code, captured.stderr).toBe(0);
  expect(captured.stdout).toMatch(/captured [\d,]+ statements in \d+ sessions/);
}

/** `txbench load` of one warehouse at seed 11 into `db`: what the suites capture from and replay onto. */
export async function loadTpcc(dir: string, db: string): Promise<void> {
  const load = await runCli(dir, ['load', '--db', db, '--warehouses', '1', '--seed', '11'], 300_000);
  expect(load.code, load.stderr).toBe(0);
}

/** What the suites read of run.json's `fidelity`. */
export interface Fidelity {
  statements: { captured: number; replayed: number; asCaptured: number };
  templates: { id: string; captured: { count: number }; replayed: { count: number; errors: number } }[];
  pass: boolean;
}

/**
 * A TPC-C capture replayed onto a fresh load of its seed: more than `minStatements` captured, at
 * least 99% of them replayed as captured, every template as often as captured (errors included),
 * and the database `db` passes `txbench check`.
 */
export async function expectTpccReplayed(
  dir: string,
  db: string,
  f: Fidelity,
  minStatements: number,
): Promise<void> {
  expect(f.statements.captured).toBeGreaterThan(minStatements);
  expect(f.statements.asCaptured / f.statements.captured).toBeGreaterThanOrEqual(0.99);
  for (const t of f.templates) expect(t.replayed.count + t.replayed.errors, t.id).toBe(t.captured.count);
  const check = await runCli(dir, ['check', '--db', db], 120_000);
  expect(check.code, check.stdout).toBe(0);
}

/**
 * What a live capture changed on a server, written before it changes anything, so that a capture
 * killed mid-window (SIGKILL, the load machine's power) does not leave a production server
 * logging every statement: the next `txbench capture` on that server, or `txbench capture
 * --restore`, runs the record's statements and removes it. One file per server, named by a hash
 * of the server's identity, in the state directory: $TXBENCH_STATE_DIR, else
 * $XDG_STATE_HOME/txbench, else ~/.local/state/txbench; under it, capture-restore/.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DatabaseError, UsageError, errorMessage } from '../errors.js';
import { writeJson } from '../results/run-dir.js';
import { redactUrl } from '../util/redact.js';

/** One statement that puts one setting back, idempotent: running it twice leaves the same. */
export interface UndoStep {
  what: string;
  sql: string;
}

export interface RestoreRecord {
  version: 1;
  /** The server's identity (PostgreSQL: system identifier, data directory, port; MySQL: server_uuid…). */
  server: string;
  /** The capture's URL, password redacted. */
  url: string;
  host: string;
  pid: number;
  startedAt: string;
  /** In order; each one puts back a setting as the capture found it. */
  undo: UndoStep[];
}

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TXBENCH_STATE_DIR) return env.TXBENCH_STATE_DIR;
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'txbench');
}

export function recordFile(server: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = createHash('sha256').update(server).digest('hex').slice(0, 16);
  return path.join(stateDir(env), 'capture-restore', `${key}.json`);
}

/** Writes the record atomically (temporary file, fsync, rename) before the first change. */
export async function saveRecord(server: string, url: string, undo: readonly UndoStep[]): Promise<string> {
  const file = recordFile(server);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const record: RestoreRecord = {
    version: 1,
    server,
    url: redactUrl(url),
    host: os.hostname(),
    pid: process.pid,
    startedAt: new Date().toISOString(),
    undo: [...undo],
  };
  await writeJson(file, record);
  return file;
}

export async function removeRecord(server: string): Promise<void> {
  await rm(recordFile(server), { force: true });
}

async function readRecord(file: string): Promise<RestoreRecord | undefined> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as RestoreRecord;
  } catch {
    throw new UsageError(
      `${file} is not a capture's restore record (unreadable JSON); look at it, then remove it`,
    );
  }
}

/** True when the record's capture still runs here, so its settings are not ours to put back. */
function stillRunning(record: RestoreRecord): boolean {
  if (record.host !== os.hostname() || record.pid === process.pid) return false;
  try {
    process.kill(record.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What an earlier capture left changed and this call put back (empty: nothing was left). */
export interface Restored {
  what: string[];
  record?: RestoreRecord;
}

/**
 * Puts back what an earlier capture on this server left changed, by its record; the record is
 * removed only once every step has run. A step that fails is an error (exit 3), the record kept.
 */
export async function restorePending(
  server: string,
  run: (sql: string) => Promise<unknown>,
): Promise<Restored> {
  const file = recordFile(server);
  const record = await readRecord(file);
  if (record === undefined) return { what: [] };
  if (stillRunning(record)) {
    throw new UsageError(
      `a capture (pid ${record.pid}, started ${record.startedAt}) is still running on this server; let it end or stop it first`,
    );
  }
  for (const step of record.undo) {
    try {
      await run(step.sql);
    } catch (err) {
      throw new DatabaseError(
        `could not put back ${step.what} as it was before the capture of ${record.startedAt}: ${errorMessage(err)}; the record stays in ${file}: fix the cause and run txbench capture --restore --db URL`,
      );
    }
  }
  await rm(file, { force: true });
  return { what: record.undo.map((s) => s.what), record };
}

/** One line: the settings a capture changed could not be put back, and how to retry. */
export function restoreFailure(err: unknown): DatabaseError {
  return new DatabaseError(
    `could not restore the logging settings the capture changed (${errorMessage(err)}); the record stays in ${path.join(stateDir(), 'capture-restore')}: run txbench capture --restore --db URL`,
  );
}

/**
 * Runs `work`, then `restore` whatever happened, then `close`: a restore that fails is the error
 * reported, since the server may be left logging every statement.
 */
export async function restoringAfter<T>(
  work: () => Promise<T>,
  restore: () => Promise<void>,
  close: () => Promise<unknown>,
): Promise<T> {
  let outcome: { ok: true; value: T } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await work() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const failed = await restore().then(
    () => null,
    (err: unknown) => ({ err }),
  );
  await close().catch(() => undefined);
  if (failed !== null) throw restoreFailure(failed.err);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

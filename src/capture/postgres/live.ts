/**
 * `txbench capture --db URL --duration D` on PostgreSQL: switches statement, connection and
 * disconnection logging on for the window (ALTER SYSTEM + pg_reload_conf, csvlog added to the
 * destinations), then puts every setting it changed back as it was (also on Ctrl-C and on
 * errors), reads the window's csvlog over the connection (pg_read_binary_file) and turns it into a
 * workload file. It needs a superuser (or ALTER SYSTEM on those parameters and pg_read_server_files)
 * and the logging collector, which only a restart turns on.
 */
import { mkdtemp, rm, writeFile, appendFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type postgres from 'postgres';
import { connectChecked } from '../../dialects/postgres/connect.js';
import { DatabaseError, UsageError, errorMessage } from '../../errors.js';
import type { CaptureCounts } from '../format.js';
import { captureFromLogs } from './from-logs.js';
import {
  removeRecord,
  restoringAfter,
  restorePending,
  saveRecord,
  type Restored,
  type UndoStep,
} from '../restore-record.js';

/** The capture's own connection, whose statements are left out of the workload. */
export const CAPTURE_APPLICATION = 'txbench capture';

/** A server setting as the capture found it: its effective value and what ALTER SYSTEM had set. */
export interface SavedSetting {
  name: string;
  /** The value in postgresql.auto.conf before the capture; undefined when ALTER SYSTEM had not set it. */
  altered: string | undefined;
}

export interface LiveCaptureResult {
  counts: CaptureCounts;
  interrupted: boolean;
  /** The settings changed for the window, all restored. */
  changed: string[];
  /** What an earlier, killed capture had left changed, put back before this one began. */
  restoredEarlier: Restored;
}

/** What the window needs, given the settings now in force. */
export function settingsForCapture(current: Readonly<Record<string, string>>): Record<string, string> {
  const destinations = (current.log_destination ?? 'stderr')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  const wanted: Record<string, string> = {
    log_min_duration_statement: '0',
    log_connections: 'on',
    log_disconnections: 'on',
  };
  if (!destinations.includes('csvlog')) wanted.log_destination = [...destinations, 'csvlog'].join(',');
  // Failed extended-protocol statements keep their parameters (PostgreSQL 13+).
  if ('log_parameter_max_length_on_error' in current) wanted.log_parameter_max_length_on_error = '-1';
  return wanted;
}

export async function capturePostgresLive(
  url: string,
  out: string,
  options: { durationMs: number; redact: boolean; signal: AbortSignal },
): Promise<LiveCaptureResult> {
  const sql = await connectChecked(withApplication(url), { max: 1 });
  const changed: SavedSetting[] = [];
  let server: string | undefined;
  let restored = false;
  const restore = async (): Promise<void> => {
    if (restored) return;
    restored = true;
    await restoreSettings(sql, changed);
    if (server !== undefined) await removeRecord(server);
  };
  return restoringAfter(
    async () => {
      // pg_control_system() and data_directory are a superuser's to read, as capturing is.
      server = await serverIdentity(sql).catch((err: unknown) => {
        throw permissionProblem(err, ['log_min_duration_statement', 'log_destination']);
      });
      // Before reading the settings: a killed capture's changes are not the server's own values.
      const restoredEarlier = await restorePending(server, (q) => sql.unsafe(q));
      const current = await currentSettings(sql);
      if (current.logging_collector !== 'on') {
        throw new UsageError(
          'this server does not run the logging collector (logging_collector = off), which only a restart turns on; set it on and restart, or capture --from-log from your own csvlog/jsonlog files',
        );
      }
      const altered = await alteredSettings(sql);
      const wanted = settingsForCapture(current);
      const toChange = Object.keys(wanted).filter((name) => current[name] !== wanted[name]);
      await saveRecord(server, url, [
        ...toChange.map((name) => undoStep({ name, altered: altered[name] })),
        { what: 'configuration reload', sql: 'select pg_reload_conf()' },
      ]);
      try {
        for (const [name, value] of Object.entries(wanted)) {
          if (current[name] === value) continue;
          await sql.unsafe(`alter system set ${name} = '${value.replace(/'/g, "''")}'`);
          // Recorded once made: a refused change leaves nothing to restore (and no failing restore).
          changed.push({ name, altered: altered[name] });
        }
        await sql`select pg_reload_conf()`;
      } catch (err) {
        await restore();
        throw permissionProblem(err, Object.keys(wanted));
      }
      const file = await currentCsvLog(sql);
      const startMs = await serverNowMs(sql);
      const startSize = await fileSize(sql, file);
      const interrupted = await waitFor(options.durationMs, options.signal);
      const endMs = await serverNowMs(sql);
      await restore();
      const files = await logFilesSince(sql, file, startMs);
      const dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-capture-'));
      try {
        const local = path.join(dir, 'window.csv');
        await writeFile(local, '');
        for (const f of files) await copyLog(sql, f, f === file ? startSize : 0, local);
        const counts = await captureFromLogs([local], out, {
          redact: options.redact,
          captureStartMs: startMs,
          sinceMs: startMs,
          untilMs: endMs,
          skipApplication: CAPTURE_APPLICATION,
          serverVersion: current.server_version,
        });
        return { counts, interrupted, changed: changed.map((c) => c.name), restoredEarlier };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    restore,
    () => sql.end({ timeout: 5 }),
  );
}

/**
 * The cluster as the server knows itself (its system identifier, data directory and port), not
 * by URL: two URLs reaching one server find one record.
 */
export async function serverIdentity(sql: postgres.Sql): Promise<string> {
  const [row] = await sql<{ id: string; dir: string; port: string }[]>`
    select system_identifier::text as id, current_setting('data_directory') as dir,
           current_setting('port') as port
    from pg_control_system()`;
  return `postgres ${row!.id} ${row!.dir}:${row!.port}`;
}

/** Puts back what a killed capture left changed on this server (`txbench capture --restore`). */
export async function restorePostgres(url: string): Promise<Restored> {
  const sql = await connectChecked(withApplication(url), { max: 1 });
  try {
    const server = await serverIdentity(sql);
    return await restorePending(server, (q) => sql.unsafe(q));
  } finally {
    await sql.end({ timeout: 5 }).catch(() => undefined);
  }
}

function withApplication(url: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', CAPTURE_APPLICATION);
  return u.toString();
}

async function currentSettings(sql: postgres.Sql): Promise<Record<string, string>> {
  const rows = await sql<{ name: string; setting: string }[]>`
    select name, setting from pg_settings
    where name in ('logging_collector', 'log_destination', 'log_min_duration_statement', 'log_connections',
                   'log_disconnections', 'log_parameter_max_length_on_error', 'server_version')`;
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
}

/** What postgresql.auto.conf sets now, so that restoring puts back exactly that. */
async function alteredSettings(sql: postgres.Sql): Promise<Record<string, string>> {
  try {
    const rows = await sql<{ name: string; setting: string }[]>`
      select name, setting from pg_file_settings where sourcefile like '%postgresql.auto.conf'`;
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  } catch (err) {
    throw permissionProblem(err, ['pg_file_settings']);
  }
}

function undoStep(s: SavedSetting): UndoStep {
  return {
    what: s.name,
    sql:
      s.altered === undefined
        ? `alter system reset ${s.name}`
        : `alter system set ${s.name} = '${s.altered.replace(/'/g, "''")}'`,
  };
}

async function restoreSettings(sql: postgres.Sql, changed: readonly SavedSetting[]): Promise<void> {
  if (changed.length === 0) return;
  for (const s of changed) await sql.unsafe(undoStep(s).sql);
  await sql`select pg_reload_conf()`;
}

function permissionProblem(err: unknown, names: readonly string[]): Error {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === '42501') {
    return new UsageError(
      `capturing needs a superuser (ALTER SYSTEM on ${names.join(', ')} and reading the server log); connect as one, or capture --from-log from the server's csvlog/jsonlog files; no setting was left changed`,
    );
  }
  return new DatabaseError(`could not switch statement logging on: ${errorMessage(err)}`);
}

/** The csvlog file the collector writes now; it opens one shortly after csvlog is switched on. */
async function currentCsvLog(sql: postgres.Sql): Promise<string> {
  // Up to 30 s: a busy server's collector, reloaded twice in a row (a killed capture's settings
  // put back, then this one's), can take seconds to open it.
  for (let i = 0; i < 600; i++) {
    const [row] = await sql<{ f: string | null }[]>`select pg_current_logfile('csvlog') as f`;
    if (row?.f) return row.f;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new DatabaseError('the server did not start a csvlog file after the reload; check its log settings');
}

async function serverNowMs(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ t: string }[]>`select (extract(epoch from clock_timestamp()) * 1000)::text as t`;
  return Number(row!.t);
}

async function fileSize(sql: postgres.Sql, file: string): Promise<number> {
  const [row] = await sql<{ size: string }[]>`select (pg_stat_file(${file})).size::text as size`;
  return Number(row!.size);
}

/** The csvlog files of the window in order: the one current at the start, and any rotated to since. */
async function logFilesSince(sql: postgres.Sql, first: string, startMs: number): Promise<string[]> {
  const dir = path.posix.dirname(first);
  const rows = await sql<{ name: string }[]>`
    select name from pg_ls_logdir()
    where name like '%.csv' and modification >= to_timestamp(${startMs / 1000})
    order by modification, name`;
  const files = rows.map((r) => path.posix.join(dir, r.name)).filter((f) => f !== first);
  return [first, ...files];
}

/** Copies a server log file from `offset` to a local file, in chunks, over the connection. */
async function copyLog(sql: postgres.Sql, file: string, offset: number, local: string): Promise<void> {
  const chunk = 8 * 1024 * 1024;
  for (let at = offset; ; at += chunk) {
    const [row] = await sql<{ data: Buffer }[]>`select pg_read_binary_file(${file}, ${at}, ${chunk}) as data`;
    const data = row?.data ?? Buffer.alloc(0);
    if (data.length > 0) await appendFile(local, data);
    if (data.length < chunk) return;
  }
}

/** Resolves after `ms`, or earlier when the signal fires (then true: interrupted). */
function waitFor(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

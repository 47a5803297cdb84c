/**
 * Opens SQLite files with better-sqlite3, which is loaded here on first use only (a PostgreSQL
 * user never loads it). Every connection gets the same settings: WAL journal, the URL's
 * synchronous level, a busy timeout, no foreign-key enforcement (the schema declares none; this
 * build of SQLite would otherwise enforce them by default), and a page cache.
 */
import { mkdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DatabaseError, errorMessage } from '../../errors.js';
import type { Row } from '../dialect.js';
import { parseSqliteUrl, type SqliteLocation, type Synchronous } from './url.js';

/** The part of better-sqlite3's Statement txbench uses. */
export interface SqliteStatement {
  readonly reader: boolean;
  run(params?: readonly unknown[]): { changes: number };
  get(params?: readonly unknown[]): Row | undefined;
  all(params?: readonly unknown[]): Row[];
}

/** The part of better-sqlite3's Database txbench uses. */
export interface SqliteDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): unknown;
}

type DatabaseConstructor = new (
  file: string,
  options: { timeout: number; fileMustExist: boolean },
) => SqliteDatabase;

const require = createRequire(import.meta.url);

/** The driver, loaded on first use (Node's module cache answers the calls after it). */
function loadDriver(): DatabaseConstructor {
  try {
    return require('better-sqlite3') as DatabaseConstructor;
  } catch (err) {
    throw new DatabaseError(
      `the SQLite driver (better-sqlite3) could not be loaded: ${firstLine(errorMessage(err))}; reinstall it with \`npm rebuild better-sqlite3\``,
    );
  }
}

export interface OpenOptions {
  /** Create the file and its directory when missing (otherwise a missing file is an error). */
  create: boolean;
  /** Overrides the URL's synchronous level (the bulk loader relaxes it). */
  synchronous?: Synchronous | undefined;
}

/** An open connection, and what opening it created, so an unused new file can be removed again. */
export interface OpenedSqlite {
  db: SqliteDatabase;
  location: SqliteLocation;
  /** The file did not exist before this connection opened it. */
  createdFile: boolean;
  /** The outermost directory this connection created for the file, if any. */
  createdDir: string | undefined;
}

/** Opens the file a `sqlite:` URL names and applies txbench's settings; failures are one line. */
export function openSqlite(url: string, options: OpenOptions): OpenedSqlite {
  const location = parseSqliteUrl(url);
  const { file } = location;
  const existed = fileExists(file);
  let createdDir: string | undefined;
  if (!existed) {
    if (!options.create) {
      throw new DatabaseError(
        `the SQLite database ${location.path} does not exist; create it with \`txbench load --db sqlite:${location.path}\``,
      );
    }
    try {
      createdDir = makeDirectories(path.dirname(file));
    } catch (err) {
      throw cannotOpen(location, `cannot create its directory (${fsReason(err)})`);
    }
  }
  const Database = loadDriver();
  let db: SqliteDatabase;
  try {
    db = new Database(file, { timeout: location.options.busyTimeoutMs, fileMustExist: !options.create });
  } catch (err) {
    removeCreated(file, !existed, createdDir);
    throw cannotOpen(location, openReason(err, file));
  }
  try {
    const mode = String(db.pragma('journal_mode = WAL', { simple: true }));
    if (mode.toLowerCase() !== 'wal') {
      throw new Error(`it cannot use WAL mode here (journal_mode stays ${mode})`);
    }
    db.pragma(`synchronous = ${(options.synchronous ?? location.options.synchronous).toUpperCase()}`);
    db.pragma('foreign_keys = OFF');
    db.pragma(`cache_size = ${location.options.cacheSize}`);
  } catch (err) {
    db.close();
    removeCreated(file, !existed, createdDir);
    throw cannotOpen(location, openReason(err, file));
  }
  return { db, location, createdFile: !existed, createdDir };
}

/**
 * Closes a connection. A file it created that still holds no table (a `check` or `drop` of a
 * mistyped path) is removed again, with the directories created for it.
 */
export function closeSqlite(opened: OpenedSqlite): void {
  const { db, createdFile, createdDir, location } = opened;
  if (!db.open) return;
  let empty = false;
  if (createdFile) {
    try {
      empty = db.prepare('select count(*) as n from sqlite_master').get()?.n === 0;
    } catch {
      empty = false;
    }
  }
  db.close();
  if (empty) removeCreated(location.file, true, createdDir);
}

function removeCreated(file: string, createdFile: boolean, createdDir: string | undefined): void {
  if (createdFile) for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  if (createdDir === undefined) return;
  // Innermost first, up to the outermost directory created; stop at the first that is not empty.
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
    if (dir === createdDir || path.dirname(dir) === dir) return;
  }
}

/**
 * mkdir -p that fails instead of spinning (Node 20's recursive mkdir loops forever under /proc):
 * walks up to the first existing directory, then creates the rest one by one. Returns the
 * outermost directory it created.
 */
export function makeDirectories(dir: string): string | undefined {
  const missing: string[] = [];
  let current = dir;
  for (; !fileExists(current) && path.dirname(current) !== current; current = path.dirname(current))
    missing.push(current);
  if (!statSync(current).isDirectory()) {
    throw Object.assign(new Error(`${current} is not a directory`), { code: 'ENOTDIR' });
  }
  for (const d of [...missing].reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      if (!(typeof err === 'object' && err !== null && 'code' in err && err.code === 'EEXIST')) throw err;
    }
  }
  return missing.at(-1);
}

function fileExists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

function cannotOpen(location: SqliteLocation, reason: string): DatabaseError {
  return new DatabaseError(`cannot open the SQLite database ${location.path}: ${reason}`);
}

function openReason(err: unknown, file: string): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === 'SQLITE_NOTADB') return 'the file is not a SQLite database; name another file';
  if (code === 'SQLITE_CANTOPEN') {
    const isDir = (() => {
      try {
        return statSync(file).isDirectory();
      } catch {
        return false;
      }
    })();
    return isDir
      ? 'it is a directory; name a file inside it, e.g. sqlite:<dir>/tpcc.db'
      : 'unable to open the file; check the path and its permissions';
  }
  if (code.startsWith('SQLITE_READONLY')) return 'it is read-only; check its permissions';
  if (/directory does not exist/i.test(errorMessage(err))) return 'its directory does not exist';
  return `${firstLine(errorMessage(err))}${code ? ` (${code})` : ''}`;
}

function fsReason(err: unknown): string {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a part of the path is a file, not a directory';
    case 'EROFS':
      return 'read-only file system';
    default:
      return firstLine(errorMessage(err));
  }
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0] ?? s;
}

/**
 * `sqlite:` URLs: a file path (relative to the working directory, or absolute) and a few options
 * in the query string. Pure: no file system, no driver.
 *
 *   sqlite:path/to/file.db   sqlite:/abs/file.db   sqlite:///abs/file.db
 *   sqlite:file.db?synchronous=normal&busy_timeout=10000&cache_size=-262144
 */
import path from 'node:path';
import { UsageError } from '../../errors.js';

export type Synchronous = 'off' | 'normal' | 'full' | 'extra';

export interface SqliteOptions {
  /** PRAGMA synchronous for the run's connections. FULL by default: every commit is on disk. */
  synchronous: Synchronous;
  /** How long a statement waits for another connection's lock before SQLITE_BUSY, milliseconds. */
  busyTimeoutMs: number;
  /** PRAGMA cache_size: pages when positive, KiB when negative (SQLite's own convention). */
  cacheSize: number;
}

export interface SqliteLocation {
  /** The path as the user wrote it, for messages. */
  path: string;
  /** The same path made absolute against the working directory. */
  file: string;
  options: SqliteOptions;
}

export const DEFAULT_OPTIONS: Readonly<SqliteOptions> = {
  synchronous: 'full',
  busyTimeoutMs: 5000,
  // 64 MiB, against SQLite's default of 2 MiB (-2000; this build: 16 MB): a connection's page cache.
  cacheSize: -65536,
};

const SYNCHRONOUS: readonly Synchronous[] = ['off', 'normal', 'full', 'extra'];
const OPTION_NAMES = ['synchronous', 'busy_timeout', 'cache_size'] as const;

/** Parses a `sqlite:` URL into the database file and its options; bad input is one UsageError line. */
export function parseSqliteUrl(url: string, cwd: string = process.cwd()): SqliteLocation {
  const match = /^sqlite:(.*)$/is.exec(url);
  if (match === null) throw new UsageError(`not a sqlite: URL: ${url}`);
  let rest = match[1]!;
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf('?');
  const query = question >= 0 ? rest.slice(question + 1) : '';
  let raw = question >= 0 ? rest.slice(0, question) : rest;
  // sqlite:///abs/file.db and sqlite://rel/file.db: the empty authority is not part of the path.
  if (raw.startsWith('//')) raw = raw.slice(2);
  const given = decodePath(raw);
  if (given === '') {
    throw new UsageError('the sqlite: URL names no file; use sqlite:path/to/file.db');
  }
  if (given === ':memory:' || given.startsWith('file:')) {
    throw new UsageError(
      `sqlite:${given} is not supported: txbench opens several connections (loader, run, checks), so give a file path such as sqlite:path/to/file.db`,
    );
  }
  return { path: given, file: path.resolve(cwd, given), options: parseOptions(query) };
}

function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function parseOptions(query: string): SqliteOptions {
  const options: SqliteOptions = { ...DEFAULT_OPTIONS };
  if (query === '') return options;
  for (const [key, value] of new URLSearchParams(query)) {
    switch (key) {
      case 'synchronous': {
        const v = value.toLowerCase() as Synchronous;
        if (!SYNCHRONOUS.includes(v)) {
          throw new UsageError(`sqlite: synchronous=${value} is not one of ${SYNCHRONOUS.join(', ')}`);
        }
        options.synchronous = v;
        break;
      }
      case 'busy_timeout':
        options.busyTimeoutMs = integerOption(key, value, 0, 2_147_483_647);
        break;
      case 'cache_size':
        options.cacheSize = integerOption(key, value, -2_147_483_648, 2_147_483_647);
        break;
      default:
        throw new UsageError(`unknown sqlite: URL option "${key}"; use ${OPTION_NAMES.join(', ')}`);
    }
  }
  return options;
}

function integerOption(key: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`sqlite: ${key}=${value} must be an integer from ${min} to ${max}`);
  }
  return n;
}

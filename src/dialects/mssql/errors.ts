import type { ErrorClass } from '../../engine/types.js';

/** SQL Server error numbers the engine counts by class. */
export const DEADLOCK = 1205;
export const LOCK_TIMEOUT = 1222;
/** Snapshot isolation update conflicts (3960, 3961) and In-Memory OLTP conflicts. */
const CONFLICTS: ReadonlySet<number> = new Set([3960, 3961, 41301, 41302, 41305, 41325]);
/** Duplicate key (2627, 2601), foreign key or check (547), NULL into NOT NULL (515). */
const CONSTRAINTS: ReadonlySet<number> = new Set([2627, 2601, 547, 515]);
/** Driver codes (mssql and tedious) for a connection that is gone or never came. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ESOCKET',
  'ECONNCLOSED',
  'ECONNRESET',
  'ETIMEOUT',
  'ECLOSE',
  'ENOTOPEN',
  'ENOCONN',
  'EINVALIDSTATE',
  'ELOGIN',
  'EINSTLOOKUP',
]);
/** Severity 20 and above ends the session. */
const FATAL_CLASS = 20;

interface ServerErrorFields {
  code?: unknown;
  number?: unknown;
  class?: unknown;
  info?: { number?: unknown; class?: unknown };
  originalError?: unknown;
  precedingErrors?: unknown;
}

function fieldsOf(err: unknown): ServerErrorFields {
  return typeof err === 'object' && err !== null ? (err as ServerErrorFields) : {};
}

/** The server's error number, wherever the driver put it. */
export function errorNumber(err: unknown): number | undefined {
  const f = fieldsOf(err);
  const n = f.number ?? f.info?.number ?? fieldsOf(f.originalError).info?.number;
  return typeof n === 'number' ? n : undefined;
}

function severity(err: unknown): number | undefined {
  const f = fieldsOf(err);
  const c = f.class ?? f.info?.class ?? fieldsOf(f.originalError).info?.class;
  return typeof c === 'number' ? c : undefined;
}

function classifyOne(err: unknown): ErrorClass {
  const f = fieldsOf(err);
  const code = String(f.code ?? fieldsOf(f.originalError).code ?? '');
  if (CONNECTION_CODES.has(code) || (severity(err) ?? 0) >= FATAL_CLASS) return 'connection';
  const n = errorNumber(err);
  if (n === DEADLOCK) return 'deadlock';
  if (n === LOCK_TIMEOUT) return 'lockTimeout';
  if (n !== undefined && CONFLICTS.has(n)) return 'conflict';
  if (n !== undefined && CONSTRAINTS.has(n)) return 'constraint';
  return 'other';
}

/**
 * Maps a driver error to the classes the engine counts. A batch can raise several errors (the
 * driver keeps the earlier ones in `precedingErrors`); the most telling one wins, in the order
 * connection, deadlock, lock timeout, conflict, constraint.
 */
export function classifyMssqlError(err: unknown): ErrorClass {
  const all = [
    err,
    ...(Array.isArray(fieldsOf(err).precedingErrors) ? (fieldsOf(err).precedingErrors as unknown[]) : []),
  ];
  const classes = all.map(classifyOne);
  for (const cls of ['connection', 'deadlock', 'lockTimeout', 'conflict', 'constraint'] as const) {
    if (classes.includes(cls)) return cls;
  }
  return 'other';
}

export function isRetryable(cls: ErrorClass): boolean {
  return cls === 'conflict' || cls === 'deadlock' || cls === 'lockTimeout';
}

/** Permission errors when creating or running procedures: denied (229, 262, 297, 300), no schema (2760). */
const PERMISSION_NUMBERS: ReadonlySet<number> = new Set([229, 262, 297, 300, 2760, 15247]);

export function isPermissionError(err: unknown): boolean {
  const n = errorNumber(err);
  return n !== undefined && PERMISSION_NUMBERS.has(n);
}

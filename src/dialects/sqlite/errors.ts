import type { ErrorClass } from '../../engine/types.js';

/**
 * Maps better-sqlite3's SqliteError codes (SQLite's extended result codes, e.g. `SQLITE_BUSY`,
 * `SQLITE_CONSTRAINT_PRIMARYKEY`) to the classes the engine counts.
 * - SQLITE_BUSY (and _RECOVERY, _TIMEOUT): another connection held the lock past busy_timeout.
 * - SQLITE_BUSY_SNAPSHOT: a read transaction in WAL mode tried to write after another connection
 *   committed; only a fresh transaction can proceed, as after a serialization failure.
 * - I/O errors, a corrupt or vanished file, a full disk: the database is gone for this run.
 */
export function classifySqliteError(err: unknown): ErrorClass {
  const code = codeOf(err);
  if (code === 'SQLITE_BUSY_SNAPSHOT') return 'conflict';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'lockTimeout';
  if (code.startsWith('SQLITE_CONSTRAINT')) return 'constraint';
  if (/^SQLITE_(IOERR|CANTOPEN|CORRUPT|NOTADB|FULL|READONLY|PROTOCOL|NOMEM)/.test(code)) return 'connection';
  // better-sqlite3 throws a plain TypeError once its handle is closed.
  if (err instanceof TypeError && /database connection is not open/i.test(err.message)) return 'connection';
  return 'other';
}

export function isRetryable(cls: ErrorClass): boolean {
  return cls === 'conflict' || cls === 'deadlock' || cls === 'lockTimeout';
}

function codeOf(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
}

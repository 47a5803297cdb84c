import { describe, expect, it } from 'vitest';
import { classifySqliteError, isRetryable } from '../../src/dialects/sqlite/errors.js';

/** better-sqlite3 throws a SqliteError with SQLite's extended result code as `code`. */
function sqliteError(code: string): Error {
  return Object.assign(new Error(`${code} happened`), { code });
}

describe('classifySqliteError', () => {
  it('counts a lock held past busy_timeout as a lock timeout, retried', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED']) {
      expect(classifySqliteError(sqliteError(code)), code).toBe('lockTimeout');
    }
    expect(isRetryable('lockTimeout')).toBe(true);
  });

  it('counts a stale WAL snapshot as a conflict, retried', () => {
    expect(classifySqliteError(sqliteError('SQLITE_BUSY_SNAPSHOT'))).toBe('conflict');
    expect(isRetryable('conflict')).toBe(true);
  });

  it('counts constraint violations as constraint errors, not retried', () => {
    expect(classifySqliteError(sqliteError('SQLITE_CONSTRAINT_PRIMARYKEY'))).toBe('constraint');
    expect(classifySqliteError(sqliteError('SQLITE_CONSTRAINT_UNIQUE'))).toBe('constraint');
    expect(isRetryable('constraint')).toBe(false);
  });

  it('treats I/O errors, a full disk, a corrupt or vanished file as the database lost', () => {
    for (const code of [
      'SQLITE_IOERR_FSYNC',
      'SQLITE_IOERR',
      'SQLITE_FULL',
      'SQLITE_CORRUPT',
      'SQLITE_NOTADB',
      'SQLITE_CANTOPEN',
      'SQLITE_READONLY_DBMOVED',
    ]) {
      expect(classifySqliteError(sqliteError(code)), code).toBe('connection');
    }
    expect(classifySqliteError(new TypeError('The database connection is not open'))).toBe('connection');
  });

  it('leaves everything else as other', () => {
    expect(classifySqliteError(sqliteError('SQLITE_ERROR'))).toBe('other');
    expect(classifySqliteError(new Error('no code'))).toBe('other');
    expect(classifySqliteError('a string')).toBe('other');
    expect(classifySqliteError(undefined)).toBe('other');
  });
});

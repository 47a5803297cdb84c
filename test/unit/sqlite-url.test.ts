import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { DEFAULT_OPTIONS, parseSqliteUrl } from '../../src/dialects/sqlite/url.js';

const cwd = '/home/bench';

describe('parseSqliteUrl', () => {
  it('resolves a relative path against the working directory', () => {
    const l = parseSqliteUrl('sqlite:data/tpcc.db', cwd);
    expect(l.path).toBe('data/tpcc.db');
    expect(l.file).toBe(path.resolve(cwd, 'data/tpcc.db'));
    expect(l.options).toEqual(DEFAULT_OPTIONS);
  });

  it('keeps an absolute path, also in the sqlite:/// form', () => {
    expect(parseSqliteUrl('sqlite:/tmp/x/tpcc.db', cwd).file).toBe('/tmp/x/tpcc.db');
    expect(parseSqliteUrl('sqlite:///tmp/x/tpcc.db', cwd).file).toBe('/tmp/x/tpcc.db');
    expect(parseSqliteUrl('sqlite://rel/tpcc.db', cwd).file).toBe(path.resolve(cwd, 'rel/tpcc.db'));
  });

  it('decodes percent escapes and drops a fragment', () => {
    expect(parseSqliteUrl('sqlite:my%20bench.db#x', cwd).path).toBe('my bench.db');
  });

  it('defaults to synchronous FULL, a 5 s busy timeout and a 64 MiB cache', () => {
    expect(DEFAULT_OPTIONS).toEqual({ synchronous: 'full', busyTimeoutMs: 5000, cacheSize: -65536 });
  });

  it('reads synchronous, busy_timeout and cache_size from the query string', () => {
    const l = parseSqliteUrl('sqlite:t.db?synchronous=NORMAL&busy_timeout=250&cache_size=-1024', cwd);
    expect(l.path).toBe('t.db');
    expect(l.options).toEqual({ synchronous: 'normal', busyTimeoutMs: 250, cacheSize: -1024 });
  });

  it('refuses unknown or malformed options with one line', () => {
    expect(() => parseSqliteUrl('sqlite:t.db?journal_mode=delete', cwd)).toThrow(
      /unknown sqlite: URL option "journal_mode"; use synchronous, busy_timeout, cache_size/,
    );
    expect(() => parseSqliteUrl('sqlite:t.db?synchronous=fast', cwd)).toThrow(/not one of off, normal, full/);
    expect(() => parseSqliteUrl('sqlite:t.db?busy_timeout=-1', cwd)).toThrow(
      /busy_timeout=-1 must be an integer/,
    );
    expect(() => parseSqliteUrl('sqlite:t.db?busy_timeout=1.5', cwd)).toThrow(UsageError);
  });

  it('refuses a URL without a file, and in-memory or URI file names', () => {
    expect(() => parseSqliteUrl('sqlite:', cwd)).toThrow(/names no file/);
    expect(() => parseSqliteUrl('sqlite:?synchronous=off', cwd)).toThrow(/names no file/);
    expect(() => parseSqliteUrl('sqlite::memory:', cwd)).toThrow(/give a file path/);
    expect(() => parseSqliteUrl('sqlite:file:x.db', cwd)).toThrow(/give a file path/);
  });
});

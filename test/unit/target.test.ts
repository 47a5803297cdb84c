import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, UsageError } from '../../src/errors.js';
import { DEFAULT_DATA_DIR, resolveTarget } from '../../src/targets/target.js';

/** Runs `fn` and returns the UsageError it throws (failing the test otherwise). */
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError, but nothing was thrown');
}

describe('resolveTarget: embedded', () => {
  it('without --db or environment uses the embedded server on .txbench/pg', () => {
    const spec = resolveTarget({}, {});
    expect(DEFAULT_DATA_DIR).toBe(path.join('.txbench', 'pg'));
    expect(spec).toEqual({
      kind: 'embedded',
      dataDir: DEFAULT_DATA_DIR,
      label: `embedded:${DEFAULT_DATA_DIR}`,
    });
  });

  it('uses --data-dir when given', () => {
    expect(resolveTarget({ dataDir: '/mnt/nvme/pg' }, {})).toEqual({
      kind: 'embedded',
      dataDir: '/mnt/nvme/pg',
      label: 'embedded:/mnt/nvme/pg',
    });
  });

  it('uses --label when given', () => {
    expect(resolveTarget({ label: 'laptop' }, {}).label).toBe('laptop');
  });

  it('ignores unrelated environment variables, and PGUSER/PGPASSWORD alone', () => {
    const spec = resolveTarget({}, { HOME: '/home/x', PGUSER: 'bob', PGPASSWORD: 'pw', PGPORT: '5433' });
    expect(spec.kind).toBe('embedded');
  });
});

describe('resolveTarget: URL', () => {
  it('uses --db', () => {
    const spec = resolveTarget({ db: 'postgres://u:pw@db.example:6543/tpcc' }, {});
    expect(spec).toEqual({
      kind: 'url',
      url: 'postgres://u:pw@db.example:6543/tpcc',
      label: 'db.example:6543/tpcc',
    });
  });

  it('accepts the postgresql:// scheme and defaults the label port to 5432', () => {
    const spec = resolveTarget({ db: 'postgresql://h/db' }, {});
    expect(spec).toEqual({ kind: 'url', url: 'postgresql://h/db', label: 'h:5432/db' });
  });

  it('never puts the password in the label', () => {
    const spec = resolveTarget({ db: 'postgres://u:secret@h/db' }, {});
    expect(spec.label).not.toContain('secret');
    expect(spec.label).not.toContain('u:');
  });

  it('uses --label instead of the derived one', () => {
    expect(resolveTarget({ db: 'postgres://h/db', label: 'prod' }, {}).label).toBe('prod');
  });

  it('uses DATABASE_URL when there is no --db', () => {
    const spec = resolveTarget({}, { DATABASE_URL: 'postgres://env@envhost/envdb' });
    expect(spec).toMatchObject({ kind: 'url', url: 'postgres://env@envhost/envdb' });
  });

  it('--db wins over DATABASE_URL and the PG* variables', () => {
    const spec = resolveTarget(
      { db: 'postgres://flag@flaghost/flagdb' },
      { DATABASE_URL: 'postgres://env@envhost/envdb', PGHOST: 'pghost', PGDATABASE: 'pgdb' },
    );
    expect(spec).toMatchObject({ kind: 'url', url: 'postgres://flag@flaghost/flagdb' });
  });

  it('DATABASE_URL wins over the PG* variables', () => {
    const spec = resolveTarget(
      {},
      { DATABASE_URL: 'postgres://env@envhost/envdb', PGHOST: 'pghost', PGDATABASE: 'pgdb' },
    );
    expect(spec).toMatchObject({ kind: 'url', url: 'postgres://env@envhost/envdb' });
  });

  it('builds a URL from PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE', () => {
    const spec = resolveTarget(
      {},
      { PGHOST: 'db.example', PGPORT: '6543', PGUSER: 'bob', PGPASSWORD: 'pw', PGDATABASE: 'tpcc' },
    );
    expect(spec.kind).toBe('url');
    if (spec.kind !== 'url') return;
    const url = new URL(spec.url);
    expect(url.protocol).toBe('postgres:');
    expect(url.hostname).toBe('db.example');
    expect(url.port).toBe('6543');
    expect(url.username).toBe('bob');
    expect(url.password).toBe('pw');
    expect(url.pathname).toBe('/tpcc');
    expect(spec.label).toBe('db.example:6543/tpcc');
  });

  it('percent-encodes special characters from the PG* variables', () => {
    const spec = resolveTarget(
      {},
      { PGHOST: 'h', PGUSER: 'b@b', PGPASSWORD: 'p@ss:w/rd#?', PGDATABASE: 'my db' },
    );
    expect(spec.kind).toBe('url');
    if (spec.kind !== 'url') return;
    const url = new URL(spec.url);
    expect(decodeURIComponent(url.username)).toBe('b@b');
    expect(decodeURIComponent(url.password)).toBe('p@ss:w/rd#?');
    expect(decodeURIComponent(url.pathname)).toBe('/my db');
    expect(url.hostname).toBe('h');
    expect(spec.label).not.toContain('p@ss');
  });

  it('PGDATABASE alone means localhost; the database defaults to PGUSER, then postgres', () => {
    const a = resolveTarget({}, { PGDATABASE: 'tpcc' });
    expect(a).toMatchObject({ kind: 'url', label: 'localhost:5432/tpcc' });
    const b = resolveTarget({}, { PGHOST: 'h', PGUSER: 'bob' });
    expect(b).toMatchObject({ kind: 'url', label: 'h:5432/bob' });
    const c = resolveTarget({}, { PGHOST: 'h' });
    expect(c).toMatchObject({ kind: 'url', label: 'h:5432/postgres' });
  });
});

describe('resolveTarget: errors', () => {
  it.each([
    ['oracle://u:secret@h/db', 'unsupported'],
    ['http://u:secret@h/db', 'unsupported'],
    ['garbage', 'unsupported'],
    ['secret', 'unsupported'],
    ['postgres://u:secret@h:99999/db', 'malformed'],
    ['postgres://u:secret@h:port/db', 'malformed'],
  ])('rejects %s with a one-line UsageError that hides the password', (db, kind) => {
    const err = usageError(() => resolveTarget({ db }, {}));
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toContain(kind);
    expect(err.message).not.toContain('\n');
    expect(err.message).toContain('postgres://user:password@host:port/db');
    if (db.includes('@')) expect(err.message).not.toContain('secret');
  });

  it('rejects an unsupported DATABASE_URL the same way', () => {
    const err = usageError(() => resolveTarget({}, { DATABASE_URL: 'oracle://root:secret@h/db' }));
    expect(err.message).toContain('unsupported');
    expect(err.message).not.toContain('secret');
  });

  it('rejects --data-dir together with --db', () => {
    const err = usageError(() => resolveTarget({ db: 'postgres://h/db', dataDir: '/tmp/pg' }, {}));
    expect(err.message).toContain('--data-dir');
    expect(err.message).not.toContain('\n');
  });

  it('rejects --data-dir together with DATABASE_URL or PG* variables', () => {
    expect(() => resolveTarget({ dataDir: '/tmp/pg' }, { DATABASE_URL: 'postgres://h/db' })).toThrow(
      UsageError,
    );
    expect(() => resolveTarget({ dataDir: '/tmp/pg' }, { PGHOST: 'h' })).toThrow(UsageError);
  });
});

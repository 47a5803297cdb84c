import { describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/errors.js';
import {
  classifyMysqlError,
  describeConnectionError,
  isMysqlServerFault,
  isRetryable,
  parseServerVersion,
  versionProblem,
} from '../../src/dialects/mysql/errors.js';
import { parseMysqlUrl } from '../../src/dialects/mysql/url.js';

/** An error shaped as mysql2 reports one. */
function serverError(errno: number, code = 'ER_X', message = 'server error'): Error {
  return Object.assign(new Error(message), { errno, code, sqlState: 'HY000', fatal: false });
}

describe('classifyMysqlError', () => {
  it('a table or disk full (1114, 1021, OS error 28) is the server failing: it opens an outage', () => {
    expect(
      isMysqlServerFault(serverError(1114, 'ER_RECORD_FILE_FULL', "The table 'order_line' is full")),
    ).toBe(true);
    expect(isMysqlServerFault(serverError(1021, 'ER_DISK_FULL'))).toBe(true);
    expect(
      isMysqlServerFault(
        Object.assign(serverError(1030, 'ER_GET_ERRNO'), {
          sqlMessage: 'Got error 28 "No space left on device" from storage engine InnoDB',
        }),
      ),
    ).toBe(true);
    expect(isMysqlServerFault(serverError(1062, 'ER_DUP_ENTRY'))).toBe(false);
  });

  it('tells deadlocks from lock wait timeouts', () => {
    expect(classifyMysqlError(serverError(1213, 'ER_LOCK_DEADLOCK'))).toBe('deadlock');
    expect(classifyMysqlError(serverError(1205, 'ER_LOCK_WAIT_TIMEOUT'))).toBe('lockTimeout');
  });

  it('counts write conflicts as conflicts', () => {
    expect(classifyMysqlError(serverError(1020))).toBe('conflict');
    expect(classifyMysqlError(serverError(9007))).toBe('conflict');
  });

  it('retries deadlocks, lock wait timeouts and conflicts, nothing else', () => {
    expect(isRetryable('deadlock')).toBe(true);
    expect(isRetryable('lockTimeout')).toBe(true);
    expect(isRetryable('conflict')).toBe(true);
    expect(isRetryable('connection')).toBe(false);
    expect(isRetryable('constraint')).toBe(false);
    expect(isRetryable('other')).toBe(false);
  });

  it.each([
    ['PROTOCOL_CONNECTION_LOST', undefined],
    ['ECONNRESET', undefined],
    ['ECONNREFUSED', undefined],
    ['EPIPE', undefined],
    ['ETIMEDOUT', undefined],
    ['EHOSTUNREACH', undefined],
    ['ENETUNREACH', undefined],
    ['ER_SERVER_SHUTDOWN', 1053],
    ['ER_CONNECTION_KILLED', 1927],
    ['CR_SERVER_GONE_ERROR', 2006],
    ['CR_SERVER_LOST', 2013],
  ])('counts %s as a lost connection', (code, errno) => {
    expect(classifyMysqlError(Object.assign(new Error('x'), { code, errno }))).toBe('connection');
  });

  it('counts 2006 and 2013 without a code, and any fatal error, as lost connections', () => {
    expect(classifyMysqlError({ errno: 2006 })).toBe('connection');
    expect(classifyMysqlError({ errno: 2013 })).toBe('connection');
    expect(classifyMysqlError(Object.assign(new Error('x'), { fatal: true }))).toBe('connection');
  });

  it('counts duplicate keys and other integrity errors as constraint violations', () => {
    expect(classifyMysqlError(serverError(1062, 'ER_DUP_ENTRY'))).toBe('constraint');
    expect(classifyMysqlError(serverError(1048, 'ER_BAD_NULL_ERROR'))).toBe('constraint');
    expect(classifyMysqlError(serverError(1452))).toBe('constraint');
  });

  it('calls the rest other', () => {
    expect(classifyMysqlError(serverError(1064, 'ER_PARSE_ERROR'))).toBe('other');
    expect(classifyMysqlError(new Error('plain'))).toBe('other');
    expect(classifyMysqlError(undefined)).toBe('other');
    expect(classifyMysqlError('text')).toBe('other');
  });
});

describe('describeConnectionError', () => {
  const s = parseMysqlUrl('mysql://bench:hunter2@db:3306/tpcc', {});

  it('says what to do in one line, for each common failure', () => {
    const cases: [unknown, RegExp][] = [
      [{ code: 'ECONNREFUSED' }, /connection refused; start the server/],
      [{ code: 'ENOTFOUND' }, /cannot resolve the host/],
      [{ code: 'ETIMEDOUT' }, /timed out connecting to db:3306/],
      [serverError(1045, 'ER_ACCESS_DENIED_ERROR'), /access denied for bench at db:3306/],
      [serverError(1049, 'ER_BAD_DB_ERROR'), /database "tpcc" does not exist.*create database tpcc/],
      [serverError(1044, 'ER_DBACCESS_DENIED_ERROR'), /bench may not use database "tpcc"/],
      [serverError(1040, 'ER_CON_COUNT_ERROR'), /too many connections/],
      [{ code: 'HANDSHAKE_NO_SSL_SUPPORT' }, /does not offer TLS/],
      [new Error('self-signed certificate in certificate chain'), /TLS to db:3306 failed.*sslca=FILE/],
    ];
    for (const [err, expected] of cases) {
      const out = describeConnectionError(err, s);
      expect(out).toBeInstanceOf(DatabaseError);
      expect(out.message).toMatch(expected);
      expect(out.message).not.toContain('\n');
    }
  });

  it('never repeats the password, even when the driver put it in its message', () => {
    const out = describeConnectionError(new Error('weird failure for bench:hunter2'), s);
    expect(out.message).not.toContain('hunter2');
    expect(out.message).toContain('mysql://bench:***@db:3306/tpcc');
  });
});

describe('server versions', () => {
  it('reads MariaDB, MySQL and TiDB version strings', () => {
    expect(parseServerVersion('10.11.6-MariaDB-0+deb12u1')).toEqual({
      product: 'MariaDB',
      version: '10.11.6',
      major: 10,
      minor: 11,
    });
    expect(parseServerVersion('5.5.5-10.6.12-MariaDB-log')).toMatchObject({
      product: 'MariaDB',
      major: 10,
      minor: 6,
    });
    expect(parseServerVersion('8.0.36')).toEqual({ product: 'MySQL', version: '8.0.36', major: 8, minor: 0 });
    expect(parseServerVersion('8.4.0-commercial')).toMatchObject({ product: 'MySQL', version: '8.4.0' });
    expect(parseServerVersion('8.0.11-TiDB-v7.5.0')).toMatchObject({ product: 'TiDB', major: 7, minor: 5 });
  });

  it('accepts MySQL 8.0+ and MariaDB 10.5+', () => {
    for (const v of ['8.0.36', '8.4.0', '9.1.0', '10.5.0-MariaDB', '10.11.6-MariaDB', '11.4.2-MariaDB']) {
      expect(versionProblem(parseServerVersion(v), 'h:3306'), v).toBeUndefined();
    }
  });

  it('refuses older servers in one line naming the version', () => {
    const mysql57 = versionProblem(parseServerVersion('5.7.44-log'), 'h:3306');
    expect(mysql57).toBeInstanceOf(DatabaseError);
    expect(mysql57?.message).toBe(
      'MySQL 5.7.44 at h:3306 is too old: txbench needs MySQL 8.0 or later, or MariaDB 10.5 or later',
    );
    expect(versionProblem(parseServerVersion('10.4.32-MariaDB'), 'h:3306')?.message).toMatch(
      /^MariaDB 10\.4\.32 at h:3306 is too old/,
    );
  });
});

/** PostgreSQL's SQLSTATEs and Node's socket codes as the run counts them (dialects/postgres/errors.ts). */
import { describe, expect, it } from 'vitest';
import {
  classifyPostgresError,
  isPostgresServerFault,
  isRetryable,
} from '../../src/dialects/postgres/errors.js';

const withCode = (code: string): Error => Object.assign(new Error(code), { code });

describe('classifyPostgresError', () => {
  it('a cancelled statement (57014: statement_timeout, a DBA cancel) is not a retryable lock timeout', () => {
    const cls = classifyPostgresError(withCode('57014'));
    expect(cls).toBe('other');
    expect(isRetryable(cls)).toBe(false);
  });

  it('lock_not_available (55P03) is a lock timeout, tried again', () => {
    expect(classifyPostgresError(withCode('55P03'))).toBe('lockTimeout');
    expect(isRetryable('lockTimeout')).toBe(true);
  });

  it.each([
    'EHOSTUNREACH',
    'ENETUNREACH',
    'EAI_AGAIN',
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'CONNECTION_CLOSED',
  ])('counts %s as a lost connection (it opens an outage)', (code) => {
    expect(classifyPostgresError(withCode(code))).toBe('connection');
  });

  it('counts serialization failures, deadlocks and constraints by class', () => {
    expect(classifyPostgresError(withCode('40001'))).toBe('conflict');
    expect(classifyPostgresError(withCode('40P01'))).toBe('deadlock');
    expect(classifyPostgresError(withCode('23505'))).toBe('constraint');
    expect(classifyPostgresError(withCode('22012'))).toBe('other');
  });

  it('a full disk (53100) or an I/O error (58030) is the server failing: it opens an outage', () => {
    expect(isPostgresServerFault(withCode('53100'))).toBe(true);
    expect(isPostgresServerFault(withCode('58030'))).toBe(true);
    expect(isPostgresServerFault(withCode('23505'))).toBe(false);
  });
});

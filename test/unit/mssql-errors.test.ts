/** SQL Server error classification, in the shapes the mssql driver produces. */
import { describe, expect, it } from 'vitest';
import {
  classifyMssqlError,
  errorNumber,
  isPermissionError,
  isRetryable,
} from '../../src/dialects/mssql/errors.js';

/** A RequestError as mssql builds it from a server error (number and class copied from info). */
function serverError(number: number, cls = 16): Error {
  const info = { number, class: cls, state: 1, message: `error ${number}` };
  return Object.assign(new Error(`error ${number}`), {
    name: 'RequestError',
    code: 'EREQUEST',
    number,
    class: cls,
    originalError: Object.assign(new Error(`error ${number}`), { info }),
  });
}

function codeError(code: string, name = 'ConnectionError'): Error {
  return Object.assign(new Error(code), { name, code });
}

describe('classifyMssqlError', () => {
  it('classifies the server error numbers', () => {
    expect(classifyMssqlError(serverError(1205, 13))).toBe('deadlock');
    expect(classifyMssqlError(serverError(1222))).toBe('lockTimeout');
    expect(classifyMssqlError(serverError(3960))).toBe('conflict');
    expect(classifyMssqlError(serverError(3961))).toBe('conflict');
    expect(classifyMssqlError(serverError(41302))).toBe('conflict');
    expect(classifyMssqlError(serverError(2627, 14))).toBe('constraint');
    expect(classifyMssqlError(serverError(2601, 14))).toBe('constraint');
    expect(classifyMssqlError(serverError(547))).toBe('constraint');
    expect(classifyMssqlError(serverError(515))).toBe('constraint');
    expect(classifyMssqlError(serverError(208))).toBe('other');
    expect(classifyMssqlError(serverError(50001))).toBe('other');
  });

  it('reads the number from the original error when the wrapper lacks it', () => {
    const err = Object.assign(new Error('x'), {
      code: 'EREQUEST',
      originalError: { info: { number: 1205, class: 13 } },
    });
    expect(errorNumber(err)).toBe(1205);
    expect(classifyMssqlError(err)).toBe('deadlock');
    expect(classifyMssqlError({ info: { number: 1222 } })).toBe('lockTimeout');
  });

  it('treats driver connection codes and fatal severities as a lost connection', () => {
    for (const code of [
      'ESOCKET',
      'ECONNCLOSED',
      'ETIMEOUT',
      'ECLOSE',
      'ENOTOPEN',
      'ELOGIN',
      'EINVALIDSTATE',
    ]) {
      expect(classifyMssqlError(codeError(code)), code).toBe('connection');
    }
    expect(classifyMssqlError(codeError('ESOCKET', 'RequestError'))).toBe('connection');
    expect(classifyMssqlError(serverError(596, 21))).toBe('connection');
    expect(classifyMssqlError(serverError(1205, 20))).toBe('connection');
  });

  it('looks at the errors that came before the last one', () => {
    const err = Object.assign(serverError(3998), { precedingErrors: [serverError(1205, 13)] });
    expect(classifyMssqlError(err)).toBe('deadlock');
  });

  it('falls back to other for anything else', () => {
    expect(classifyMssqlError(new Error('plain'))).toBe('other');
    expect(classifyMssqlError('a string')).toBe('other');
    expect(classifyMssqlError(undefined)).toBe('other');
    expect(classifyMssqlError(codeError('ECANCEL', 'RequestError'))).toBe('other');
  });

  it('retries deadlocks, lock timeouts and conflicts only', () => {
    expect(isRetryable('deadlock')).toBe(true);
    expect(isRetryable('lockTimeout')).toBe(true);
    expect(isRetryable('conflict')).toBe(true);
    expect(isRetryable('constraint')).toBe(false);
    expect(isRetryable('connection')).toBe(false);
    expect(isRetryable('other')).toBe(false);
  });

  it('recognises missing privileges', () => {
    expect(isPermissionError(serverError(262, 14))).toBe(true);
    expect(isPermissionError(serverError(229, 14))).toBe(true);
    expect(isPermissionError(serverError(2760))).toBe(true);
    expect(isPermissionError(serverError(1205))).toBe(false);
    expect(isPermissionError(new Error('x'))).toBe(false);
  });
});

import type { ErrorClass } from '../../engine/types.js';

/** Node's and postgres.js's codes for a connection that broke or could not be made. */
const CONNECTION_CODES = /^(CONNECTION_|ECONN|EPIPE|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)/;

/**
 * Maps PostgreSQL SQLSTATEs and postgres.js/Node codes to the classes the engine counts.
 *
 * 57014 (query_canceled) is `other`, not a lock timeout: it is a statement_timeout or someone's
 * pg_cancel_backend, and trying again would only wait as long again. txbench's own cancel (the
 * transaction timeout) gives 57014 too; the executor knows it sent that one and counts it as
 * `timeout` before asking here.
 */
export function classifyPostgresError(err: unknown): ErrorClass {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === '40001') return 'conflict';
  if (code === '40P01') return 'deadlock';
  if (code === '55P03') return 'lockTimeout';
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return 'connection';
  if (CONNECTION_CODES.test(code)) return 'connection';
  if (code.startsWith('23')) return 'constraint';
  return 'other';
}

/**
 * The server cannot do its work at all: 53100 disk_full (out of space for a table or its WAL),
 * 58030 io_error. Every write fails until someone frees space: an outage, not a run of errors.
 */
export function isPostgresServerFault(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  return code === '53100' || code === '58030';
}

export function isRetryable(cls: ErrorClass): boolean {
  return cls === 'conflict' || cls === 'deadlock' || cls === 'lockTimeout';
}

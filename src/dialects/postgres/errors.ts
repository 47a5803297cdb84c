import type { ErrorClass } from '../../engine/types.js';

/** Maps PostgreSQL SQLSTATEs and postgres.js/Node codes to the classes the engine counts. */
export function classifyPostgresError(err: unknown): ErrorClass {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  if (code === '40001') return 'conflict';
  if (code === '40P01') return 'deadlock';
  if (code === '55P03' || code === '57014') return 'lockTimeout';
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return 'connection';
  if (/^(CONNECTION_|ECONN|EPIPE|ETIMEDOUT|ENOTFOUND)/.test(code)) return 'connection';
  if (code.startsWith('23')) return 'constraint';
  return 'other';
}

export function isRetryable(cls: ErrorClass): boolean {
  return cls === 'conflict' || cls === 'deadlock' || cls === 'lockTimeout';
}

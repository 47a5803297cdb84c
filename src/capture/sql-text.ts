/** What a statement's leading keywords say, for every dialect: the transaction boundaries. */
import type { TxBoundary } from './format.js';

const LEADING_COMMENTS = /^(?:\s+|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/;

/**
 * BEGIN / START TRANSACTION open a transaction; COMMIT / END close it; ROLLBACK / ABORT undo it
 * (but ROLLBACK TO SAVEPOINT and PREPARE TRANSACTION's relatives do not end it). A batch that
 * holds more than one statement is judged by its first and last.
 */
export function txBoundary(sql: string): TxBoundary | undefined {
  const parts = sql
    .split(';')
    .map((s) => s.replace(LEADING_COMMENTS, '').trim())
    .filter((s) => s.length > 0);
  if (parts.length === 0) return undefined;
  const first = boundaryOf(parts[0]!);
  if (parts.length === 1) return first;
  const last = boundaryOf(parts.at(-1)!);
  // A batch that begins and commits is a whole transaction by itself: no open boundary.
  if (first === 'begin' && last !== undefined && last !== 'begin') return undefined;
  return last ?? first;
}

function boundaryOf(statement: string): TxBoundary | undefined {
  const [a, b] = statement.toLowerCase().split(/\s+/, 2);
  switch (a) {
    case 'begin':
      return 'begin';
    case 'start':
      return b === 'transaction' ? 'begin' : undefined;
    case 'commit':
      return b === 'prepared' ? undefined : 'commit';
    case 'end':
      return b === undefined || b === 'transaction' || b === 'work' ? 'commit' : undefined;
    case 'rollback':
    case 'abort':
      return b === 'prepared' || /\bto\b/.test(statement.toLowerCase()) ? undefined : 'rollback';
    default:
      return undefined;
  }
}

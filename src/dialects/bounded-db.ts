/**
 * A Db whose every call is bounded: the side connection a run uses for its counters, audit and
 * monitoring queries must never hang the run when the server stops answering it. A call past the
 * bound fails with SideQueryTimeoutError (what used it records the figure as missing); the
 * statement may still be running on the server, and later calls wait behind it, each bounded.
 */
import { TxbenchError, ExitCode } from '../errors.js';
import type { Db, Row } from './dialect.js';

export class SideQueryTimeoutError extends TxbenchError {
  constructor(ms: number) {
    super(`the side connection's query got no answer within ${ms / 1000} s`, ExitCode.database);
    this.name = 'SideQueryTimeoutError';
  }
}

/** `db` with each query and each whole transaction bounded by `ms`. */
export function boundedDb(db: Db, ms: number): Db {
  const bounded = <T>(promise: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SideQueryTimeoutError(ms)), ms);
      timer.unref();
    });
    // A late answer (or failure) of a call given up on is dropped, never unhandled.
    promise.catch(() => undefined);
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  };
  return {
    query: <T extends Row = Row>(sql: string, params?: readonly unknown[]) =>
      bounded(db.query<T>(sql, params)),
    transaction: (work) => bounded(db.transaction(work)),
    close: () => db.close(),
  };
}

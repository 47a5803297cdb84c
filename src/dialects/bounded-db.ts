/**
 * A Db whose every call is bounded: the side connection a run uses for its counters, audit and
 * monitoring queries must never hang the run when the server stops answering it. A call past the
 * bound fails with SideQueryTimeoutError (what used it records the figure as missing). The
 * statement may still be running on the server and later calls would only queue behind it on the
 * one connection, so until it settles they fail at once rather than each waiting out the bound.
 */
import { TxbenchError, ExitCode } from '../errors.js';
import type { Db, Row } from './dialect.js';

export class SideQueryTimeoutError extends TxbenchError {
  constructor(ms: number, waiting = false) {
    super(
      waiting
        ? `the side connection is still waiting for a query that got no answer within ${ms / 1000} s`
        : `the side connection's query got no answer within ${ms / 1000} s`,
      ExitCode.database,
    );
    this.name = 'SideQueryTimeoutError';
  }
}

/** A bounded Db, and how many of its calls failed for the bound (given up on, or behind one). */
export interface BoundedDb extends Db {
  readonly timedOut: number;
}

/** While the server is unreachable, how often one call may try it again (the others fail at once). */
const UNREACHABLE_PROBE_MS = 5000;

/**
 * `db` with each query and each whole transaction bounded by `ms`. With `isLost` (the dialect's
 * test for a lost connection), a call that fails because the server cannot be reached makes the
 * calls after it fail at once with the same error, but for one every few seconds that tries the
 * server again: a database that is gone (crashed, its disk full) must not make every counter,
 * audit and monitoring query of the run wait out the driver's connect timeout, one after another.
 */
export function boundedDb(db: Db, ms: number, isLost?: (err: unknown) => boolean): BoundedDb {
  /** Calls given up on that have not settled yet: while any has, new calls fail at once. */
  let unanswered = 0;
  let timedOut = 0;
  /** The server's last lost-connection error, until a call succeeds again; and the last probe. */
  let lost: unknown;
  let probedAt = 0;
  let probing = false;
  const bounded = <T>(call: () => Promise<T>): Promise<T> => {
    if (unanswered > 0) {
      timedOut++;
      return Promise.reject(new SideQueryTimeoutError(ms, true));
    }
    if (lost !== undefined) {
      if (probing || performance.now() - probedAt < UNREACHABLE_PROBE_MS) return Promise.reject(lost);
      probing = true;
      probedAt = performance.now();
    }
    const promise = call();
    if (isLost !== undefined) {
      promise.then(
        () => {
          lost = undefined;
          probing = false;
        },
        (err: unknown) => {
          probing = false;
          if (isLost(err)) {
            lost = err;
            probedAt = performance.now();
          } else lost = undefined;
        },
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        unanswered++;
        timedOut++;
        // A late answer (or failure) of a call given up on is dropped, never unhandled.
        void promise.then(
          () => unanswered--,
          () => unanswered--,
        );
        reject(new SideQueryTimeoutError(ms));
      }, ms);
      timer.unref();
    });
    promise.catch(() => undefined);
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  };
  return {
    query: <T extends Row = Row>(sql: string, params?: readonly unknown[]) =>
      bounded(() => db.query<T>(sql, params)),
    transaction: (work) => bounded(() => db.transaction(work)),
    close: () => db.close(),
    get timedOut() {
      return timedOut;
    },
  };
}

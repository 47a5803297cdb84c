/**
 * What client-side SQL needs of a PostgreSQL driver: statements sent together (pipelined), each
 * with its own result, and one statement at a time. Two runners: postgres.js (reserved
 * connections) and the wire path (dialects/postgres/wire). Both prepare a statement with
 * parameters once per connection and send one without parameters (BEGIN, COMMIT) as it is.
 */
import type { Row } from '../../../dialects/connections.js';
import type { PostgresConn } from '../../../dialects/postgres/connections.js';
import { classifyPostgresError } from '../../../dialects/postgres/errors.js';
import type { PipelineCall, WireResult } from '../../../dialects/postgres/wire/connection.js';
import { rowObjects, toText, type WireSlot } from '../../../dialects/postgres/wire/session.js';

export interface PgStatement {
  readonly sql: string;
  /** Present: a prepared statement with these parameters. Absent: sent as it is. */
  readonly params?: readonly unknown[];
}

export const BEGIN: PgStatement = { sql: 'begin' };
export const BEGIN_READ_ONLY: PgStatement = { sql: 'begin isolation level repeatable read read only' };
export const COMMIT: PgStatement = { sql: 'commit' };
export const ROLLBACK: PgStatement = { sql: 'rollback' };

export interface PgRunner {
  /**
   * Sends the statements together and waits for all of them. If any fails, the transaction is
   * rolled back and the first error is thrown (later ones are only "transaction is aborted" echoes).
   */
  pipeline(statements: readonly PgStatement[]): Promise<Row[][]>;
  query(sql: string, params: readonly unknown[]): Promise<Row[]>;
  rollback(): Promise<void>;
}

type Params = Parameters<PostgresConn['unsafe']>[1];

/**
 * A runner for each connection, made on its first use and kept while the connection lives: the
 * memo is the returned function's, so whoever opens the connections (a transaction set) owns it.
 */
export function runnerPerConnection<H extends object>(
  make: (handle: H) => PgRunner,
): (handle: H) => PgRunner {
  const runners = new WeakMap<H, PgRunner>();
  return (handle) => {
    let runner = runners.get(handle);
    if (runner === undefined) {
      runner = make(handle);
      runners.set(handle, runner);
    }
    return runner;
  };
}

export function postgresJsRunner(conn: PostgresConn): PgRunner {
  const run = (s: PgStatement): Promise<Row[]> =>
    (s.params === undefined
      ? conn.unsafe(s.sql)
      : conn.unsafe(s.sql, s.params as Params, { prepare: true })) as unknown as Promise<Row[]>;
  return {
    async pipeline(statements) {
      const settled = await Promise.allSettled(statements.map(run));
      const failure = settled.find((s) => s.status === 'rejected');
      if (failure !== undefined) {
        // Never write to a reserved connection whose server side is gone: postgres.js 3.4.9 then
        // throws from a setImmediate and takes the process down (porsager/postgres#1208).
        if (classifyPostgresError(failure.reason) !== 'connection')
          await conn.unsafe('rollback').catch(() => undefined);
        throw failure.reason;
      }
      return settled.map((s) => (s.status === 'fulfilled' ? s.value : []));
    },
    query: (sql, params) => run({ sql, params }),
    rollback: async () => void (await conn.unsafe('rollback')),
  };
}

/**
 * The wire path sends a pipeline as one write ending in a single Sync (connection.ts), so the
 * server answers it in one flush and it costs one callback. BEGIN and COMMIT go through the
 * extended protocol too (as the unnamed statement), since a simple query would end the pipeline.
 */
export function wireRunner(slot: WireSlot): PgRunner {
  const { conn } = slot;
  const run = (calls: PipelineCall[]): Promise<readonly WireResult[]> =>
    new Promise((resolve, reject) =>
      conn.pipeline(calls, (err, results) => (err ? reject(err) : resolve(results))),
    );
  return {
    async pipeline(statements) {
      // Statements with parameters that are new to this connection are prepared first (once), in
      // one round trip; after that they are taken as they are, without a promise each.
      let prepared = statements.map((s) => (s.params === undefined ? undefined : slot.preparedFor(s.sql)));
      if (prepared.some((p, i) => p === undefined && statements[i]!.params !== undefined))
        prepared = await Promise.all(
          statements.map((s) => (s.params === undefined ? undefined : slot.statement(s.sql))),
        );
      const calls = statements.map((s, i): PipelineCall => {
        const p = prepared[i];
        return p === undefined || s.params === undefined
          ? { text: s.sql }
          : { statement: p, values: s.params.map(toText) };
      });
      let results: readonly WireResult[];
      try {
        results = await run(calls);
      } catch (err) {
        // The server skipped the rest of the pipeline; a transaction it left open is aborted.
        if (classifyPostgresError(err) !== 'connection' && !conn.lost && conn.transactionStatus !== 'I')
          await conn.simple('rollback').catch(() => undefined);
        throw err;
      }
      return results.map((result, i) => {
        const p = prepared[i];
        return p === undefined ? [] : rowObjects(p, result);
      });
    },
    query: (sql, params) => slot.query(sql, params),
    rollback: async () => void (await conn.simple('rollback')),
  };
}

/**
 * Replay sessions on PostgreSQL through postgres.js: one single-connection client per session.
 * The replay sends nothing of its own: no array-type lookup (fetch_types) and no probe query, so
 * the server executes exactly the captured statements (what a server-side count, such as
 * pg_stat_statements, compares with another replayer's). The price: the connection opens with
 * the session's first statement, not at its captured connect time.
 */
import postgres from 'postgres';
import { classifyPostgresError } from '../dialects/postgres/errors.js';
import type { ReplayDriver, SessionConnection } from './sessions.js';

export function postgresDriver(url: string): ReplayDriver {
  return {
    open: (): Promise<SessionConnection> => {
      const sql = postgres(url, {
        max: 1,
        prepare: false,
        idle_timeout: 0,
        connect_timeout: 30,
        onnotice: () => undefined,
        types: {},
        fetch_types: false,
        connection: { application_name: 'txbench replay' },
      });
      // The statement running, for a cancel (--txn-timeout).
      let running: { cancel(): void } | undefined;
      return Promise.resolve({
        run: async (text, params, prepared) => {
          try {
            if (params === undefined && !prepared) {
              // The simple protocol, as captured: a batch may hold several statements.
              await (running = sql.unsafe(text).simple());
              return;
            }
            await (running = sql.unsafe(text, (params ?? []) as string[], { prepare: prepared }));
          } finally {
            running = undefined;
          }
        },
        cancel: async () => {
          await running?.cancel();
        },
        close: () => sql.end({ timeout: 5 }),
      });
    },
    classify: classifyPostgresError,
    lostCode: 'CONNECTION_CLOSED',
    end: () => Promise.resolve(),
  };
}

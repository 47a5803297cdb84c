/** Replay sessions on PostgreSQL through postgres.js: one single-connection client per session. */
import postgres from 'postgres';
import { classifyPostgresError } from '../dialects/postgres/errors.js';
import type { ReplayDriver, SessionConnection } from './executor.js';

export function postgresDriver(url: string): ReplayDriver {
  return {
    open: async (): Promise<SessionConnection> => {
      const sql = postgres(url, {
        max: 1,
        prepare: false,
        idle_timeout: 0,
        connect_timeout: 30,
        onnotice: () => undefined,
        types: {},
        connection: { application_name: 'txbench replay' },
      });
      await sql`select 1`;
      return {
        run: async (text, params, prepared) => {
          if (params === undefined && !prepared) {
            // The simple protocol, as captured: a batch may hold several statements.
            await sql.unsafe(text).simple();
            return;
          }
          await sql.unsafe(text, (params ?? []) as string[], { prepare: prepared });
        },
        close: () => sql.end({ timeout: 5 }),
      };
    },
    classify: classifyPostgresError,
    end: () => Promise.resolve(),
  };
}

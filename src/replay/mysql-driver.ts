/** Replay sessions on MySQL/MariaDB through mysql2: one connection per session, batches allowed. */
import { openConnection } from '../dialects/mysql/connect.js';
import { classifyMysqlError } from '../dialects/mysql/errors.js';
import { parseMysqlUrl } from '../dialects/mysql/url.js';
import type { ReplayDriver, SessionConnection } from './sessions.js';

export function mysqlDriver(url: string): ReplayDriver {
  const settings = parseMysqlUrl(url);
  return {
    open: async (): Promise<SessionConnection> => {
      const conn = await openConnection(settings, { multipleStatements: true });
      return {
        run: async (text, params, prepared) => {
          if (prepared) await conn.execute(text, params ? [...params] : []);
          else if (params) await conn.query(text, [...params]);
          else await conn.query(text);
        },
        close: () => conn.end(),
      };
    },
    classify: classifyMysqlError,
    lostCode: 'PROTOCOL_CONNECTION_LOST',
    end: () => Promise.resolve(),
  };
}

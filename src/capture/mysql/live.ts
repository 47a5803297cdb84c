/**
 * `txbench capture --db mysql://… --duration D`: the general log written to a table for the window
 * (general_log = ON, log_output = TABLE), read back over the connection; performance_schema's
 * statement history gives durations and outcomes where performance_schema is on (its
 * events_statements_history_long consumer is switched on for the window and read every second,
 * since it is a ring). Every setting changed is put back, also on Ctrl-C and errors.
 */
import { connectChecked, type Pool } from '../../dialects/mysql/connect.js';
import { DatabaseError, UsageError, errorMessage } from '../../errors.js';
import { CaptureBuilder } from '../builder.js';
import { WorkloadWriter } from '../file-io.js';
import type { LiveCaptureOptions, LiveCaptureResult } from '../live-types.js';
import {
  removeRecord,
  restoringAfter,
  restorePending,
  saveRecord,
  type Restored,
  type UndoStep,
} from '../restore-record.js';
import {
  GeneralLogParser,
  parseEventTime,
  type GeneralLogRow,
  type StatementEventRow,
} from './general-log.js';

type Row = Record<string, unknown>;

export async function captureMysqlLive(
  url: string,
  out: string,
  options: LiveCaptureOptions,
): Promise<LiveCaptureResult> {
  // One connection: connection_id() names the capture's own, left out of the workload.
  const { pool: conn } = await connectChecked(url, 1);
  const undo: UndoStep[] = [];
  let server: string | undefined;
  const restore = async (): Promise<void> => {
    while (undo.length > 0) {
      const step = undo.pop()!;
      await conn.query(step.sql);
    }
    if (server !== undefined) await removeRecord(server);
  };
  const changed: string[] = [];
  return restoringAfter(
    async () => {
      server = await serverIdentity(conn);
      // Before reading the settings: a killed capture's changes are not the server's own values.
      const restoredEarlier = await restorePending(server, (q) => conn.query(q));
      const [[vars]] = (await conn.query(
        `select @@global.general_log as general_log, @@global.log_output as log_output, @@version as version, connection_id() as me`,
      )) as [Row[], unknown];
      const me = Number(vars!.me);
      const perfSchema = await performanceSchemaOn(conn);
      const [consumers] = perfSchema
        ? ((await conn.query(
            `select enabled from performance_schema.setup_consumers where name = 'events_statements_history_long'`,
          )) as [Row[], unknown])
        : [[]];
      const outputs = String(vars!.log_output).split(',');
      // Every step that puts a setting back, on disk before the first change (see restore-record.ts).
      const planned: UndoStep[] = [
        ...(Number(vars!.general_log) !== 1
          ? [{ what: 'general_log', sql: 'set global general_log = 0' }]
          : []),
        ...(!outputs.includes('TABLE')
          ? [{ what: 'log_output', sql: `set global log_output = '${String(vars!.log_output)}'` }]
          : []),
        ...(perfSchema && consumers[0]?.enabled !== 'YES'
          ? [
              {
                what: 'events_statements_history_long',
                sql: `update performance_schema.setup_consumers set enabled = 'NO' where name = 'events_statements_history_long'`,
              },
            ]
          : []),
      ];
      if (planned.length > 0) await saveRecord(server, url, planned);
      try {
        if (perfSchema) {
          const rows = consumers;
          // Each undo step is recorded once its change is made: a change refused leaves nothing to undo.
          if (rows[0]?.enabled !== 'YES') {
            await conn.query(
              `update performance_schema.setup_consumers set enabled = 'YES' where name = 'events_statements_history_long'`,
            );
            undo.push({
              what: 'events_statements_history_long',
              sql: `update performance_schema.setup_consumers set enabled = 'NO' where name = 'events_statements_history_long'`,
            });
            changed.push('performance_schema consumer events_statements_history_long');
          }
        }
        if (!outputs.includes('TABLE')) {
          await conn.query(
            `set global log_output = '${[...outputs.filter((o) => o !== 'NONE'), 'TABLE'].join(',')}'`,
          );
          undo.push({ what: 'log_output', sql: `set global log_output = '${String(vars!.log_output)}'` });
          changed.push('log_output');
        }
        if (Number(vars!.general_log) !== 1) {
          await conn.query('set global general_log = 1');
          undo.push({ what: 'general_log', sql: 'set global general_log = 0' });
          changed.push('general_log');
        }
      } catch (err) {
        await restore();
        throw permissionProblem(err);
      }
      const [[now]] = (await conn.query(`select now(6) as t`)) as [Row[], unknown];
      const start = String(now!.t);
      const timings = new Map<string, StatementEventRow>();
      const poll = perfSchema ? () => readStatementEvents(conn, me, timings) : () => Promise.resolve();
      const interrupted = await pollFor(options.durationMs, options.signal, poll);
      await poll();
      const [[endRow]] = (await conn.query(`select now(6) as t`)) as [Row[], unknown];
      await restore();
      const [rows] = (await conn.query(
        `select date_format(event_time, '%Y-%m-%d %H:%i:%s.%f') as event_time, user_host, thread_id, command_type,
              convert(argument using utf8mb4) as argument
       from mysql.general_log where event_time >= ? and event_time <= ? and thread_id <> ? order by event_time`,
        [start, String(endRow!.t), me],
      )) as [Row[], unknown];
      const parser = new GeneralLogParser([...timings.values()]);
      const writer = await WorkloadWriter.create(out);
      const builder = new CaptureBuilder(writer, {
        kind: 'mysql',
        from: 'general_log',
        redact: options.redact,
        serverVersion: String(vars!.version),
        captureStartMs: parseEventTime(start),
      });
      try {
        for (const r of rows) {
          const row: GeneralLogRow = {
            eventTime: String(r.event_time),
            userHost: String(r.user_host),
            threadId: Number(r.thread_id),
            commandType: String(r.command_type),
            argument: String(r.argument ?? ''),
          };
          for (const event of parser.feed(row)) await builder.add(event);
        }
        builder.counts.otherRecords = parser.counts.otherRecords;
        return { counts: await builder.finish(), interrupted, changed, restoredEarlier };
      } catch (err) {
        await writer.abandon();
        throw err;
      }
    },
    restore,
    () => conn.end(),
  );
}

/** The server as it knows itself: MySQL's server_uuid, or MariaDB's host name, port and data directory. */
async function serverIdentity(conn: Pool): Promise<string> {
  const uuid = await conn
    .query(`select @@global.server_uuid as id`)
    .then(([rows]) => String((rows as Row[])[0]?.id ?? ''))
    .catch(() => '');
  if (uuid !== '') return `mysql ${uuid}`;
  const [rows] = (await conn.query(`select @@hostname as host, @@port as port, @@datadir as dir`)) as [
    Row[],
    unknown,
  ];
  return `mysql ${String(rows[0]?.host)}:${String(rows[0]?.port)} ${String(rows[0]?.dir)}`;
}

/** Puts back what a killed capture left changed on this server (`txbench capture --restore`). */
export async function restoreMysql(url: string): Promise<Restored> {
  const { pool: conn } = await connectChecked(url, 1);
  try {
    return await restorePending(await serverIdentity(conn), (q) => conn.query(q));
  } finally {
    await conn.end().catch(() => undefined);
  }
}

async function performanceSchemaOn(conn: Pool): Promise<boolean> {
  const [rows] = (await conn.query(`select @@global.performance_schema as on_`)) as [Row[], unknown];
  return Number(rows[0]?.on_) === 1;
}

/** Adds the history's top-level statements of other connections, keyed so that each is kept once. */
async function readStatementEvents(
  conn: Pool,
  me: number,
  into: Map<string, StatementEventRow>,
): Promise<void> {
  const [rows] = (await conn.query(
    `select t.processlist_id as pid, e.thread_id, e.event_id, e.sql_text, e.timer_wait, e.mysql_errno,
            e.returned_sqlstate, e.message_text
     from performance_schema.events_statements_history_long e
     join performance_schema.threads t on t.thread_id = e.thread_id
     where e.nesting_event_id is null and t.processlist_id <> ? and e.sql_text is not null
     order by e.thread_id, e.event_id`,
    [me],
  )) as [Row[], unknown];
  for (const r of rows) {
    const key = `${String(r.thread_id)}:${String(r.event_id)}`;
    if (into.has(key)) continue;
    into.set(key, {
      threadId: Number(r.pid),
      sqlText: String(r.sql_text),
      durationMs: Number(r.timer_wait) / 1e9,
      errno: Number(r.mysql_errno ?? 0),
      sqlstate: String(r.returned_sqlstate ?? ''),
      message: String(r.message_text ?? ''),
    });
  }
}

function permissionProblem(err: unknown): Error {
  const errno = typeof err === 'object' && err !== null && 'errno' in err ? Number(err.errno) : 0;
  // 1227 ER_SPECIFIC_ACCESS_DENIED_ERROR, 1142 ER_TABLEACCESS_DENIED_ERROR, 1044/1045 access denied.
  if ([1227, 1142, 1044, 1045].includes(errno)) {
    return new UsageError(
      'capturing needs SUPER (or SYSTEM_VARIABLES_ADMIN) to switch the general log on, and access to mysql.general_log and performance_schema; connect as such a user; no setting was left changed',
    );
  }
  return new DatabaseError(`could not switch the general log on: ${errorMessage(err)}`);
}

/** Waits `ms` (or until the signal), calling `poll` every second; true when interrupted. */
async function pollFor(ms: number, signal: AbortSignal, poll: () => Promise<void>): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (signal.aborted) return true;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.min(1000, end - Date.now()));
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
    if (signal.aborted) return true;
    await poll();
  }
  return false;
}

/**
 * SQL Server capture through Extended Events: the session definition (logins, logouts, completed
 * batches and RPCs, with the session id, user, database and application as actions) written to an
 * event file, and the rows `sys.fn_xe_file_target_read_file` returns for it turned into capture
 * events. Each event's `timestamp` is when it finished; `duration` is in microseconds.
 */
import { XMLParser } from 'fast-xml-parser';
import type { CaptureEvent } from '../events.js';

export const XE_SESSION = 'txbench_capture';

const ACTIONS =
  'ACTION(sqlserver.session_id, sqlserver.username, sqlserver.database_name, sqlserver.client_app_name)';

/** The event session's definition; `filePath` is the .xel file's path on the server (without extension). */
export function createSessionSql(filePath: string, name = XE_SESSION): string {
  const file = filePath.replace(/'/g, "''");
  return [
    `CREATE EVENT SESSION [${name}] ON SERVER`,
    `ADD EVENT sqlserver.login(SET collect_options_text = 0 ${ACTIONS}),`,
    `ADD EVENT sqlserver.logout(${ACTIONS}),`,
    `ADD EVENT sqlserver.sql_batch_completed(SET collect_batch_text = 1 ${ACTIONS} WHERE sqlserver.session_id <> @@SPID),`,
    `ADD EVENT sqlserver.rpc_completed(SET collect_statement = 1 ${ACTIONS} WHERE sqlserver.session_id <> @@SPID)`,
    `ADD TARGET package0.event_file(SET filename = N'${file}.xel', max_file_size = 1024, max_rollover_files = 100)`,
    'WITH (EVENT_RETENTION_MODE = NO_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, TRACK_CAUSALITY = OFF, STARTUP_STATE = OFF)',
  ].join('\n');
}

/** Reads the event file back, in file order. */
export function readEventsSql(filePath: string): string {
  return `SELECT object_name, CAST(event_data AS nvarchar(max)) AS event_data, file_name, file_offset
FROM sys.fn_xe_file_target_read_file(N'${filePath.replace(/'/g, "''")}*.xel', NULL, NULL, NULL)`;
}

export interface XeRow {
  object_name: string;
  /** The event as XML: `<event name=… timestamp=…><data name=…><value>…</value></data><action …>…</action></event>`. */
  event_data: string;
}

export interface XeCounts {
  otherRecords: number;
  unreadableRecords: number;
}

interface XmlNode {
  '@_name'?: string;
  '@_timestamp'?: string;
  value?: unknown;
  text?: unknown;
  data?: XmlNode | XmlNode[];
  action?: XmlNode | XmlNode[];
}

export class XeEventParser {
  readonly counts: XeCounts = { otherRecords: 0, unreadableRecords: 0 };
  private readonly parser = new XMLParser({
    ignoreAttributes: false,
    parseTagValue: false,
    trimValues: false,
  });

  feed(row: XeRow): CaptureEvent[] {
    let event: XmlNode | undefined;
    try {
      event = (this.parser.parse(row.event_data) as { event?: XmlNode }).event;
    } catch {
      event = undefined;
    }
    const endMs = Date.parse(event?.['@_timestamp'] ?? '');
    if (!event || Number.isNaN(endMs)) {
      this.counts.unreadableRecords++;
      return [];
    }
    const data = fields(event.data);
    const actions = fields(event.action);
    const key = actions.session_id?.value ?? '';
    if (key === '') {
      this.counts.unreadableRecords++;
      return [];
    }
    const who = {
      user: actions.username?.value || null,
      database: actions.database_name?.value || null,
      application: actions.client_app_name?.value || null,
    };
    switch (row.object_name) {
      case 'login':
        return [{ kind: 'session', key, ...who, atMs: endMs, startedBeforeCapture: false }];
      case 'logout':
        return [{ kind: 'disconnect', key, atMs: endMs }];
      case 'sql_batch_completed':
      case 'rpc_completed': {
        const sql = (row.object_name === 'rpc_completed' ? data.statement : data.batch_text)?.value ?? '';
        const durationMs = Number(data.duration?.value ?? NaN) / 1000;
        const result = (data.result?.text ?? data.result?.value ?? 'OK').trim();
        const ok = result === 'OK' || result === '0';
        return [
          {
            kind: 'statement',
            key,
            startMs: Number.isNaN(durationMs) ? endMs : endMs - durationMs,
            sql,
            // An RPC (sp_executesql, sp_prepexec…) is the driver's parameterised call.
            prepared: row.object_name === 'rpc_completed' ? true : undefined,
            durationMs: Number.isNaN(durationMs) ? null : durationMs,
            outcome: ok ? 'ok' : 'error',
            error: ok ? undefined : { code: result, message: '' },
            session: who,
          },
        ];
      }
      default:
        this.counts.otherRecords++;
        return [];
    }
  }
}

function fields(nodes: XmlNode | XmlNode[] | undefined): Record<string, { value: string; text?: string }> {
  const out: Record<string, { value: string; text?: string }> = {};
  for (const n of nodes === undefined ? [] : Array.isArray(nodes) ? nodes : [nodes]) {
    const name = n['@_name'];
    if (name === undefined) continue;
    out[name] = { value: textOf(n.value), ...(n.text !== undefined ? { text: textOf(n.text) } : {}) };
  }
  return out;
}

function textOf(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return String((v as { '#text'?: unknown })['#text'] ?? '');
  return String(v);
}

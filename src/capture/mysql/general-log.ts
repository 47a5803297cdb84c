/**
 * MySQL/MariaDB's general log, as rows of `mysql.general_log` (log_output = TABLE), into capture
 * events; statement durations and outcomes come from performance_schema's statement events where
 * the server has them, matched to the log by connection and text in order.
 */
import type { CaptureEvent, StatementEvent } from '../events.js';

export interface GeneralLogRow {
  /** `YYYY-MM-DD HH:MM:SS.ffffff`, the server's local time. */
  eventTime: string;
  userHost: string;
  threadId: number;
  commandType: string;
  argument: string;
}

/** One top-level statement event from performance_schema.events_statements_history_long. */
export interface StatementEventRow {
  /** The connection's id as the general log names it (PROCESSLIST_ID). */
  threadId: number;
  sqlText: string;
  durationMs: number;
  errno: number;
  sqlstate: string;
  message: string;
}

export interface GeneralLogCounts {
  otherRecords: number;
}

/** Epoch ms of a general-log time, read as UTC (offsets from the capture start stay right). */
export function parseEventTime(text: string): number {
  return Date.parse(text.trim().replace(' ', 'T') + 'Z');
}

export class GeneralLogParser {
  readonly counts: GeneralLogCounts = { otherRecords: 0 };
  private readonly timings = new Map<number, StatementEventRow[]>();
  private readonly known = new Set<number>();

  /** Statement events to match (before the log rows are fed), in order per connection. */
  constructor(statementEvents: readonly StatementEventRow[] = []) {
    for (const e of statementEvents) {
      const list = this.timings.get(e.threadId) ?? [];
      list.push(e);
      this.timings.set(e.threadId, list);
    }
  }

  feed(row: GeneralLogRow): CaptureEvent[] {
    const key = String(row.threadId);
    const atMs = parseEventTime(row.eventTime);
    switch (row.commandType) {
      case 'Connect': {
        this.known.add(row.threadId);
        const m = /^(\S*?)@(\S*)(?: as \S+)? on (\S*)/.exec(row.argument);
        return [
          {
            kind: 'session',
            key,
            user: m?.[1] || userOf(row.userHost),
            database: m?.[3] || null,
            application: null,
            atMs,
            startedBeforeCapture: false,
          },
        ];
      }
      case 'Quit':
        return [{ kind: 'disconnect', key, atMs }];
      case 'Init DB':
        return [this.statement(row, atMs, `USE \`${row.argument.replace(/`/g, '``')}\``)];
      case 'Query':
      case 'Execute':
        return [this.statement(row, atMs, row.argument)];
      default:
        // Prepare (its Execute carries the full text), Close stmt, Ping, Field List, Statistics…
        this.counts.otherRecords++;
        return [];
    }
  }

  private statement(row: GeneralLogRow, atMs: number, sql: string): StatementEvent {
    const event: StatementEvent = {
      kind: 'statement',
      key: String(row.threadId),
      startMs: atMs,
      sql,
      durationMs: null,
      outcome: 'unknown',
      session: { user: userOf(row.userHost), database: null, application: null },
    };
    const timing = this.match(row.threadId, sql);
    if (timing) {
      event.durationMs = timing.durationMs;
      event.outcome = timing.errno === 0 ? 'ok' : 'error';
      if (timing.errno !== 0) event.error = { code: String(timing.errno), message: timing.message };
    }
    return event;
  }

  /**
   * The connection's next statement events that belong to this text: the first whose text starts
   * the same, and the following ones a multi-statement batch holds. Events before it are dropped
   * (statements the log does not have, or that the history no longer holds).
   */
  private match(
    threadId: number,
    sql: string,
  ): { durationMs: number; errno: number; message: string } | undefined {
    const list = this.timings.get(threadId);
    if (!list || list.length === 0) return undefined;
    const text = sql.trim();
    const index = list.findIndex((e) => sameStart(e.sqlText, text));
    if (index < 0) return undefined;
    let { durationMs, errno, message } = list[index]!;
    let end = index + 1;
    while (
      end < list.length &&
      text.includes(list[end]!.sqlText.trim()) &&
      text.length > list[index]!.sqlText.trim().length
    ) {
      durationMs += list[end]!.durationMs;
      if (errno === 0 && list[end]!.errno !== 0) ({ errno, message } = list[end]!);
      end++;
    }
    list.splice(0, end);
    return { durationMs, errno, message };
  }
}

function sameStart(eventText: string, sql: string): boolean {
  const e = eventText.trim();
  // performance_schema keeps the first 1024 characters (performance_schema_max_sql_text_length).
  return e.length > 0 && (sql.startsWith(e.replace(/\.\.\.$/, '')) || e.startsWith(sql));
}

function userOf(userHost: string): string | null {
  return /^([^[\s]+)/.exec(userHost)?.[1] ?? null;
}

/**
 * Turns PostgreSQL log records into capture events, session by session. It understands what the
 * server writes with log_min_duration_statement = 0 (`duration: … ms  statement: …`, and for the
 * extended protocol `parse`, `bind` and `execute <name>: …` with a `parameters:` detail), with
 * log_statement = 'all' (`statement: …` / `execute …` now, `duration: … ms` when done), connections
 * and disconnections, and failed statements (ERROR records with their statement text).
 */
import type { CaptureEvent, StatementEvent } from '../events.js';
import type { PgLogRecord } from './log-records.js';

export interface ParserCounts {
  /** Records that are not about client statements or sessions (checkpoints, autovacuum…). */
  otherRecords: number;
  /** Failed statements with placeholders whose parameters the log did not record. */
  errorsWithoutParameters: number;
}

interface SessionState {
  /** Parse and bind time spent on the statement about to execute (extended protocol), ms. */
  protocolMs: number;
  /** When that statement's first protocol message started (epoch ms). */
  protocolStartMs: number | undefined;
  /** A statement logged when it started (log_statement), waiting for its duration line. */
  pending: StatementEvent | undefined;
}

const DURATION = /^duration: ([\d.]+) ms(?:\s+(statement|parse|bind|execute)(?: ([^:]*?))?: ([\s\S]*))?$/;
const STARTED = /^(statement|execute)(?: ([^:]*?))?: ([\s\S]*)$/;

export class PgLogParser {
  readonly counts: ParserCounts = { otherRecords: 0, errorsWithoutParameters: 0 };
  private readonly sessions = new Map<string, SessionState>();

  /** The events this record gives (often none, sometimes the statement before it). */
  feed(r: PgLogRecord): CaptureEvent[] {
    const out: CaptureEvent[] = [];
    if (
      r.sessionId === '' ||
      (r.backendType !== '' && r.backendType !== 'client backend' && r.backendType !== 'not initialized')
    ) {
      this.counts.otherRecords++;
      return out;
    }
    const m = r.message;
    if (m.startsWith('connection authorized:')) {
      out.push({
        kind: 'session',
        key: r.sessionId,
        user: field(m, 'user') ?? (r.user || null),
        database: field(m, 'database') ?? (r.database || null),
        application: applicationOf(m) ?? (r.application || null),
        atMs: r.timeMs,
        startedBeforeCapture: false,
      });
      this.sessions.set(r.sessionId, newState());
      return out;
    }
    if (m.startsWith('disconnection:')) {
      this.flush(r.sessionId, out);
      this.sessions.delete(r.sessionId);
      out.push({ kind: 'disconnect', key: r.sessionId, atMs: r.timeMs });
      return out;
    }
    if (r.severity === 'ERROR' || r.severity === 'FATAL' || r.severity === 'PANIC') {
      this.error(r, out);
      return out;
    }
    const state = this.state(r.sessionId);
    const d = DURATION.exec(m);
    if (d) {
      const ms = Number(d[1]);
      const verb = d[2];
      if (verb === undefined) {
        // log_statement's statement now finished: its duration.
        if (state.pending && state.pending.durationMs === null) state.pending.durationMs = ms;
        return out;
      }
      this.flush(r.sessionId, out);
      if (verb === 'parse' || verb === 'bind') {
        state.protocolStartMs ??= r.timeMs - ms;
        state.protocolMs += ms;
        return out;
      }
      const name = d[3] ?? '';
      if (name.startsWith('fetch from ')) {
        // A further fetch from a portal already executed: no new statement.
        return out;
      }
      out.push(
        this.statement(r, state, d[4] ?? '', verb === 'execute' ? name : undefined, r.timeMs - ms, ms),
      );
      return out;
    }
    const s = STARTED.exec(m);
    if (s) {
      const name = s[2] ?? '';
      if (name.startsWith('fetch from ')) return out;
      this.flush(r.sessionId, out);
      state.pending = this.statement(
        r,
        state,
        s[3] ?? '',
        s[1] === 'execute' ? name : undefined,
        r.timeMs,
        null,
      );
      return out;
    }
    this.counts.otherRecords++;
    return out;
  }

  /** Statements still waiting for their duration line, at the end of the logs. */
  end(): CaptureEvent[] {
    const out: CaptureEvent[] = [];
    for (const key of this.sessions.keys()) this.flush(key, out);
    return out;
  }

  private state(key: string): SessionState {
    let state = this.sessions.get(key);
    if (!state) {
      state = newState();
      this.sessions.set(key, state);
    }
    return state;
  }

  private flush(key: string, out: CaptureEvent[]): void {
    const state = this.sessions.get(key);
    if (state?.pending) {
      out.push(state.pending);
      state.pending = undefined;
    }
  }

  private statement(
    r: PgLogRecord,
    state: SessionState,
    sql: string,
    executeName: string | undefined,
    startMs: number,
    durationMs: number | null,
  ): StatementEvent {
    const params = parseParameters(r.detail);
    const event: StatementEvent = {
      kind: 'statement',
      key: r.sessionId,
      startMs: Math.min(startMs, state.protocolStartMs ?? startMs),
      sql,
      durationMs: durationMs === null ? null : durationMs + state.protocolMs,
      outcome: 'ok',
      session: sessionInfo(r),
    };
    if (params) event.params = params;
    // A named statement is prepared once and executed many times: so is its replay.
    if (executeName !== undefined && executeName !== '<unnamed>' && executeName !== '') event.prepared = true;
    state.protocolMs = 0;
    state.protocolStartMs = undefined;
    return event;
  }

  private error(r: PgLogRecord, out: CaptureEvent[]): void {
    const state = this.sessions.get(r.sessionId);
    const error = { code: r.sqlstate, message: r.message };
    if (r.query === '') {
      // Not about a statement (a failed login, a terminated backend): the session's business only.
      this.counts.otherRecords++;
      return;
    }
    if (state?.pending && state.pending.sql === r.query) {
      state.pending.outcome = 'error';
      state.pending.error = error;
      this.flush(r.sessionId, out);
      return;
    }
    this.flush(r.sessionId, out);
    const params = parseParameters(
      r.context.replace(/^[\s\S]*?extended query with parameters: /, 'parameters: '),
    );
    if (!params && /\$\d/.test(r.query)) this.counts.errorsWithoutParameters++;
    const protocolStart = state?.protocolStartMs;
    if (state) {
      state.protocolMs = 0;
      state.protocolStartMs = undefined;
    }
    out.push({
      kind: 'statement',
      key: r.sessionId,
      startMs: protocolStart ?? r.timeMs,
      sql: r.query,
      ...(params ? { params } : {}),
      durationMs: null,
      outcome: 'error',
      error,
      session: sessionInfo(r),
    });
  }
}

function newState(): SessionState {
  return { protocolMs: 0, protocolStartMs: undefined, pending: undefined };
}

function sessionInfo(r: PgLogRecord): StatementEvent['session'] {
  return { user: r.user || null, database: r.database || null, application: r.application || null };
}

function field(message: string, name: string): string | undefined {
  return new RegExp(`\\b${name}=(\\S+)`).exec(message)?.[1];
}

function applicationOf(message: string): string | undefined {
  // The name may contain spaces; SSL/GSS notes follow it.
  return /\bapplication_name=(.*?)(?: (?:SSL|GSS) |$)/.exec(message)?.[1];
}

/**
 * `parameters: $1 = '5', $2 = NULL, $3 = 'it''s'` as text values. Undefined when the detail holds
 * none. The server logs each value as a quoted literal with quotes doubled.
 */
export function parseParameters(detail: string): (string | null)[] | undefined {
  const m = /(?:^|\n)parameters: ([\s\S]*)$/i.exec(detail);
  if (!m) return undefined;
  const text = m[1]!;
  const values: (string | null)[] = [];
  let i = 0;
  while (i < text.length) {
    const head = /^\s*,?\s*\$(\d+) = /.exec(text.slice(i));
    if (!head) break;
    const index = Number(head[1]) - 1;
    i += head[0].length;
    if (text.startsWith('NULL', i)) {
      values[index] = null;
      i += 4;
      continue;
    }
    if (text[i] !== "'") break;
    let value = '';
    i++;
    while (i < text.length) {
      if (text[i] === "'") {
        if (text[i + 1] === "'") {
          value += "'";
          i += 2;
          continue;
        }
        i++;
        break;
      }
      value += text[i];
      i++;
    }
    values[index] = value;
  }
  if (values.length === 0) return undefined;
  return Array.from(values, (v) => (v === undefined ? null : v));
}

/**
 * What every capture source produces, in the server's own terms (wall-clock times in epoch ms,
 * sessions by the server's own key), before the builder turns it into workload records.
 */

export interface SessionEvent {
  kind: 'session';
  key: string;
  user: string | null;
  database: string | null;
  application: string | null;
  /** When the session connected (epoch ms); null when that was not seen. */
  atMs: number | null;
  startedBeforeCapture: boolean;
}

export interface StatementEvent {
  kind: 'statement';
  key: string;
  /** When the statement started (epoch ms). */
  startMs: number;
  sql: string;
  params?: (string | null)[] | undefined;
  prepared?: boolean | undefined;
  durationMs: number | null;
  outcome: 'ok' | 'error' | 'unknown';
  error?: { code: string; message: string } | undefined;
  /** Who ran it, for a session first seen through its statements. */
  session?: Omit<SessionEvent, 'kind' | 'key' | 'atMs' | 'startedBeforeCapture'> | undefined;
}

export interface DisconnectEvent {
  kind: 'disconnect';
  key: string;
  atMs: number;
}

export type CaptureEvent = SessionEvent | StatementEvent | DisconnectEvent;

import type { CaptureCounts } from '../capture/format.js';

/** One line for a finished capture, with what could not be taken as it was. */
export function formatCaptureCounts(c: CaptureCounts, file: string): string {
  const notes = [
    c.sessionsBeforeCapture > 0
      ? `${c.sessionsBeforeCapture} started before the capture (replayed from their first statement seen)`
      : '',
    c.unreadableRecords > 0
      ? `${c.unreadableRecords} unreadable log records skipped (a truncated or damaged log)`
      : '',
    c.errorsWithoutParameters > 0
      ? `${c.errorsWithoutParameters} failed statements without their parameters`
      : '',
  ].filter((n) => n !== '');
  return `captured ${c.statements.toLocaleString('en-US')} statements in ${c.sessions.toLocaleString('en-US')} sessions into ${file}${notes.length ? `; ${notes.join('; ')}` : ''}`;
}

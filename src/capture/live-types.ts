/** What every live capture takes and gives. */
import type { CaptureCounts } from './format.js';
import type { Restored } from './restore-record.js';

export interface LiveCaptureOptions {
  durationMs: number;
  redact: boolean;
  /** Ends the window early (Ctrl-C); what was captured is kept and every setting restored. */
  signal: AbortSignal;
}

export interface LiveCaptureResult {
  counts: CaptureCounts;
  interrupted: boolean;
  /** The server settings the window changed (all restored). */
  changed: string[];
  /** What an earlier, killed capture had left changed, put back before this one began. */
  restoredEarlier?: Restored | undefined;
}

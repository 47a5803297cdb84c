/** What the executor does about faults (--on-error, --txn-timeout), and what it did. */
import { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.js';

/** What the executor does about faults (--on-error, --txn-timeout). */
export interface FaultPolicy {
  /** Replace a lost connection and carry on (--on-error continue); false: the slot stays lost. */
  reconnect: boolean;
  /** A transaction still running after this long is cancelled (ms; Infinity: never). */
  txnTimeoutMs: number;
  /** One attempt to open a replacement connection gives up after this long (ms). */
  connectTimeoutMs: number;
  backoff: BackoffPolicy;
}

export const DEFAULT_TXN_TIMEOUT_MS = 60_000;

export const DEFAULT_FAULT_POLICY: FaultPolicy = {
  reconnect: true,
  txnTimeoutMs: DEFAULT_TXN_TIMEOUT_MS,
  connectTimeoutMs: 10_000,
  backoff: DEFAULT_BACKOFF,
};

/** What the executor did about faults over its life, for run.json. */
export interface FaultCounts {
  /** Connections replaced. */
  reconnects: number;
  /** Attempts to open a replacement that failed (each followed by a backoff). */
  reconnectFailures: number;
  /** Calls cancelled on the server after the transaction timeout. */
  cancelled: number;
  /** Calls the server did not answer even when cancelled: given up on, their connection replaced. */
  abandoned: number;
}

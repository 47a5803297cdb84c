/**
 * A run's fault handling from its options (--on-error, --txn-timeout, --max-errors,
 * --max-error-rate): the executor's policy, the side connection's bound, and run.json's account.
 */
import type { Counters } from '../engine/types.js';
import type { EngineResult } from '../engine/engine-result.js';
import { DEFAULT_FAULT_POLICY, type FaultCounts, type FaultPolicy } from '../workloads/fault-policy.js';
import type { FaultsReport } from '../results/run-file.js';
import type { RunOptions } from './run-options.js';

type FaultOptions = Pick<
  RunOptions,
  'onError' | 'txnTimeoutMs' | 'connectTimeoutMs' | 'maxErrors' | 'maxErrorRatePct'
>;

export function faultsReport(
  options: FaultOptions,
  result: EngineResult<Counters>,
  counts: FaultCounts,
): FaultsReport {
  const failed = Object.values(result.errorsByClass).reduce((a, b) => a + b, 0);
  const finished = failed + result.perType.reduce((a, t) => a + t.count, 0);
  const errorRatePct = finished > 0 ? Math.round((failed / finished) * 1e6) / 1e4 : 0;
  const { maxErrors, maxErrorRatePct } = options;
  const exceeded =
    maxErrors !== undefined && failed > maxErrors
      ? `${failed} failed transactions, more than --max-errors ${maxErrors}`
      : maxErrorRatePct !== undefined && errorRatePct > maxErrorRatePct
        ? `${errorRatePct}% of transactions failed, more than --max-error-rate ${maxErrorRatePct}%`
        : null;
  return {
    onError: options.onError ?? 'continue',
    txnTimeoutS: Number.isFinite(txnTimeoutOf(options)) ? txnTimeoutOf(options) / 1000 : null,
    ...counts,
    failed,
    errorRatePct,
    ...(maxErrors !== undefined ? { maxErrors } : {}),
    ...(maxErrorRatePct !== undefined ? { maxErrorRatePct } : {}),
    exceeded,
  };
}

/**
 * The side connection's bound: its audit counts read whole tables, so it is generous (4 times
 * the transaction timeout, at least 30 s); with no transaction timeout, 10 minutes.
 */
export function sideQueryTimeoutMs(options: FaultOptions): number {
  const txn = txnTimeoutOf(options);
  return Number.isFinite(txn) ? Math.max(30_000, 4 * txn) : 600_000;
}

function txnTimeoutOf(options: FaultOptions): number {
  return options.txnTimeoutMs ?? DEFAULT_FAULT_POLICY.txnTimeoutMs;
}

export function faultPolicy(options: FaultOptions): Partial<FaultPolicy> {
  const txnTimeoutMs = txnTimeoutOf(options);
  return {
    reconnect: options.onError !== 'stop',
    txnTimeoutMs,
    connectTimeoutMs:
      options.connectTimeoutMs ?? Math.min(DEFAULT_FAULT_POLICY.connectTimeoutMs, txnTimeoutMs),
  };
}

/**
 * How busy the machine was with work that is not the bench's: CPU used by other processes during
 * the measured windows (sections 1 and 2) and the run-queue wait of the scheduler's event loop
 * (section 3). Throughput, CPU per transaction and lateness are only comparable on an idle machine.
 */
import { isRun, type ClientCostData } from './client-cost.js';
import { num } from './figures.js';
import type { PgbenchData } from './pgbench.js';
import type { SchedulerData } from './scheduler.js';

export interface Contention {
  /** Busy cores of other processes, per measured window. */
  otherCores: Record<string, number>;
  /** Scheduler scenarios: ms per second the event-loop thread waited, runnable, for a CPU. */
  runQueueWaitMsPerS: Record<string, number>;
}

export function contention(
  s1: ClientCostData | undefined,
  s2: PgbenchData | undefined,
  s3: SchedulerData | undefined,
): Contention {
  const otherCores: Record<string, number> = {};
  if (s1 && isRun(s1.runs.clientSql) && s1.runs.clientSql.otherCores !== null)
    otherCores['txbench client-SQL'] = s1.runs.clientSql.otherCores;
  if (s1 && isRun(s1.runs.procedures) && s1.runs.procedures.otherCores !== null)
    otherCores['txbench procedures'] = s1.runs.procedures.otherCores;
  if (s2) otherCores.pgbench = s2.pgbench.otherCores;
  const runQueueWaitMsPerS: Record<string, number> = {};
  for (const [k, v] of Object.entries(s3 ?? {}))
    if (!('error' in v) && v.runQueueWaitMsPerS !== null)
      runQueueWaitMsPerS[`${Number(k).toLocaleString('en-US')} terminals`] = v.runQueueWaitMsPerS;
  return { otherCores, runQueueWaitMsPerS };
}

export function contentionNote(c: Contention, cores: number): string {
  const others = Object.entries(c.otherCores);
  const waits = Object.entries(c.runQueueWaitMsPerS);
  if (others.length === 0 && waits.length === 0) return '';
  const parts: string[] = [];
  if (others.length > 0)
    parts.push(
      `other processes used ${others.map(([k, v]) => `${num(v)} (${k})`).join(', ')} of ${cores} cores during the measured windows`,
    );
  if (waits.length > 0)
    parts.push(
      `the scheduler's event loop waited for a CPU ${waits.map(([k, v]) => `${num(v)} ms/s (${k})`).join(', ')}`,
    );
  const busy = others.some(([, v]) => v > 0.2) || waits.some(([, v]) => v > 20);
  return `Machine load: ${parts.join('; ')}.${busy ? ' The machine was not idle: throughput, CPU per transaction and lateness are skewed by that load.' : ''}`;
}

/**
 * How many worker threads drive a target's terminals (--workers). One thread costs the least and
 * is what small runs use: a worker thread brings its own module graph, workload set-up and
 * connections. More pay off once one thread's CPU is the limit; at ≈ 90–300 µs of client CPU per
 * transaction one thread tops out near 3,000–10,000 TPS, which a thousand terminals or more can
 * ask for (unpaced, or at spec pacing from tens of thousands of terminals). So by default: one
 * worker per 1,000 terminals, at least one, at most the cores available.
 */
import { availableParallelism } from 'node:os';
import { UsageError } from '../errors.js';

/** Terminals per worker thread when --workers is not given. */
export const TERMINALS_PER_WORKER = 1000;

export interface WorkerChoice {
  workers: number;
  /** A line worth showing once (more workers than cores), or undefined. */
  warning?: string | undefined;
}

export function chooseWorkers(
  requested: number | undefined,
  terminals: number,
  /** Whether the target takes concurrent writers: SQLite's one writer is driven from one thread. */
  concurrentWriters: boolean,
  cores: number = availableParallelism(),
): WorkerChoice {
  if (requested === undefined) {
    if (!concurrentWriters) return { workers: 1 };
    const wanted = Math.floor(terminals / TERMINALS_PER_WORKER);
    return { workers: Math.max(1, Math.min(wanted, cores, terminals)) };
  }
  refuseWorkers(requested, concurrentWriters);
  // Never a worker without terminals.
  const workers = Math.min(requested, terminals);
  return {
    workers,
    ...(workers > cores
      ? {
          warning: `--workers ${workers} is more than the ${cores} cores available: the workers share cores, and their scheduling delays show in the lateness figures`,
        }
      : {}),
  };
}

/** Refuses more than one worker for a database with one writer at a time (SQLite). */
export function refuseWorkers(requested: number | undefined, concurrentWriters: boolean): void {
  if (requested !== undefined && requested > 1 && !concurrentWriters) {
    throw new UsageError(
      `--workers ${requested}: this database takes one writer at a time, driven from one thread; drop --workers`,
    );
  }
}

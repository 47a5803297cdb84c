/**
 * What one stretch of a run counted (the measured window, or one interval): per transaction type
 * the transactions that ended, their retries and response times, and the failures by class.
 */
import { newHistogram, recordUs } from '../metrics/histogram.js';
import type { TypeStats } from './engine-result.js';
import { emptyErrorCounts, type ErrorClass } from './types.js';

export class Tally {
  readonly perType: TypeStats[];
  errorsByClass: Record<ErrorClass, number> = emptyErrorCounts();

  constructor(types: number) {
    this.perType = Array.from({ length: types }, () => ({
      count: 0,
      errors: 0,
      retries: 0,
      histogram: newHistogram(),
    }));
  }

  /** A transaction of `type` committed after `retries` retries, `us` after it was due. */
  completed(type: number, retries: number, us: number): void {
    const s = this.perType[type]!;
    s.count++;
    s.retries += retries;
    recordUs(s.histogram, us);
  }

  /** A transaction of `type` failed (class `cls`) after `retries` retries. */
  failed(type: number, cls: ErrorClass, retries: number): void {
    const s = this.perType[type]!;
    s.errors++;
    s.retries += retries;
    this.errorsByClass[cls]++;
  }

  /** Whether any transaction ended in it, committed or failed. */
  hasEndings(): boolean {
    return this.perType.some((s) => s.count > 0 || s.errors > 0);
  }

  /** Zero again; the failures by class in a new record, so that one handed out stays as it was. */
  reset(): void {
    this.errorsByClass = emptyErrorCounts();
    for (const s of this.perType) {
      s.count = 0;
      s.errors = 0;
      s.retries = 0;
      s.histogram.reset();
    }
  }
}

import { checkWorkload } from '../checks.js';
import type { Workload } from '../workload.js';
import type { CheckResult } from './check.js';
import { workload } from './workload.js';

/** The consistency conditions, plus condition 11 and the population checks right after a load. */
export function checkDatabase(url: string, afterLoad: boolean): Promise<CheckResult[]> {
  return checkWorkload(workload as unknown as Workload, url, afterLoad);
}

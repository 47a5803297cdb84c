/** Loading and dropping TPC-C by its options, for callers that know they want TPC-C (tests, bench). */
import { dropWorkload, loadWorkload, type LoadProgress, type LoadResult } from '../loader.js';
import type { Workload } from '../workload.js';
import { workload } from './workload.js';

export type { LoadProgress, LoadResult };

export interface LoadOptions {
  warehouses: number;
  jobs?: number | undefined;
  seed?: number | undefined;
  /** Drop an existing TPC-C schema (loaded or interrupted) first. */
  replace?: boolean | undefined;
}

const tpcc = workload as unknown as Workload;

export async function loadTpcc(
  url: string,
  options: LoadOptions,
  onProgress?: (p: LoadProgress) => void,
): Promise<LoadResult & { warehouses: number }> {
  const { warehouses, ...rest } = options;
  const result = await loadWorkload(tpcc, 'tpcc', url, { options: { warehouses }, ...rest }, onProgress);
  return { ...result, warehouses };
}

/** Drops the TPC-C tables and txbench's metadata. */
export function dropTpcc(url: string): Promise<void> {
  return dropWorkload(tpcc, url, {});
}

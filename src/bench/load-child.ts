/**
 * Child process entry for section 9: one txbench TPC-C load in a process of its own, so that its
 * peak memory is the load's alone (not what earlier sections left in the bench's heap). The
 * generator threads are in this process too. Prints one JSON line (LoadChildResult) on stdout.
 */
import { readFileSync } from 'node:fs';
import { loadTpcc, type LoadResult } from '../workloads/tpcc/loader.js';

export interface LoadChildResult {
  result: LoadResult;
  /** Largest process.memoryUsage().rss seen, sampled every 100 ms. */
  peakRssBytes: number;
  /** VmHWM from /proc/self/status after the load: the process's own high-water mark. */
  vmHwmBytes: number | undefined;
}

function vmHwmBytes(): number | undefined {
  try {
    const kb = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  // In the environment, not the command line: a URL may carry a password.
  const url = process.env.BENCH_LOAD_URL ?? '';
  const warehouses = Number(process.argv[2]);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    const result = await loadTpcc(url, { warehouses });
    peak = Math.max(peak, process.memoryUsage().rss);
    const out: LoadChildResult = { result, peakRssBytes: peak, vmHwmBytes: vmHwmBytes() };
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    clearInterval(sampler);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});

/**
 * A measuring child's window: the warm-up waited out, then the window, with what the child counts
 * read at both edges and this process's CPU over the window. Section 10's and section 1's floors.
 */
export interface ChildWindow<T> {
  start: T;
  end: T;
  seconds: number;
  cpuS: number;
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function childWindow<T>(
  warmupMs: number,
  durationMs: number,
  read: () => T,
): Promise<ChildWindow<T>> {
  await wait(warmupMs);
  const start = read();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await wait(durationMs);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (performance.now() - t0) / 1000;
  return { start, end: read(), seconds, cpuS: (cpu.user + cpu.system) / 1e6 };
}

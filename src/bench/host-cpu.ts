/** The whole machine's busy CPU time from /proc/stat, to tell how much of it others used meanwhile. */
import { readFileSync } from 'node:fs';
import { CLK_TCK } from './proc-stat.js';

/** Busy CPU seconds of all cores since boot (everything but idle and iowait). */
export function hostBusyS(): number {
  const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest counted in user already)
  const busy = (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0);
  return busy / CLK_TCK;
}

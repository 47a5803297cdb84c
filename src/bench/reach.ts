/**
 * Section 7's targets that section 10 measured out of this machine's reach, marked
 * on the summary: a missed target whose floor (the least any Node.js client can do) misses it too
 * is not left to read as txbench's own shortfall. Only when both sections ran in the same sitting.
 */
import type { SummaryRow } from './figures.js';
import { floorCpuRatio, scriptAt, tpsVerdict, type FloorData, type FloorDb } from './floor.js';
import type { SectionRecord } from './sections.js';

const CPU_RATIO = 1.5;

/** Marks each of section 7's missed targets that section 10 measured out of reach, with that measurement. */
export function markOutOfReach(records: readonly SectionRecord[]): void {
  const sysbench = records.find((r) => r.key === 'sysbench' && r.status === 'ok');
  const floor = records.find((r) => r.key === 'floor' && r.status === 'ok');
  if (sysbench === undefined || floor === undefined || floor.data === undefined) return;
  const data = floor.data as FloorData;
  const dbs: [string, FloorDb][] = [['', data]];
  if (data.mariadb !== undefined && !('error' in data.mariadb)) dbs.push(['MariaDB: ', data.mariadb]);
  for (const [prefix, db] of dbs) {
    for (const row of db.rows) {
      const at = `${prefix}${scriptAt(row)}`;
      const tps = tpsVerdict(row);
      if (tps.outOfReach)
        mark(
          sysbench.targets,
          `${at}: TPS, txbench ÷ sysbench`,
          `section 10: ${tps.text}`,
          (txbench) => txbench <= tps.best,
        );
      const cpu = floorCpuRatio(row);
      if (cpu > CPU_RATIO)
        mark(
          sysbench.targets,
          `${at}: client CPU per statement, txbench ÷ sysbench`,
          `section 10: the floor's CPU per statement is ${cpu.toFixed(3)}× sysbench's`,
          (txbench) => txbench >= cpu,
        );
    }
  }
}

/**
 * Marks a missed target, unless txbench itself did better than the floor there: then the floor's
 * miss is that sitting's noise, not a limit, and the target stays a plain miss.
 */
function mark(
  rows: SummaryRow[],
  figure: string,
  why: string,
  noBetterThanFloor: (txbench: number) => boolean,
): void {
  const row = rows.find((r) => r.figure === figure);
  if (row !== undefined && !row.pass && row.value !== null && noBetterThanFloor(row.value))
    row.outOfReach = why;
}

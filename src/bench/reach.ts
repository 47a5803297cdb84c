/**
 * Targets measured out of this machine's reach, marked on the summary (section 7's by section 10,
 * section 1's MariaDB client-SQL ratio by its own floor): a missed target whose floor (the least
 * any Node.js client can do) misses it too is not left to read as txbench's own shortfall. Only
 * from measurements of the same sitting.
 */
import type { SummaryRow } from './figures.js';
import { floorCpuRatio, scriptAt, tpsVerdict, type FloorData, type FloorDb } from './floor.js';
import type { SectionRecord } from './sections.js';
import { CLIENT_SQL_RATIO, isRun, type ClientCostData } from './client-cost.js';
import { clientSqlOutOfReach } from './tpcc-floor.js';
import { floorVerdict, leadClause } from './reach-rule.js';

const CPU_RATIO = 1.5;

/** Marks each missed target another measurement of the sitting puts out of reach, with that measurement. */
export function markOutOfReach(records: readonly SectionRecord[]): void {
  markSysbench(records);
  markClientSql(records);
}

/** Section 1's MariaDB client-SQL ÷ procedures target, by section 1's own MariaDB floor. */
function markClientSql(records: readonly SectionRecord[]): void {
  const s1 = records.find((r) => r.key === 'clientCost' && r.status === 'ok');
  const data = s1?.data as ClientCostData | undefined;
  const floor = data?.mariadbFloor;
  const procedures = data?.runs.mariadbProcedures;
  if (s1 === undefined || floor === undefined || 'error' in floor || !isRun(procedures)) return;
  const row = s1.targets.find((r) => r.figure === CLIENT_SQL_RATIO);
  if (row === undefined) return;
  const why = clientSqlOutOfReach(row, floor, procedures);
  if (why !== undefined) row.outOfReach = why;
}

/** Section 7's targets that section 10 measured out of reach. */
function markSysbench(records: readonly SectionRecord[]): void {
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
        mark(sysbench.targets, `${at}: TPS, txbench ÷ sysbench`, `section 10: ${tps.text}`, tps.best, true);
      const cpu = floorCpuRatio(row);
      if (cpu > CPU_RATIO)
        mark(
          sysbench.targets,
          `${at}: client CPU per statement, txbench ÷ sysbench`,
          `section 10: the floor's CPU per statement is ${cpu.toFixed(3)}× sysbench's`,
          cpu,
          false,
        );
    }
  }
}

/** Marks a missed target where the floor's miss stands against txbench's own figure (reach-rule.ts). */
function mark(rows: SummaryRow[], figure: string, why: string, floor: number, higherIsBetter: boolean): void {
  const row = rows.find((r) => r.figure === figure);
  if (row === undefined || row.pass || row.value === null) return;
  const verdict = floorVerdict({ target: row.limit, floor, txbench: row.value, higherIsBetter });
  if (verdict.outOfReach) row.outOfReach = `${why}${leadClause(verdict, row.value)}`;
}

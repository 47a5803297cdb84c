/**
 * When a floor's miss puts a missed target out of reach. The floor (the least any Node.js client
 * can do) must miss the target too. Where txbench nonetheless did better than the floor, that lead
 * is the sitting's evident noise on the floor's figure, so the target counts as out of reach only
 * if it lies further beyond txbench than txbench lies beyond the floor. Point select at 1 thread on
 * MariaDB: loop 0.839×, txbench 0.924× against 0.95 is a plain miss (the noise could carry the floor
 * past the target); loop 0.879×, txbench 0.911× is out of reach.
 */
export interface ReachInputs {
  target: number;
  floor: number;
  txbench: number;
  /** TPS ratios: higher is better; CPU ratios: lower is better. */
  higherIsBetter: boolean;
}

export interface ReachVerdict {
  outOfReach: boolean;
  /** How far txbench did better than the floor (0 when it did no better). */
  lead: number;
}

export function floorVerdict({ target, floor, txbench, higherIsBetter }: ReachInputs): ReachVerdict {
  const sign = higherIsBetter ? 1 : -1;
  const floorMisses = sign * (target - floor) > 0;
  const txbenchMisses = sign * (target - txbench) > 0;
  const lead = Math.max(0, sign * (txbench - floor));
  const shortfall = sign * (target - txbench);
  return { outOfReach: floorMisses && txbenchMisses && shortfall > lead, lead };
}

/** The clause a mark adds where txbench did better than its floor: why that lead does not matter. */
export function leadClause(v: ReachVerdict, txbench: number): string {
  if (v.lead <= 0) return '';
  return `; txbench's ${txbench.toFixed(3)} beat the floor by ${v.lead.toFixed(3)}, less than it misses the target by`;
}

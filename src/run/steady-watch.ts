/**
 * Watches a phase's intervals (the warm-up, or preconditioning) for steady state by the SNIA rule
 * (metrics/steady-state.ts) and says when the phase may end. The figures judged are each
 * interval's own, the run's --interval long: the rule needs K of them, so a 10 s interval and
 * K = 5 cannot decide in under 50 s. With worker threads the intervals are the merged ones, so
 * the verdict is on the whole target's figures; with several targets each decides on its own.
 */
import type { IntervalStats } from '../engine/engine-result.js';
import {
  SteadyStateDetector,
  type SteadyFigure,
  type SteadyStateReport,
  type SteadyStateRule,
  type SteadyVerdict,
} from '../metrics/steady-state.js';

export class SteadyWatch {
  private readonly detector: SteadyStateDetector;
  private last: SteadyVerdict['figures'] = {};
  private atSeconds: number | null = null;

  constructor(
    private readonly rule: SteadyStateRule,
    private readonly maxMs: number,
    private readonly intervalMs: number,
  ) {
    this.detector = new SteadyStateDetector(rule);
  }

  /** Feeds one interval of the watched phase; true the first time the phase is steady. */
  add(stats: IntervalStats): boolean {
    if (this.atSeconds !== null) return false;
    // A sliver cut off by a phase change is too short to judge on (and comes only at the end).
    if (stats.seconds < this.intervalMs / 2000) return false;
    const verdict = this.detector.add(intervalFigures(stats));
    this.last = verdict.figures;
    if (!verdict.steady) return false;
    this.atSeconds = Math.round(stats.atS * 1000) / 1000;
    return true;
  }

  get reached(): boolean {
    return this.atSeconds !== null;
  }

  report(): SteadyStateReport {
    return {
      reached: this.atSeconds !== null,
      atSeconds: this.atSeconds,
      maxSeconds: this.maxMs / 1000,
      intervalS: this.intervalMs / 1000,
      window: this.rule.window,
      rangePct: this.rule.rangePct,
      slopePct: this.rule.slopePct,
      figures: [...this.rule.figures],
      last: Object.fromEntries(
        Object.entries(this.last).map(([f, j]) => [
          f,
          { mean: round3(j.mean), rangePct: round3(j.rangePct), slopePct: round3(j.slopePct) },
        ]),
      ),
    };
  }
}

/** TPS and the mean response time (ms, over every type's completed transactions) of one interval. */
export function intervalFigures(stats: IntervalStats): Record<SteadyFigure, number> {
  let count = 0;
  let totalMs = 0;
  for (const t of stats.perType) {
    count += t.count;
    totalMs += t.count * t.avgMs;
  }
  return { tps: count / stats.seconds, response: count > 0 ? totalMs / count : Number.NaN };
}

const round3 = (x: number): number => (Number.isFinite(x) ? Math.round(x * 1000) / 1000 : x);

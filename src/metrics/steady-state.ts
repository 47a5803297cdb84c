/**
 * When a warm-up (or a preconditioning phase) has settled, by the steady-state rule of the SNIA
 * Solid State Storage Performance Test Specification (PTS), the rule fio's `steadystate=` option
 * applies. Over a rolling window of the last K measurements of a figure (here: the run's
 * intervals, so the verdict is made at each interval's end):
 * - range: max − min of the K values is at most `rangePct`% of their mean (SNIA: 20%);
 * - slope: the excursion of their least-squares line over the window, |slope| × (K − 1), is at
 *   most `slopePct`% of their mean (SNIA: 10%).
 * fio checks either criterion alone, per second, and its slope limit is per measurement
 * (`iops_slope:10%` is 10% of the mean per second); SNIA requires both over the window, and so
 * does this module, for every figure watched. Pure, so the rule is unit-tested on synthetic series.
 */

/** The figures a verdict can watch: transactions per second, and the mean response time (ms). */
export const STEADY_FIGURES = ['tps', 'response'] as const;
export type SteadyFigure = (typeof STEADY_FIGURES)[number];

export interface SteadyStateRule {
  /** K: how many of the latest intervals are judged together (SNIA: 5 rounds). */
  window: number;
  /** max − min within this percentage of the window's mean. */
  rangePct: number;
  /** The fitted line's rise or fall across the window within this percentage of the mean. */
  slopePct: number;
  /** Every one of these must be steady. */
  figures: readonly SteadyFigure[];
}

export const DEFAULT_STEADY_RULE: SteadyStateRule = {
  window: 5,
  rangePct: 20,
  slopePct: 10,
  figures: STEADY_FIGURES,
};

/** How long an `auto` warm-up or preconditioning waits for steady state at most (30 min). */
export const DEFAULT_STEADY_MAX_MS = 30 * 60_000;

/** One figure over one window: its mean and both criteria as percentages of that mean. */
export interface WindowJudgement {
  mean: number;
  rangePct: number;
  slopePct: number;
  steady: boolean;
}

/**
 * The rule over one window of values (oldest first, equally spaced as intervals are). A window
 * whose mean is not above 0 (nothing completed) or holds a non-finite value is never steady.
 */
export function judgeWindow(
  values: readonly number[],
  rule: Pick<SteadyStateRule, 'rangePct' | 'slopePct'>,
): WindowJudgement {
  const k = values.length;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    sum += v;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const mean = k > 0 ? sum / k : Number.NaN;
  if (k < 2 || !Number.isFinite(sum) || !(mean > 0))
    return { mean, rangePct: Number.NaN, slopePct: Number.NaN, steady: false };
  // Least squares over x = 0 … k−1: slope = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)².
  const xMean = (k - 1) / 2;
  let sxy = 0;
  let sxx = 0;
  values.forEach((y, x) => {
    sxy += (x - xMean) * (y - mean);
    sxx += (x - xMean) ** 2;
  });
  const slope = sxy / sxx;
  const rangePct = ((max - min) / mean) * 100;
  const slopePct = ((Math.abs(slope) * (k - 1)) / mean) * 100;
  return { mean, rangePct, slopePct, steady: rangePct <= rule.rangePct && slopePct <= rule.slopePct };
}

/** One interval's figures, as the detector is fed them. */
export type SteadyPoint = Readonly<Record<SteadyFigure, number>>;

/** The verdict after the latest interval: steady or not, and each watched figure's judgement. */
export interface SteadyVerdict {
  steady: boolean;
  /** Absent until K intervals have been seen. */
  figures: Partial<Record<SteadyFigure, WindowJudgement>>;
}

/** Fed one interval at a time; says after each whether the last K intervals are steady. */
export class SteadyStateDetector {
  private readonly points: SteadyPoint[] = [];

  constructor(private readonly rule: SteadyStateRule) {}

  add(point: SteadyPoint): SteadyVerdict {
    this.points.push(point);
    if (this.points.length > this.rule.window) this.points.shift();
    if (this.points.length < this.rule.window) return { steady: false, figures: {} };
    const figures: SteadyVerdict['figures'] = {};
    let steady = true;
    for (const f of this.rule.figures) {
      const j = judgeWindow(
        this.points.map((p) => p[f]),
        this.rule,
      );
      figures[f] = j;
      steady &&= j.steady;
    }
    return { steady, figures };
  }
}

/** The index of the first interval at whose end the series is steady, or -1 when it never is. */
export function firstSteadyIndex(series: readonly SteadyPoint[], rule: SteadyStateRule): number {
  const detector = new SteadyStateDetector(rule);
  return series.findIndex((p) => detector.add(p).steady);
}

/** run.json's account of a phase that ended on steady state (`--warmup auto`, `--precondition auto`). */
export interface SteadyStateReport {
  reached: boolean;
  /** Seconds from the phase's start to the end of the interval that made it steady; null when never. */
  atSeconds: number | null;
  /** The cap: the phase ended here when steady state was not reached. */
  maxSeconds: number;
  /** The intervals judged were this long (the run's --interval). */
  intervalS: number;
  window: number;
  rangePct: number;
  slopePct: number;
  figures: SteadyFigure[];
  /** Each figure's mean, range and slope (% of the mean) over the last window judged. */
  last: Partial<Record<SteadyFigure, { mean: number; rangePct: number; slopePct: number }>>;
}

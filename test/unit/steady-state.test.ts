import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STEADY_RULE,
  firstSteadyIndex,
  judgeWindow,
  SteadyStateDetector,
  type SteadyPoint,
} from '../../src/metrics/steady-state.js';
import { Rng } from '../../src/random/rng.js';

const rule = DEFAULT_STEADY_RULE;

/** Noise uniform in ±amplitude (a fraction), from a seeded generator. */
function noisy(rng: Rng, level: number, amplitude: number): number {
  return level * (1 + amplitude * (2 * rng.float() - 1));
}

/** TPS and response time moving together: response time falls as a cold cache warms. */
const point = (tps: number, level: number): SteadyPoint => ({ tps, response: (1000 * level) / tps });

describe('judgeWindow', () => {
  it('takes the range and the fitted line across the window as percentages of the mean', () => {
    const j = judgeWindow([90, 95, 100, 105, 110], rule);
    expect(j.mean).toBe(100);
    expect(j.rangePct).toBeCloseTo(20, 9);
    // A straight line: the fitted rise over the window is the range.
    expect(j.slopePct).toBeCloseTo(20, 9);
    expect(j.steady).toBe(false);
  });

  it('passes a flat window and refuses an empty or idle one', () => {
    expect(judgeWindow([100, 101, 99, 100, 100], rule).steady).toBe(true);
    expect(judgeWindow([0, 0, 0, 0, 0], rule).steady).toBe(false);
    expect(judgeWindow([100, Number.NaN, 100, 100, 100], rule).steady).toBe(false);
  });

  it('needs both criteria: a wide but level window fails on its range alone', () => {
    const j = judgeWindow([80, 120, 100, 120, 80], rule);
    expect(j.slopePct).toBeLessThan(rule.slopePct);
    expect(j.rangePct).toBeGreaterThan(rule.rangePct);
    expect(j.steady).toBe(false);
  });
});

describe('SteadyStateDetector', () => {
  it('finds a climbing series steady within 3 intervals of where it flattens', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rng = new Rng(seed);
      const flatFrom = 20;
      const plateau = 1000;
      const series = Array.from({ length: 60 }, (_, i) => {
        const level = i < flatFrom ? 100 + ((plateau - 100) * i) / flatFrom : plateau;
        return point(noisy(rng, level, 0.02), plateau);
      });
      const at = firstSteadyIndex(series, rule);
      expect(at, `seed ${seed}`).toBeGreaterThanOrEqual(flatFrom - 3);
      expect(at, `seed ${seed}`).toBeLessThanOrEqual(flatFrom + 3);
    }
  });

  it('never finds a series that keeps climbing, nor one that swings, steady', () => {
    const climbing = Array.from({ length: 200 }, (_, i) => point(100 * 1.03 ** i, 100));
    expect(firstSteadyIndex(climbing, rule)).toBe(-1);
    const rng = new Rng(7);
    const swinging = Array.from({ length: 200 }, (_, i) =>
      point(noisy(rng, i % 6 < 3 ? 800 : 1200, 0.02), 1000),
    );
    expect(firstSteadyIndex(swinging, rule)).toBe(-1);
  });

  it('finds noise around a flat level steady as soon as it has K intervals', () => {
    for (const seed of [11, 12, 13]) {
      const rng = new Rng(seed);
      // ±3%: the range is at most 6% and the fitted excursion at most 4 × 1.8% of the mean.
      const series = Array.from({ length: 20 }, () => point(noisy(rng, 500, 0.03), 500));
      expect(firstSteadyIndex(series, rule)).toBe(rule.window - 1);
      const k3 = { ...rule, window: 3 };
      expect(firstSteadyIndex(series, k3)).toBe(2);
    }
  });

  it('watches only the figures it is given', () => {
    // Throughput flat, response time climbing (a queue building up).
    const series = Array.from({ length: 30 }, (_, i) => ({ tps: 100, response: 10 * 1.05 ** i }));
    expect(firstSteadyIndex(series, rule)).toBe(-1);
    expect(firstSteadyIndex(series, { ...rule, figures: ['tps'] })).toBe(rule.window - 1);
  });

  it('reports each figure’s judgement once it has a window', () => {
    const d = new SteadyStateDetector({ ...rule, window: 2 });
    expect(d.add({ tps: 100, response: 5 })).toEqual({ steady: false, figures: {} });
    const v = d.add({ tps: 100, response: 5 });
    expect(v.steady).toBe(true);
    expect(v.figures.tps?.mean).toBe(100);
    expect(v.figures.response?.rangePct).toBe(0);
  });
});

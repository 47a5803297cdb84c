import { describe, expect, it } from 'vitest';
import { ceilingPerTerminalPerMinute, type Pacing } from '../../src/engine/ceiling.js';
import { CardDeck } from '../../src/engine/deck.js';
import { thinkTimeMs } from '../../src/engine/pacing.js';
import { deriveSeed, Rng } from '../../src/random/rng.js';
import { NEW_ORDER, TPCC_DECK, TPCC_TRANSACTIONS } from '../../src/workloads/tpcc/profile.js';

/**
 * Terminals paced the way the engine paces them, with responses that take no time: each cycle
 * draws a card, thinks (negative exponential, truncated) and keys in. Returns completions of
 * `type` per simulated minute, summed over the terminals.
 */
function simulatePerMinute(
  deck: readonly number[],
  pacing: readonly Pacing[],
  thinkScale: number,
  type: number,
  terminals: number,
  cycles: number,
): number {
  let perMinute = 0;
  for (let t = 0; t < terminals; t++) {
    const rng = new Rng(deriveSeed(20_240_501, t));
    const cards = new CardDeck(deck, rng);
    let ms = 0;
    let count = 0;
    for (let c = 0; c < cycles; c++) {
      const drawn = cards.draw();
      const p = pacing[drawn]!;
      ms += thinkTimeMs(rng, p.thinkMeanS * 1000 * thinkScale) + p.keyingS * 1000 * thinkScale;
      if (drawn === type) count++;
    }
    perMinute += (count * 60_000) / ms;
  }
  return perMinute;
}

describe('ceilingPerTerminalPerMinute', () => {
  it('agrees with a simulation of 10 terminals at think-scale 1 on the 23-card deck (within 0.3%)', () => {
    const derived = 10 * ceilingPerTerminalPerMinute(TPCC_DECK, TPCC_TRANSACTIONS, 1, NEW_ORDER);
    // 1.15M cycles: the simulated rate's standard error is about 0.06%.
    const simulated = simulatePerMinute(TPCC_DECK, TPCC_TRANSACTIONS, 1, NEW_ORDER, 10, 115_000);
    expect(Math.abs(simulated / derived - 1)).toBeLessThan(0.003);
  });

  it('agrees with a simulation for another deck and pacing (any workload)', () => {
    const pacing: Pacing[] = [
      { keyingS: 1, thinkMeanS: 4 },
      { keyingS: 0, thinkMeanS: 0.5 },
      { keyingS: 6, thinkMeanS: 0 },
    ];
    const deck = [3, 5, 2];
    for (const type of [0, 1, 2]) {
      const derived = 10 * ceilingPerTerminalPerMinute(deck, pacing, 0.5, type);
      const simulated = simulatePerMinute(deck, pacing, 0.5, type, 10, 50_000);
      expect(Math.abs(simulated / derived - 1)).toBeLessThan(0.005);
    }
  });

  it('the default 23-card deck caps 10 terminals below 12.86 tpmC (that is the 45/43/4/4/4 mix)', () => {
    const perTen = (deck: readonly number[]): number =>
      10 * ceilingPerTerminalPerMinute(deck, TPCC_TRANSACTIONS, 1, NEW_ORDER);
    expect(perTen(TPCC_DECK)).toBeLessThan(12.86);
    expect(perTen(TPCC_DECK)).toBeCloseTo(12.605, 2);
    expect(perTen([45, 43, 4, 4, 4])).toBeCloseTo(12.86, 2);
  });

  it('scales inversely with think-scale; no pacing means no ceiling; a type without cards has none', () => {
    const at = (scale: number): number => ceilingPerTerminalPerMinute(TPCC_DECK, TPCC_TRANSACTIONS, scale, 0);
    expect(at(0.25)).toBeCloseTo(4 * at(1), 9);
    expect(at(0)).toBe(Infinity);
    expect(ceilingPerTerminalPerMinute([0, 1, 1, 1, 1], TPCC_TRANSACTIONS, 1, 0)).toBe(0);
  });

  it('refuses a deck and pacing of different lengths, or an empty deck', () => {
    expect(() => ceilingPerTerminalPerMinute([1, 1], TPCC_TRANSACTIONS, 1, 0)).toThrow(/2 types/);
    expect(() => ceilingPerTerminalPerMinute([0, 0, 0, 0, 0], TPCC_TRANSACTIONS, 1, 0)).toThrow(/no cards/);
  });
});

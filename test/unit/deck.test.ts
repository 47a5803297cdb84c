import { describe, expect, it } from 'vitest';
import { CardDeck, deckFromPercentages } from '../../src/engine/deck.js';
import { Rng } from '../../src/random/rng.js';

const TPCC = [10, 10, 1, 1, 1];

function counts(cards: readonly number[], types: number): number[] {
  const out = new Array<number>(types).fill(0);
  for (const c of cards) out[c]!++;
  return out;
}

describe('CardDeck', () => {
  it('has one card per unit of weight', () => {
    expect(new CardDeck(TPCC, new Rng(1)).size).toBe(23);
    expect(new CardDeck([45, 43, 4, 4, 4], new Rng(1)).size).toBe(100);
    expect(new CardDeck([0, 3], new Rng(1)).size).toBe(3);
  });

  it('every pass of 23 draws aligned to the deck holds exactly 10, 10, 1, 1, 1', () => {
    const deck = new CardDeck(TPCC, new Rng(42));
    const passes = 2000;
    const bad: number[] = [];
    for (let p = 0; p < passes; p++) {
      const pass = Array.from({ length: 23 }, () => deck.draw());
      const c = counts(pass, 5);
      if (c.join(',') !== '10,10,1,1,1') bad.push(p);
    }
    expect(bad).toEqual([]);
  });

  it('shuffles afresh for every pass: passes differ and every position sees every type', () => {
    const deck = new CardDeck(TPCC, new Rng(3));
    const seen = new Set<string>();
    const passes = 500;
    // How often each of the 5 single cards lands at each position of the pass.
    const position = Array.from({ length: 23 }, () => new Array<number>(5).fill(0));
    for (let p = 0; p < passes; p++) {
      const pass = Array.from({ length: 23 }, () => deck.draw());
      seen.add(pass.join(''));
      pass.forEach((type, i) => position[i]![type]!++);
    }
    // 23!/(10!10!) = 1.1 billion orders: 500 passes should be (nearly) all different.
    expect(seen.size).toBeGreaterThan(495);
    // Uniform shuffle: New-Order at a given position with probability 10/23 (about 217 of 500).
    for (const row of position) {
      expect(row[0]).toBeGreaterThan(150);
      expect(row[0]).toBeLessThan(290);
      for (const single of [2, 3, 4]) expect(row[single]).toBeGreaterThan(0);
    }
  });

  it('the first pass is already shuffled (not the sorted deck)', () => {
    const sorted = '0000000000111111111122234';
    let sortedFirstPasses = 0;
    for (let seed = 0; seed < 50; seed++) {
      const deck = new CardDeck(TPCC, new Rng(seed));
      if (Array.from({ length: 23 }, () => deck.draw()).join('') === sorted) sortedFirstPasses++;
    }
    expect(sortedFirstPasses).toBe(0);
  });

  it('the same seed gives the same sequence; another seed another', () => {
    const draw = (seed: number): string => {
      const deck = new CardDeck(TPCC, new Rng(seed));
      return Array.from({ length: 230 }, () => deck.draw()).join('');
    };
    expect(draw(9)).toBe(draw(9));
    expect(draw(9)).not.toBe(draw(10));
  });

  it('a single-type deck always draws that type', () => {
    const deck = new CardDeck([0, 0, 4], new Rng(5));
    for (let i = 0; i < 20; i++) expect(deck.draw()).toBe(2);
  });

  it('a 100-card deck from 45,43,4,4,4 keeps those counts in every pass', () => {
    const deck = new CardDeck(deckFromPercentages([45, 43, 4, 4, 4]), new Rng(11));
    for (let p = 0; p < 200; p++) {
      const pass = Array.from({ length: 100 }, () => deck.draw());
      expect(counts(pass, 5)).toEqual([45, 43, 4, 4, 4]);
    }
  });

  it.each([
    [[]],
    [[0, 0, 0, 0, 0]],
    [[10, -1, 1, 1, 1]],
    [[10, 10, 1.5, 1, 1]],
    [[10, Number.NaN, 1, 1, 1]],
    [[Number.POSITIVE_INFINITY, 1]],
  ])('invalid weights %j throw a RangeError', (weights) => {
    expect(() => new CardDeck(weights, new Rng(1))).toThrow(RangeError);
  });
});

describe('deckFromPercentages', () => {
  it('keeps 45,43,4,4,4 as 100 cards (gcd 1)', () => {
    const deck = deckFromPercentages([45, 43, 4, 4, 4]);
    expect(deck).toEqual([45, 43, 4, 4, 4]);
    expect(deck.reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('reduces by the greatest common divisor', () => {
    expect(deckFromPercentages([40, 40, 10, 5, 5])).toEqual([8, 8, 2, 1, 1]);
    expect(deckFromPercentages([20, 20, 20, 20, 20])).toEqual([1, 1, 1, 1, 1]);
    expect(deckFromPercentages([50, 50, 0, 0, 0])).toEqual([1, 1, 0, 0, 0]);
    expect(deckFromPercentages([100, 0, 0, 0, 0])).toEqual([1, 0, 0, 0, 0]);
    expect(deckFromPercentages([44, 44, 4, 4, 4])).toEqual([11, 11, 1, 1, 1]);
  });

  it('keeps the proportions of the percentages exactly', () => {
    for (const p of [
      [45, 43, 4, 4, 4],
      [40, 40, 10, 5, 5],
      [44, 44, 4, 4, 4],
      [60, 20, 10, 6, 4],
    ]) {
      const deck = deckFromPercentages(p);
      const size = deck.reduce((a, b) => a + b, 0);
      deck.forEach((cards, i) => expect((cards * 100) / size).toBeCloseTo(p[i]!, 10));
      expect(new CardDeck(deck, new Rng(1)).size).toBe(size);
    }
  });

  it('all zeros stay all zeros, which CardDeck then refuses', () => {
    const deck = deckFromPercentages([0, 0, 0, 0, 0]);
    expect(deck).toEqual([0, 0, 0, 0, 0]);
    expect(() => new CardDeck(deck, new Rng(1))).toThrow(RangeError);
  });
});

import type { Rng } from '../random/rng.js';

/**
 * The card-deck method of TPC-C clause 5.2.4.2: a deck holds each transaction type as many times
 * as its weight; every pass through the deck is a fresh uniform shuffle, so the minimum shares
 * hold over every deck, not merely on average.
 */
export class CardDeck {
  private readonly cards: Uint8Array;
  private next: number;

  /** `weights[i]` cards of type i; the default TPC-C deck is 10, 10, 1, 1, 1 (23 cards). */
  constructor(
    weights: readonly number[],
    private readonly rng: Rng,
  ) {
    const size = weights.reduce((a, b) => a + b, 0);
    if (size <= 0 || weights.some((w) => !Number.isInteger(w) || w < 0)) {
      throw new RangeError(
        `deck weights must be non-negative integers with a positive sum: ${weights.join(',')}`,
      );
    }
    this.cards = new Uint8Array(size);
    let k = 0;
    weights.forEach((w, type) => {
      for (let i = 0; i < w; i++) this.cards[k++] = type;
    });
    this.next = size; // shuffle on the first draw
  }

  get size(): number {
    return this.cards.length;
  }

  draw(): number {
    if (this.next === this.cards.length) {
      this.shuffle();
      this.next = 0;
    }
    return this.cards[this.next++]!;
  }

  private shuffle(): void {
    const c = this.cards;
    for (let i = c.length - 1; i > 0; i--) {
      const j = this.rng.int(0, i);
      const t = c[i]!;
      c[i] = c[j]!;
      c[j] = t;
    }
  }
}

/** The smallest deck with the given integer percentages' proportions (45,43,4,4,4 stays 100 cards; 40,40,... reduces). */
export function deckFromPercentages(percentages: readonly number[]): number[] {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const g = percentages.reduce((a, b) => gcd(a, b), 0);
  return percentages.map((p) => (g === 0 ? p : p / g));
}

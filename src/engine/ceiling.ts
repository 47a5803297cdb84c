import { truncatedThinkMeanMs } from './pacing.js';

/** A transaction type's pacing at think-scale 1, seconds (a `TransactionSpec` is one). */
export interface Pacing {
  keyingS: number;
  thinkMeanS: number;
}

/**
 * The most transactions of type `type` one terminal can complete per minute when every response
 * takes no time at all: the closed-loop law X = N / (Z + R) with R = 0, for the configured deck and
 * pacing. A terminal's cycle per card is keying time plus think time; over a pass through the deck
 * each card is drawn once, so the mean cycle is the mean over the deck's cards, and `type` is
 * `deck[type]` of every `size` cards. Think time enters with the mean of the distribution as the
 * engine draws it (truncated at 10x the mean), and both times scale with `thinkScale`.
 *
 * Infinity when nothing paces the terminal (think-scale 0, or a deck of unpaced types).
 */
export function ceilingPerTerminalPerMinute(
  deck: readonly number[],
  pacing: readonly Pacing[],
  thinkScale: number,
  type: number,
): number {
  if (deck.length !== pacing.length) {
    throw new RangeError(`the deck has ${deck.length} types but the pacing ${pacing.length}`);
  }
  const cards = deck.reduce((a, b) => a + b, 0);
  if (cards <= 0) throw new RangeError('the deck has no cards');
  let cycleMs = 0;
  deck.forEach((n, i) => {
    const p = pacing[i]!;
    cycleMs += n * (p.keyingS * 1000 + truncatedThinkMeanMs(p.thinkMeanS * 1000));
  });
  cycleMs = (cycleMs / cards) * thinkScale;
  const share = (deck[type] ?? 0) / cards;
  if (share === 0) return 0;
  return cycleMs > 0 ? (60_000 * share) / cycleMs : Infinity;
}

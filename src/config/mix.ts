import { UsageError } from '../errors.js';

/** `--mix 45,43,4,4,4`: whole percentages of New-Order, Payment, Order-Status, Delivery, Stock-Level. */
export function parseMix(text: string, types: number): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const values = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  if (parts.length !== types || values.some((v) => !Number.isInteger(v))) {
    throw new UsageError(
      `--mix needs ${types} whole percentages separated by commas (e.g. 45,43,4,4,4), not "${text}"`,
    );
  }
  const sum = values.reduce((a, b) => a + b, 0);
  if (sum !== 100) throw new UsageError(`--mix must add up to 100, but ${text} adds up to ${sum}`);
  return values;
}

/** The smallest share each transaction type may have, percent, and the types' names, in mix order. */
export interface MixRules {
  minimums: readonly number[];
  names: readonly string[];
}

export interface ShareBelowMinimum {
  name: string;
  /** The type's share of the mix or deck, percent. */
  share: number;
  minimum: number;
}

/** The types whose share of `weights` (percentages, or a deck's card counts) is below its minimum. */
export function sharesBelowMinimums(weights: readonly number[], rules: MixRules): ShareBelowMinimum[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const low: ShareBelowMinimum[] = [];
  weights.forEach((w, i) => {
    const minimum = rules.minimums[i] ?? 0;
    const share = total > 0 ? (w * 100) / total : 0;
    if (share < minimum) low.push({ name: rules.names[i] ?? `type ${i + 1}`, share, minimum });
  });
  return low;
}

export const ALLOW_NONSTANDARD_MIX_FLAG = '--allow-nonstandard-mix';

/**
 * Refuses a mix below the spec's minimums before anything starts (the audit would only find it
 * after the run), unless the user asked for a non-standard mix. Returns whether the mix is
 * non-standard.
 */
export function checkMixMinimums(
  mix: readonly number[],
  rules: MixRules,
  allowNonstandard: boolean,
): boolean {
  const low = sharesBelowMinimums(mix, rules);
  if (low.length === 0) return false;
  if (allowNonstandard) return true;
  const shares = low.map((l) => `${l.name} ${formatShare(l.share)}% (minimum ${l.minimum}%)`).join(', ');
  throw new UsageError(
    `--mix ${mix.join(',')} is below the spec's minimum share for ${shares}; raise it, or add ${ALLOW_NONSTANDARD_MIX_FLAG} to run it marked non-standard`,
  );
}

function formatShare(share: number): string {
  return Number.isInteger(share) ? String(share) : share.toFixed(2);
}

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

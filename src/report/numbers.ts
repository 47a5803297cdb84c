/** How the comparison and cost tables show numbers to people (CSV keeps the raw values). */

/** Whole number with thousands separators (truncated, as tpmC is). */
export const whole = (x: number): string => Math.trunc(x).toLocaleString('en-US');

/** Two decimals with thousands separators. */
export const twoDecimals = (x: number): string =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Milliseconds: three significant figures or whole numbers from 100 ms (as in the run summary). */
export const millis = (x: number): string =>
  x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);

/**
 * Money and ratios: two decimals from 1 up; below 1, three significant figures so that small
 * ratios (cost per usable GB per TPS is often a few millionths) do not print as 0.00.
 */
export const amount = (x: number): string => {
  if (x === 0 || Math.abs(x) >= 1) return twoDecimals(x);
  return String(Number(x.toPrecision(3)));
};

/** `n/a` for a figure that is missing or undefined (a ratio over zero TPS). */
export const orNa = (x: number | null | undefined, f: (v: number) => string): string =>
  x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : f(x);

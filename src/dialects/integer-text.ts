/**
 * A safe integer's decimal text (`String(n)`) written straight into a buffer, as both wire paths
 * write their numeric parameters: no string made per id, count or list item.
 */

/** How many characters `String(n)` has, for a safe integer `n`. */
export function digitsOf(n: number): number {
  if (n >= 0 && n < 100_000) return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10_000 ? 4 : 5;
  let digits = n < 0 ? 2 : 1;
  const rest = Math.abs(n);
  for (let power = 10; digits < 17 && rest >= power; power *= 10) digits++;
  return digits;
}

/** Writes `String(n)` of a safe integer `n` at `at` (room made: at most 17 bytes) and returns where it ends. */
export function putInteger(buf: Buffer, at: number, n: number): number {
  const end = at + digitsOf(n);
  let i = end;
  if (n >= 0 && n <= 0x7fffffff) {
    // Integer division on 32 bits: what an id or a count takes.
    let rest = n;
    do {
      const tens = (rest / 10) | 0;
      buf[--i] = 0x30 + rest - tens * 10;
      rest = tens;
    } while (rest > 0);
    return end;
  }
  let rest = Math.abs(n);
  do {
    buf[--i] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  } while (rest > 0);
  if (n < 0) buf[at] = 0x2d; // '-'
  return end;
}

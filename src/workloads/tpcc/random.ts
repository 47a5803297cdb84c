/**
 * Random rules of TPC-C clause 2.1 and 4.3.2, on a small, fast, seedable generator.
 * Everything here is pure so that the loader (in worker threads) and the run-time input
 * generators share one implementation, and unit tests can pin each rule.
 */

import type { Rng } from '../../random/rng.js';

/** Byte codes of the 62 alphanumerics, the a-string alphabet every kit uses. */
export const ALNUM = Buffer.from('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 'latin1');
export const DIGITS = Buffer.from('0123456789', 'latin1');
const ORIGINAL = Buffer.from('ORIGINAL', 'latin1');

/** Writes `len` random characters of `alphabet` into `out` at `pos`; returns the new position. */
export function fillRandom(rng: Rng, out: Buffer, pos: number, len: number, alphabet: Buffer): number {
  const n = alphabet.length;
  for (let i = 0; i < len; i++) out[pos + i] = alphabet[Math.floor(rng.float() * n)]!;
  return pos + len;
}

/** a-string [min..max]: random alphanumerics, uniform length. */
export function aString(rng: Rng, min: number, max: number): string {
  const len = rng.int(min, max);
  const buf = Buffer.allocUnsafe(len);
  fillRandom(rng, buf, 0, len, ALNUM);
  return buf.toString('latin1');
}

/** n-string [min..max]: random digits, uniform length. */
export function nString(rng: Rng, min: number, max: number): string {
  const len = rng.int(min, max);
  const buf = Buffer.allocUnsafe(len);
  fillRandom(rng, buf, 0, len, DIGITS);
  return buf.toString('latin1');
}

/** Zip rule: a random 4-digit n-string followed by "11111". */
export function zip(rng: Rng): string {
  return nString(rng, 4, 4) + '11111';
}

/**
 * Writes an a-string [min..max] into `out`; when `original` is set the 8 characters ORIGINAL
 * replace a run at a random position, keeping the drawn length.
 */
export function writeDataString(
  rng: Rng,
  out: Buffer,
  pos: number,
  min: number,
  max: number,
  original: boolean,
): number {
  const len = rng.int(min, max);
  fillRandom(rng, out, pos, len, ALNUM);
  if (original) ORIGINAL.copy(out, pos + rng.int(0, len - ORIGINAL.length));
  return pos + len;
}

/** The data string as text, for callers that do not build buffers. */
export function dataString(rng: Rng, min: number, max: number, original: boolean): string {
  const buf = Buffer.allocUnsafe(max);
  const end = writeDataString(rng, buf, 0, min, max, original);
  return buf.toString('latin1', 0, end);
}

/** NURand(A, x, y) of clause 2.1.6. */
export function nurand(rng: Rng, a: number, x: number, y: number, c: number): number {
  return (((rng.int(0, a) | rng.int(x, y)) + c) % (y - x + 1)) + x;
}

export const SYLLABLES = [
  'BAR',
  'OUGHT',
  'ABLE',
  'PRI',
  'PRES',
  'ESE',
  'ANTI',
  'CALLY',
  'ATION',
  'EING',
] as const;

const LAST_NAMES: readonly string[] = Array.from(
  { length: 1000 },
  (_, n) => SYLLABLES[Math.floor(n / 100)]! + SYLLABLES[Math.floor(n / 10) % 10]! + SYLLABLES[n % 10]!,
);

/** Customer last name of a number in 0..999 (clause 4.3.2.3). */
export function lastName(n: number): string {
  const name = LAST_NAMES[n];
  if (name === undefined) throw new RangeError(`last-name number ${n} is outside 0..999`);
  return name;
}

/** A uniformly random permutation of 1..n (Fisher-Yates). */
export function permutation(rng: Rng, n: number): Int32Array {
  const p = new Int32Array(n);
  for (let i = 0; i < n; i++) p[i] = i + 1;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}

/**
 * Marks exactly k of n positions, chosen uniformly (the "randomly chosen 10%" rules).
 * Exactly k rather than a 10% coin per row, so every district and warehouse is within tolerance.
 */
export function chooseExactly(rng: Rng, n: number, k: number): Uint8Array {
  const marks = new Uint8Array(n);
  // Floyd's algorithm: k draws, no rejection loop, no O(n) shuffle.
  for (let j = n - k; j < n; j++) {
    const t = rng.int(0, j);
    if (marks[t] === 0) marks[t] = 1;
    else marks[j] = 1;
  }
  return marks;
}

/** The three NURand constants. C_LAST's load value constrains the run value (clause 2.1.6.1). */
export interface NurandConstants {
  cLast: number;
  cId: number;
  olIId: number;
}

export function randomLoadConstants(rng: Rng): NurandConstants {
  return { cLast: rng.int(0, 255), cId: rng.int(0, 1023), olIId: rng.int(0, 8191) };
}

/** True when |cRun - cLoad| is in [65..119] and not 96 or 112. */
export function isValidCLastDelta(cLoad: number, cRun: number): boolean {
  const delta = Math.abs(cRun - cLoad);
  return delta >= 65 && delta <= 119 && delta !== 96 && delta !== 112;
}

/** Picks a run-time C for C_LAST that obeys the delta rule against the load-time one. */
export function runConstants(rng: Rng, load: NurandConstants): NurandConstants {
  const candidates: number[] = [];
  for (let c = 0; c <= 255; c++) if (isValidCLastDelta(load.cLast, c)) candidates.push(c);
  const cLast = candidates[rng.int(0, candidates.length - 1)];
  if (cLast === undefined) throw new Error(`no valid run-time C_LAST for load-time ${load.cLast}`);
  return { cLast, cId: rng.int(0, 1023), olIId: rng.int(0, 8191) };
}

/**
 * Pre-generated random characters for the loader. Clause 4.3.2.1 lets load-time random values come
 * from a pool of at least 10,000 pre-generated values; here a string is a slice of a 1 MiB pool
 * at a random offset: one draw per string instead of one per character, which is most of the
 * loader's CPU otherwise.
 */
export class CharPool {
  readonly bytes: Buffer;

  constructor(rng: Rng, alphabet: Buffer, size = 1 << 20) {
    this.bytes = Buffer.allocUnsafe(size);
    fillRandom(rng, this.bytes, 0, size, alphabet);
    // The 10% ORIGINAL rules must not be helped by chance occurrences in the pool.
    for (let at = this.bytes.indexOf(ORIGINAL); at >= 0; at = this.bytes.indexOf(ORIGINAL, at))
      this.bytes[at] = 48;
  }

  /** Writes `len` pool characters into `out` at `pos`; returns the new position. */
  write(rng: Rng, out: Buffer, pos: number, len: number): number {
    const from = Math.floor(rng.float() * (this.bytes.length - len + 1));
    // Buffer.copy is a native call with a fixed cost that dwarfs a 24-byte copy; loop for short ones.
    if (len > 64) this.bytes.copy(out, pos, from, from + len);
    else for (let i = 0; i < len; i++) out[pos + i] = this.bytes[from + i]!;
    return pos + len;
  }
}

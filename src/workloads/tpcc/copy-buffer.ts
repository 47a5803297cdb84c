import { Rng } from '../../random/rng.js';
import { ALNUM, CharPool, DIGITS, fillRandom } from './random.js';

/** The character pools the loader draws strings from (see CharPool). */
export interface LoadPools {
  alnum: CharPool;
  digits: CharPool;
}

/** Pools for one load, the same in every worker thread for a given seed. */
export function loadPools(seed: number): LoadPools {
  const rng = new Rng(seed ^ 0x51ed270b);
  return { alnum: new CharPool(rng, ALNUM), digits: new CharPool(rng, DIGITS, 1 << 16) };
}

const ORIGINAL_BYTES = Buffer.from('ORIGINAL', 'latin1');
const ZIP_SUFFIX = Buffer.from('11111', 'latin1');

/**
 * What the loader's generators write rows through, in PostgreSQL's COPY text (`CopyBuffer`) or
 * binary format (`BinaryCopyBuffer`, copy-binary.ts). Each value method writes one field; `tab()`
 * ends a field in the text format and is nothing in the binary one. Chunks only ever hold whole
 * rows.
 */
export interface RowBuffer {
  readonly full: boolean;
  /** Bytes of the whole rows written so far. */
  readonly length: number;
  rows: number;
  take(): Buffer;
  /** An integer column. */
  int(n: number): this;
  /** A numeric column, given in units of 10^-scale (cents for scale 2). */
  fixed(units: number, scale: number): this;
  /** A timestamp column holding the load's time. */
  time(): this;
  /** A text column of constant bytes. */
  bytes(b: Buffer): this;
  alnum(rng: Rng, min: number, max: number): this;
  digits(rng: Rng, len: number): this;
  /** A zip code: four random digits and 11111 (clause 4.3.2.7). */
  zip(rng: Rng): this;
  dataString(rng: Rng, min: number, max: number, original: boolean): this;
  random(rng: Rng, min: number, max: number, alphabet: Buffer): this;
  null(): this;
  tab(): this;
  endRow(): void;
}

/**
 * Builds PostgreSQL COPY text rows directly into a byte buffer: no per-row strings or arrays,
 * because generation competes with the server for the same cores during a load.
 * Every value txbench generates is plain ASCII without tabs, newlines or backslashes, so nothing
 * needs escaping.
 */
export class CopyBuffer implements RowBuffer {
  private buf: Buffer;
  private pos = 0;
  rows = 0;
  private readonly loadTime: Buffer;

  constructor(
    private readonly chunkBytes = 256 * 1024,
    private readonly pools?: LoadPools,
    /** The load's time as `YYYY-MM-DD HH:MM:SS.mmm`, for `time()`. */
    loadTime = '',
  ) {
    this.loadTime = Buffer.from(loadTime, 'latin1');
    // Headroom for the longest row (a customer is under 1 KB) past the flush threshold.
    this.buf = Buffer.allocUnsafe(chunkBytes + 4096);
  }

  get full(): boolean {
    return this.pos >= this.chunkBytes;
  }

  get length(): number {
    return this.pos;
  }

  /** Hands the filled bytes over and starts a new buffer (the old one now belongs to the caller). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.buf = Buffer.allocUnsafe(this.chunkBytes + 4096);
    this.pos = 0;
    this.rows = 0;
    return out;
  }

  /** A non-negative integer. */
  int(n: number): this {
    if (n < 10) {
      this.buf[this.pos++] = 48 + n;
      return this;
    }
    let digits = 1;
    for (let t = n; t >= 10; t = Math.floor(t / 10)) digits++;
    let p = this.pos + digits;
    this.pos = p;
    for (let t = n; digits > 0; digits--) {
      const q = Math.floor(t / 10);
      this.buf[--p] = 48 + (t - q * 10);
      t = q;
    }
    return this;
  }

  /** A fixed-point number given in units of 10^-scale (cents for scale 2). */
  fixed(units: number, scale: number): this {
    if (units < 0) {
      this.buf[this.pos++] = 45; // '-'
      units = -units;
    }
    if (scale === 0) return this.int(units);
    let div = 1;
    for (let i = 0; i < scale; i++) div *= 10;
    const whole = Math.floor(units / div);
    this.int(whole);
    this.buf[this.pos++] = 46; // '.'
    let frac = units - whole * div;
    for (let i = scale - 1; i >= 0; i--) {
      const q = Math.floor(frac / 10);
      this.buf[this.pos + i] = 48 + (frac - q * 10);
      frac = q;
    }
    this.pos += scale;
    return this;
  }

  /** Pre-encoded bytes (constants such as the load timestamp). */
  bytes(b: Buffer): this {
    const n = b.length;
    // A loop beats Buffer.copy's native-call overhead for the short constants used per row.
    if (n > 64) b.copy(this.buf, this.pos);
    else for (let i = 0; i < n; i++) this.buf[this.pos + i] = b[i]!;
    this.pos += n;
    return this;
  }

  time(): this {
    return this.bytes(this.loadTime);
  }

  zip(rng: Rng): this {
    return this.digits(rng, 4).bytes(ZIP_SUFFIX);
  }

  /** ASCII text. */
  text(s: string): this {
    this.pos += this.buf.write(s, this.pos, 'latin1');
    return this;
  }

  /** An a-string [min..max] from the alphanumeric pool. */
  alnum(rng: Rng, min: number, max: number): this {
    this.pos = this.pool('alnum').write(rng, this.buf, this.pos, min === max ? min : rng.int(min, max));
    return this;
  }

  /** An n-string of `len` digits from the digit pool. */
  digits(rng: Rng, len: number): this {
    this.pos = this.pool('digits').write(rng, this.buf, this.pos, len);
    return this;
  }

  /** An a-string [min..max] with ORIGINAL at a random position when asked (I_DATA, S_DATA). */
  dataString(rng: Rng, min: number, max: number, original: boolean): this {
    const len = rng.int(min, max);
    const start = this.pos;
    this.pos = this.pool('alnum').write(rng, this.buf, start, len);
    if (original) ORIGINAL_BYTES.copy(this.buf, start + rng.int(0, len - ORIGINAL_BYTES.length));
    return this;
  }

  /** Random characters of `alphabet`, one draw each (for short strings outside the pools). */
  random(rng: Rng, min: number, max: number, alphabet: Buffer): this {
    const len = min === max ? min : rng.int(min, max);
    this.pos = fillRandom(rng, this.buf, this.pos, len, alphabet);
    return this;
  }

  private pool(kind: keyof LoadPools): CharPool {
    const pool = this.pools?.[kind];
    if (pool === undefined) throw new Error(`CopyBuffer was made without a ${kind} pool`);
    return pool;
  }

  null(): this {
    this.buf[this.pos++] = 92; // '\'
    this.buf[this.pos++] = 78; // 'N'
    return this;
  }

  tab(): this {
    this.buf[this.pos++] = 9;
    return this;
  }

  endRow(): void {
    this.buf[this.pos++] = 10;
    this.rows++;
  }
}

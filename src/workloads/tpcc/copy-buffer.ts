import { ALNUM, fillRandom, writeDataString, type Rng } from './random.js';

/**
 * Builds PostgreSQL COPY text rows directly into a byte buffer: no per-row strings or arrays,
 * because generation competes with the server for the same cores during a load.
 * Every value txbench generates is plain ASCII without tabs, newlines or backslashes, so nothing
 * needs escaping.
 */
export class CopyBuffer {
  private buf: Buffer;
  private pos = 0;
  rows = 0;

  constructor(private readonly chunkBytes = 256 * 1024) {
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

  /** A fixed-point number given in units of 10^-scale (cents for scale 2), non-negative. */
  fixed(units: number, scale: number): this {
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
    b.copy(this.buf, this.pos);
    this.pos += b.length;
    return this;
  }

  /** ASCII text. */
  text(s: string): this {
    this.pos += this.buf.write(s, this.pos, 'latin1');
    return this;
  }

  /** Random characters of `alphabet`, with a length uniform in [min..max]. */
  random(rng: Rng, min: number, max: number, alphabet: Buffer = ALNUM): this {
    const len = min === max ? min : rng.int(min, max);
    this.pos = fillRandom(rng, this.buf, this.pos, len, alphabet);
    return this;
  }

  /** An a-string [min..max] that contains ORIGINAL when asked (I_DATA, S_DATA). */
  dataString(rng: Rng, min: number, max: number, original: boolean): this {
    this.pos = writeDataString(rng, this.buf, this.pos, min, max, original);
    return this;
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

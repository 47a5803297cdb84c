/**
 * PostgreSQL's binary COPY format (the COPY reference, "Binary Format"), written by the loader's
 * generators through the same calls as the text format. The server reads binary integers,
 * numerics and timestamps without parsing digits: measured by hand on this project's rows,
 * order_line's COPY took 20–30% less server time in binary than in text (docs/PERFORMANCE.md),
 * and on two cores the server's time is the load's.
 *
 * Each row is a 16-bit field count, then each field as a 32-bit length (-1 for NULL) and its
 * bytes: int4 big-endian; numeric as base-10000 digits with weight, sign and display scale;
 * timestamp as 64-bit microseconds since 2000-01-01 (integer datetimes, every PostgreSQL since
 * 10); text as its bytes. The stream's header and trailer are the bulk loader's to add
 * (dialects/postgres/bulk.ts), so chunks hold whole rows only.
 */
import type { Rng } from '../../random/rng.js';
import type { LoadPools, RowBuffer } from './copy-buffer.js';
import { fillRandom, type CharPool } from './random.js';

const ORIGINAL_BYTES = Buffer.from('ORIGINAL', 'latin1');
const ZIP_SUFFIX = Buffer.from('11111', 'latin1');
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);
/** The high byte of numeric's sign word for a negative value (0x4000). */
const NUMERIC_NEGATIVE_HIGH_BYTE = 0x40;
const POWERS_OF_TEN: readonly number[] = [1, 10, 100, 1000, 10_000];
/** 10^(4 - scale): a fraction of `scale` decimals as one base-10000 digit. */
const FRACTION_TO_DIGIT: readonly number[] = [10_000, 1000, 100, 10, 1];

/** A `YYYY-MM-DD HH:MM:SS.mmm` wall-clock time as a binary timestamp field (length and value). */
export function binaryTimestamp(wallClock: string): Buffer {
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?$/.exec(wallClock);
  if (m === null) throw new Error(`not a load time: ${wallClock}`);
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  const millis = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, Number.isNaN(ms) ? 0 : ms!) - POSTGRES_EPOCH_MS;
  const field = Buffer.alloc(12);
  field.writeInt32BE(8, 0);
  field.writeBigInt64BE(BigInt(millis) * 1000n, 4);
  return field;
}

export class BinaryCopyBuffer implements RowBuffer {
  private buf: Buffer;
  /** Where the row being written starts: its field count goes there at `endRow`. */
  private rowStart = 0;
  private pos = 2;
  private fields = 0;
  rows = 0;
  private readonly loadTime: Buffer;

  constructor(
    private readonly chunkBytes = 256 * 1024,
    private readonly pools?: LoadPools,
    loadTime?: string,
  ) {
    this.buf = Buffer.allocUnsafe(chunkBytes + 4096);
    this.loadTime = loadTime === undefined ? Buffer.alloc(0) : binaryTimestamp(loadTime);
  }

  get full(): boolean {
    return this.pos >= this.chunkBytes;
  }

  get length(): number {
    return this.rowStart;
  }

  take(): Buffer {
    const out = this.buf.subarray(0, this.rowStart);
    this.buf = Buffer.allocUnsafe(this.chunkBytes + 4096);
    this.rowStart = 0;
    this.pos = 2;
    this.rows = 0;
    return out;
  }

  int(n: number): this {
    const { buf } = this;
    const p = this.pos;
    // Byte by byte: Buffer.writeInt32BE's bounds checks cost more than the write on this path.
    buf[p] = 0;
    buf[p + 1] = 0;
    buf[p + 2] = 0;
    buf[p + 3] = 4;
    buf[p + 4] = n >>> 24;
    buf[p + 5] = (n >>> 16) & 255;
    buf[p + 6] = (n >>> 8) & 255;
    buf[p + 7] = n & 255;
    this.pos = p + 8;
    this.fields++;
    return this;
  }

  /**
   * Up to three base-10000 digits before the point (values under 10^12, far above TPC-C's
   * 12-digit money columns' use here) and one after it (scale up to 4).
   */
  fixed(units: number, scale: number): this {
    if (scale > 4) throw new Error(`numeric scale ${scale} is more than the loader writes (4)`);
    const negative = units < 0;
    const abs = negative ? -units : units;
    const div = POWERS_OF_TEN[scale]!;
    const whole = Math.floor(abs / div);
    if (whole >= 1e12) throw new Error(`numeric ${units}e-${scale} is beyond what the loader writes`);
    const fraction = (abs - whole * div) * FRACTION_TO_DIGIT[scale]!;
    const high = Math.floor(whole / 1e8);
    const middle = Math.floor(whole / 10_000) - high * 10_000;
    const low = whole - Math.floor(whole / 10_000) * 10_000;
    // Leading zero digits are left out (weight says where the first one is), trailing ones too.
    let first: number;
    let weight: number;
    if (high > 0) {
      first = 0;
      weight = 2;
    } else if (middle > 0) {
      first = 1;
      weight = 1;
    } else if (low > 0) {
      first = 2;
      weight = 0;
    } else {
      first = 3;
      weight = -1;
    }
    let last: number;
    if (fraction !== 0) last = 3;
    else if (low !== 0) last = 2;
    else if (middle !== 0) last = 1;
    else if (high !== 0) last = 0;
    else last = -1;
    const n = last < first ? 0 : last - first + 1;
    if (n === 0) weight = 0;
    const { buf } = this;
    let p = this.pos;
    buf.writeInt32BE(8 + 2 * n, p);
    buf[p + 4] = 0;
    buf[p + 5] = n;
    buf.writeInt16BE(weight, p + 6);
    buf[p + 8] = negative && n > 0 ? NUMERIC_NEGATIVE_HIGH_BYTE : 0;
    buf[p + 9] = 0;
    buf[p + 10] = 0;
    buf[p + 11] = scale;
    p += 12;
    for (let i = first; i <= last; i++) {
      const d = i === 0 ? high : i === 1 ? middle : i === 2 ? low : fraction;
      buf[p] = d >>> 8;
      buf[p + 1] = d & 255;
      p += 2;
    }
    this.pos = p;
    this.fields++;
    return this;
  }

  time(): this {
    this.loadTime.copy(this.buf, this.pos);
    this.pos += this.loadTime.length;
    this.fields++;
    return this;
  }

  bytes(b: Buffer): this {
    const start = this.pos;
    const n = b.length;
    for (let i = 0; i < n; i++) this.buf[start + 4 + i] = b[i]!;
    return this.endText(start, start + 4 + n);
  }

  alnum(rng: Rng, min: number, max: number): this {
    const start = this.pos;
    const end = this.pool('alnum').write(rng, this.buf, start + 4, min === max ? min : rng.int(min, max));
    return this.endText(start, end);
  }

  digits(rng: Rng, len: number): this {
    const start = this.pos;
    return this.endText(start, this.pool('digits').write(rng, this.buf, start + 4, len));
  }

  zip(rng: Rng): this {
    const start = this.pos;
    const end = this.pool('digits').write(rng, this.buf, start + 4, 4);
    ZIP_SUFFIX.copy(this.buf, end);
    return this.endText(start, end + ZIP_SUFFIX.length);
  }

  dataString(rng: Rng, min: number, max: number, original: boolean): this {
    const len = rng.int(min, max);
    const start = this.pos;
    const end = this.pool('alnum').write(rng, this.buf, start + 4, len);
    if (original) ORIGINAL_BYTES.copy(this.buf, start + 4 + rng.int(0, len - ORIGINAL_BYTES.length));
    return this.endText(start, end);
  }

  random(rng: Rng, min: number, max: number, alphabet: Buffer): this {
    const len = min === max ? min : rng.int(min, max);
    const start = this.pos;
    return this.endText(start, fillRandom(rng, this.buf, start + 4, len, alphabet));
  }

  null(): this {
    const { buf } = this;
    const p = this.pos;
    buf[p] = 255;
    buf[p + 1] = 255;
    buf[p + 2] = 255;
    buf[p + 3] = 255;
    this.pos = p + 4;
    this.fields++;
    return this;
  }

  tab(): this {
    return this;
  }

  endRow(): void {
    this.buf[this.rowStart] = 0;
    this.buf[this.rowStart + 1] = this.fields;
    this.fields = 0;
    this.rowStart = this.pos;
    this.pos += 2;
    this.rows++;
  }

  /** A text field whose bytes were written after its length's 4 bytes at `start`, up to `end`. */
  private endText(start: number, end: number): this {
    const { buf } = this;
    const n = end - start - 4;
    buf[start] = 0;
    buf[start + 1] = n >>> 16;
    buf[start + 2] = (n >>> 8) & 255;
    buf[start + 3] = n & 255;
    this.pos = end;
    this.fields++;
    return this;
  }

  private pool(kind: keyof LoadPools): CharPool {
    const pool = this.pools?.[kind];
    if (pool === undefined) throw new Error(`BinaryCopyBuffer was made without a ${kind} pool`);
    return pool;
  }
}

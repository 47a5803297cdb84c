/**
 * The commands the callback route's hot path writes: COM_STMT_EXECUTE (for text values byte for
 * byte as mysql2 3.x writes it, its lib/packets/execute.js with values that are strings or NULL,
 * but for an integer or an integer's text, which goes as a LONG as sysbench's C driver sends it),
 * and COM_QUERY for the statements answered by an OK alone. binary-protocol.ts reads their answers.
 */
import type { ParamValue } from '../connections.js';
import { digitsOf, putInteger } from '../integer-text.js';

const COM_QUERY = 0x03;
const COM_STMT_EXECUTE = 0x17;
const PARAMETER_COUNT_AVAILABLE = 0x08;
const TYPE_NULL = 0x06;
const TYPE_LONG = 0x03;
const TYPE_LONGLONG = 0x08;
const TYPE_VAR_STRING = 0xfd;

function lengthCodedSize(n: number): number {
  // mysql2's Packet.lengthCodedNumberLength, 0xffff included in the 0xfd form.
  return n < 0xfb ? 1 : n < 0xffff ? 3 : n < 0xffffff ? 4 : 9;
}

function writeLengthCoded(buf: Buffer, at: number, n: number): number {
  if (n < 0xfb) {
    buf[at] = n;
    return at + 1;
  }
  if (n < 0xffff) {
    buf[at] = 0xfc;
    buf.writeUInt16LE(n, at + 1);
    return at + 3;
  }
  if (n < 0xffffff) {
    buf[at] = 0xfd;
    buf.writeUIntLE(n, at + 1, 3);
    return at + 4;
  }
  buf[at] = 0xfe;
  buf.writeUInt32LE(n >>> 0, at + 1);
  buf.writeUInt32LE(Math.floor(n / 0x100000000), at + 5);
  return at + 9;
}

/**
 * The value of `text` if it is an integer written as MySQL writes one (an optional minus sign,
 * no leading zero, no sign on zero) that fits a signed 32-bit LONG; else undefined.
 */
export function longOf(text: string): number | undefined {
  const n = text.length;
  if (n === 0 || n > 11) return undefined;
  let at = text.charCodeAt(0) === 0x2d ? 1 : 0;
  if (at === n) return undefined;
  const first = text.charCodeAt(at);
  if (first === 0x30) return n === 1 ? 0 : undefined;
  let value = 0;
  for (; at < n; at++) {
    const digit = text.charCodeAt(at) - 0x30;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
  }
  if (text.charCodeAt(0) === 0x2d) value = -value;
  return value >= -0x80000000 && value <= 0x7fffffff ? value : undefined;
}

/** The length of `text` if every character of it is ASCII (its UTF-8 is then its characters), else -1. */
function asciiLength(text: string): number {
  const n = text.length;
  for (let i = 0; i < n; i++) if (text.charCodeAt(i) > 0x7f) return -1;
  return n;
}

const TWO_32 = 0x100000000;

/**
 * Writes the low 32 bits of integer `n` (signed or not) little-endian at `at` and returns where
 * they end: byte stores, which cost less than a call of Buffer's write methods.
 */
function putInt32(buf: Buffer, at: number, n: number): number {
  buf[at] = n & 0xff;
  buf[at + 1] = (n >>> 8) & 0xff;
  buf[at + 2] = (n >>> 16) & 0xff;
  buf[at + 3] = (n >>> 24) & 0xff;
  return at + 4;
}

/**
 * A connection's COM_STMT_EXECUTE writer: each command written in one pass into one scratch
 * buffer, reused by every command, and handed out as a view of it, valid until the next one is
 * begun. The socket usually writes it at once; when it does not, the connection calls `handOver`
 * and the next command goes in a new scratch (as the PostgreSQL wire path's MessageEncoder does).
 * One per connection, so that connections share nothing.
 */
export class ExecuteWriter {
  private scratch = Buffer.allocUnsafe(1024);

  /**
   * COM_STMT_EXECUTE of statement `id` with `values` bound as sysbench's C driver binds them: an
   * integer as a LONG (a safe integer outside 32 bits as a LONGLONG), an integer's text (longOf)
   * as a LONG too, other text as VAR_STRING (another number as its `String`, a list of numbers as
   * their comma-separated text, `1,2,3`, written with no string made), NULL in the bitmap;
   * header included (sequence 0). A LONG spares the server converting the text for every row it
   * compares (a range's 100 rows: `id BETWEEN '5' AND '104'` reads each bound as a double, each
   * time), and gives the same answer wherever the value meets a number or is stored; a string
   * column compared with an integer is compared as numbers instead (no statement of txbench's
   * does that). `queryAttributes`: the connection negotiated CLIENT_QUERY_ATTRIBUTES (MySQL 8),
   * which adds the parameter count and an empty name per value.
   */
  execute(id: number, values: readonly ParamValue[], queryAttributes: boolean): Buffer {
    const n = values.length;
    const bitmapAt = 14 + (queryAttributes ? lengthCodedSize(n) : 0);
    const typesAt = bitmapAt + ((n + 7) >> 3) + 1;
    const typeWidth = queryAttributes ? 3 : 2;
    let at = n === 0 ? bitmapAt : typesAt + n * typeWidth;
    this.ensure(at, 0);
    let buf = this.scratch;
    buf[3] = 0;
    buf[4] = COM_STMT_EXECUTE;
    putInt32(buf, 5, id);
    buf[9] = queryAttributes ? PARAMETER_COUNT_AVAILABLE : 0;
    putInt32(buf, 10, 1); // iteration count
    if (queryAttributes) writeLengthCoded(buf, 14, n);
    if (n > 0) {
      // A loop: Buffer's fill goes through the runtime, which costs more for these few bytes.
      for (let b = bitmapAt; b < typesAt - 1; b++) buf[b] = 0;
      buf[typesAt - 1] = 1; // new-params-bound
    }
    for (let i = 0; i < n; i++) {
      const v = values[i];
      let type: number;
      if (v === null || v === undefined) {
        buf[bitmapAt + (i >> 3)] = buf[bitmapAt + (i >> 3)]! | (1 << (i & 7));
        type = TYPE_NULL;
      } else if (typeof v === 'number') {
        if (Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff) {
          this.ensure(at, 4);
          buf = this.scratch;
          at = putInt32(buf, at, v);
          type = TYPE_LONG;
        } else if (Number.isSafeInteger(v)) {
          this.ensure(at, 8);
          buf = this.scratch;
          const high = Math.floor(v / TWO_32);
          at = putInt32(buf, putInt32(buf, at, v - high * TWO_32), high);
          type = TYPE_LONGLONG;
        } else {
          at = this.putText(String(v), at);
          buf = this.scratch;
          type = TYPE_VAR_STRING;
        }
      } else if (typeof v === 'object') {
        at = this.putList(v, at);
        buf = this.scratch;
        type = TYPE_VAR_STRING;
      } else {
        const long = longOf(v);
        if (long !== undefined) {
          this.ensure(at, 4);
          buf = this.scratch;
          at = putInt32(buf, at, long);
          type = TYPE_LONG;
        } else {
          at = this.putText(v, at);
          buf = this.scratch;
          type = TYPE_VAR_STRING;
        }
      }
      const t = typesAt + i * typeWidth;
      buf[t] = type;
      buf[t + 1] = 0; // signed
      if (queryAttributes) buf[t + 2] = 0; // an empty name
    }
    const length = at - 4;
    buf[0] = length & 0xff;
    buf[1] = (length >>> 8) & 0xff;
    buf[2] = (length >>> 16) & 0xff;
    return buf.subarray(0, at);
  }

  /** Leaves the scratch to the socket that holds the last command: the next goes in a new one. */
  handOver(): void {
    this.scratch = Buffer.allocUnsafe(this.scratch.length);
  }

  /**
   * Writes `text` length-coded at `at` and returns where it ends: ASCII a character at a time,
   * with no call into Buffer's native code.
   */
  private putText(text: string, at: number): number {
    const ascii = asciiLength(text);
    const size = ascii >= 0 ? ascii : Buffer.byteLength(text, 'utf8');
    this.ensure(at, 9 + size);
    const buf = this.scratch;
    let end = writeLengthCoded(buf, at, size);
    if (ascii < 0) return end + buf.write(text, end, 'utf8');
    for (let k = 0; k < size; k++) buf[end++] = text.charCodeAt(k);
    return end;
  }

  /** Writes a list of numbers length-coded at `at` as `list.join(',')` and returns where it ends. */
  private putList(list: readonly number[], at: number): number {
    const n = list.length;
    let size = n > 0 ? n - 1 : 0;
    for (let i = 0; i < n; i++) {
      const v = list[i]!;
      if (!Number.isSafeInteger(v)) return this.putText(list.join(','), at);
      size += digitsOf(v);
    }
    this.ensure(at, 9 + size);
    const buf = this.scratch;
    let end = writeLengthCoded(buf, at, size);
    for (let i = 0; i < n; i++) {
      if (i > 0) buf[end++] = 0x2c; // ','
      end = putInteger(buf, end, list[i]!);
    }
    return end;
  }

  /** Room for `bytes` more after the first `used` bytes, which a bigger scratch keeps. */
  private ensure(used: number, bytes: number): void {
    if (used + bytes <= this.scratch.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.scratch.length * 2, used + bytes));
    this.scratch.copy(bigger, 0, 0, used);
    this.scratch = bigger;
  }
}

/** ExecuteWriter's command in a buffer of its own. */
export function executePacket(id: number, values: readonly ParamValue[], queryAttributes: boolean): Buffer {
  return new ExecuteWriter().execute(id, values, queryAttributes);
}

/** BEGIN, COMMIT and ROLLBACK as a script writes them: statements the server answers with an OK (or an ERR) only. */
const TRANSACTION_CONTROL = /^\s*(?:begin|commit|rollback)\s*;?\s*$/i;

/** Whether `sql` is a statement whose answer is an OK or an ERR packet, never rows. */
export function answersOkOnly(sql: string): boolean {
  return TRANSACTION_CONTROL.test(sql);
}

/**
 * COM_QUERY of `sql` (ASCII: answersOkOnly's statements), header included (sequence 0), byte for
 * byte as mysql2 3.x writes it (its lib/packets/query.js, no query attributes set).
 * `queryAttributes`: as for executePacket, it adds a parameter count of 0 and a set count of 1.
 */
export function queryPacket(sql: string, queryAttributes: boolean): Buffer {
  const header = queryAttributes ? 7 : 5;
  const length = header + sql.length;
  const buf = Buffer.allocUnsafe(length);
  buf.writeUIntLE(length - 4, 0, 3);
  buf[3] = 0;
  buf[4] = COM_QUERY;
  if (queryAttributes) {
    buf[5] = 0;
    buf[6] = 1;
  }
  buf.write(sql, header, 'latin1');
  return buf;
}

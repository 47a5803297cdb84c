/**
 * The commands the callback route's hot path writes: COM_STMT_EXECUTE for text values (byte for
 * byte as mysql2 3.x writes it, its lib/packets/execute.js with values that are strings or NULL,
 * but for an integer's text, which goes as a LONG as sysbench's C driver sends it), and COM_QUERY
 * for the statements answered by an OK alone. binary-protocol.ts reads their answers.
 */
import type { TextValue } from '../connections.js';

const COM_QUERY = 0x03;
const COM_STMT_EXECUTE = 0x17;
const PARAMETER_COUNT_AVAILABLE = 0x08;
const TYPE_NULL = 0x06;
const TYPE_LONG = 0x03;
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

/**
 * COM_STMT_EXECUTE of statement `id` with `values` bound as sysbench's C driver binds them: an
 * integer's text (longOf) as a LONG, other text as VAR_STRING, NULL in the bitmap; header
 * included (sequence 0). A LONG spares the server converting the text for every row it compares
 * (a range's 100 rows: `id BETWEEN '5' AND '104'` reads each bound as a double, each time), and
 * gives the same answer wherever the value meets a number or is stored; a string column compared
 * with an integer's text is compared as numbers instead (no statement of txbench's does that).
 * `queryAttributes`: the connection negotiated CLIENT_QUERY_ATTRIBUTES (MySQL 8), which adds the
 * parameter count and an empty name per value.
 */
export function executePacket(id: number, values: readonly TextValue[], queryAttributes: boolean): Buffer {
  const n = values.length;
  /** A text's UTF-8 size, or for ASCII text -1 - its size: written a character at a time, with no call into Buffer's native code. */
  const sizes = new Array<number>(n);
  const longs = new Array<number | undefined>(n);
  let length = 14 + (queryAttributes ? lengthCodedSize(n) : 0);
  if (n > 0) length += ((n + 7) >> 3) + 1 + n * 2 + (queryAttributes ? n : 0);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const long = longOf(v);
    if (long !== undefined) {
      longs[i] = long;
      length += 4;
      continue;
    }
    const ascii = asciiLength(v);
    const size = ascii >= 0 ? ascii : Buffer.byteLength(v, 'utf8');
    sizes[i] = ascii >= 0 ? -size - 1 : size;
    length += lengthCodedSize(size) + size;
  }
  const buf = Buffer.allocUnsafe(length);
  buf.writeUIntLE(length - 4, 0, 3);
  buf[3] = 0;
  buf[4] = COM_STMT_EXECUTE;
  buf.writeUInt32LE(id, 5);
  buf[9] = queryAttributes ? PARAMETER_COUNT_AVAILABLE : 0;
  buf.writeUInt32LE(1, 10);
  let at = 14;
  if (queryAttributes) at = writeLengthCoded(buf, at, n);
  if (n === 0) return buf;
  for (let byte = 0; byte < (n + 7) >> 3; byte++) {
    let bits = 0;
    for (let b = 0; b < 8 && byte * 8 + b < n; b++) if (values[byte * 8 + b] === null) bits |= 1 << b;
    buf[at++] = bits;
  }
  buf[at++] = 1; // new-params-bound
  for (let i = 0; i < n; i++) {
    buf[at++] = values[i] === null ? TYPE_NULL : longs[i] !== undefined ? TYPE_LONG : TYPE_VAR_STRING;
    buf[at++] = 0; // signed
    if (queryAttributes) buf[at++] = 0;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null || v === undefined) continue;
    const long = longs[i];
    if (long !== undefined) at = buf.writeInt32LE(long, at);
    else {
      const size = sizes[i]!;
      if (size >= 0) {
        at = writeLengthCoded(buf, at, size);
        at += buf.write(v, at, 'utf8');
      } else {
        at = writeLengthCoded(buf, at, -size - 1);
        for (let k = 0; k < v.length; k++) buf[at++] = v.charCodeAt(k);
      }
    }
  }
  return buf;
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

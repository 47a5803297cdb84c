/**
 * The binary protocol's prepared-statement path, for the callback route's hot path: a reader of
 * the answer to a command of command-packets.ts (an OK, an ERR, one result set, or a CALL's
 * several sets ending in an OK) that decodes binary rows
 * straight to the text mysql2's objects turn into under connect.ts's options (dateStrings,
 * supportBigNumbers, DECIMAL as a string).
 */
import type { TextResult, TextRows, TextValue } from '../connections.js';

const SERVER_MORE_RESULTS_EXISTS = 0x08;
const UNSIGNED_FLAG = 0x20;
const MAX_PAYLOAD = 0xffffff;

/** MySQL column types (mysql2's constants/types.js). */
const T = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  VARCHAR: 15,
  BIT: 16,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
} as const;

/** Types this reader decodes as mysql2 does; JSON, GEOMETRY, VECTOR and the like are not among them. */
const DECODED: ReadonlySet<number> = new Set<number>(Object.values(T));

/** A column as mysql2's ColumnDefinition describes it (the prepared handle's `columns`). */
export interface ColumnShape {
  readonly columnType: number;
  readonly extendedFormat?: string | undefined;
}

/** Whether every column of a statement's answer is one this reader gives the same text for as mysql2. */
export function decodesAll(columns: readonly ColumnShape[] | undefined): boolean {
  return (columns ?? []).every((c) => DECODED.has(c.columnType) && c.extendedFormat === undefined);
}

/** What the reader needs of the connection: how its columns' character sets decode, and its errors' names. */
export interface AnswerContext {
  /** MariaDB's extended column metadata was negotiated (a block more in each column definition). */
  readonly extendedMetadata: boolean;
  /** Whether mysql2 decodes a column in `charset` (a collation number) as UTF-8 (or as bytes, then UTF-8). */
  isUtf8(charset: number): boolean;
  /** Decodes bytes of a column in `charset` as mysql2 does. */
  decode(buf: Buffer, start: number, end: number, charset: number): string;
  /** mysql2's error code name for a server error number. */
  errorName(errno: number): string | undefined;
}

/** A server error as mysql2 builds it from an ERR packet (message, code, errno, sqlState, sqlMessage). */
export interface ServerError extends Error {
  code?: string | undefined;
  errno: number;
  sqlState: string;
  sqlMessage: string;
}

interface Column {
  readonly type: number;
  readonly unsigned: boolean;
  readonly decimals: number;
  readonly charset: number;
  readonly utf8: boolean;
}

/** Node's Buffer.prototype.utf8Slice (mysql2 uses it too): toString('utf8') without its checks. */
type Slicing = Buffer & { utf8Slice?(start: number, end: number): string };

type State = 'first' | 'columns' | 'columnsEof' | 'rows';

const NO_ROWS: readonly (readonly TextValue[])[] = [];
const EMPTY_ROW: readonly TextValue[] = [];

/**
 * Reads statements' answers from the bytes the server sends, cut anywhere: one answer after each
 * `start`, so that a connection keeps one reader. `feed` returns -1 while the answer goes on, else
 * how many bytes of that chunk it took: the rest is someone else's. It keeps no reference to a
 * chunk it was fed (the socket's read buffer, overwritten by the next read): what it needs of a
 * packet not yet whole it copies.
 */
export class AnswerReader {
  result: TextResult | undefined;
  error: ServerError | undefined;
  private countOnly = false;
  private state: State = 'first';
  /** The start of a packet not yet whole, in the chunks it came in (joined once it is whole). */
  private partial: Buffer[] = [];
  private partialLength = 0;
  private parts: Buffer[] = [];
  private columns: Column[] = [];
  private columnCount = 0;
  private columnsRead = 0;
  private rows: (readonly TextValue[])[] = [];
  private results: (TextRows | number)[] = [];

  constructor(private readonly context: AnswerContext) {}

  /** Readies the reader for the next answer; `countOnly`: its rows are counted, not decoded. */
  start(countOnly: boolean): void {
    this.countOnly = countOnly;
    this.result = undefined;
    this.error = undefined;
    this.state = 'first';
    this.partial = [];
    this.partialLength = 0;
    this.parts = [];
    // A new array only when the last answer used it: truncating one calls into the runtime.
    if (this.results.length > 0) this.results = [];
  }

  /** Takes `chunk[0, end)`. */
  feed(chunk: Buffer, end = chunk.length): number {
    let data = chunk;
    let dataEnd = end;
    let carried = 0;
    if (this.partialLength > 0) {
      this.partial.push(Buffer.from(chunk.subarray(0, end)));
      this.partialLength += end;
      if (this.partialLength < this.partialNeeds()) return -1;
      carried = this.partialLength - end;
      data = Buffer.concat(this.partial, this.partialLength);
      dataEnd = data.length;
      this.partial = [];
      this.partialLength = 0;
    }
    let at = 0;
    while (dataEnd - at >= 4) {
      // Byte loads: a packet's length is read for every packet, and readUIntLE is a call chain.
      const length = data[at]! | (data[at + 1]! << 8) | (data[at + 2]! << 16);
      if (dataEnd - at - 4 < length) break;
      const start = at + 4;
      at = start + length;
      if (length === MAX_PAYLOAD) {
        this.parts.push(Buffer.from(data.subarray(start, at)));
        continue;
      }
      let ended: boolean;
      if (this.parts.length === 0) ended = this.packet(data, start, at);
      else {
        const whole = Buffer.concat([...this.parts, data.subarray(start, at)]);
        this.parts = [];
        ended = this.packet(whole, 0, whole.length);
      }
      if (ended) return at - carried;
    }
    if (at < dataEnd) {
      this.partial.push(Buffer.from(data.subarray(at, dataEnd)));
      this.partialLength = dataEnd - at;
    }
    return -1;
  }

  /** How many bytes the partial packet needs to be whole, its header included. */
  private partialNeeds(): number {
    if (this.partialLength < 4) return 4;
    if (this.partial[0]!.length < 4) this.partial = [Buffer.concat(this.partial, this.partialLength)];
    return 4 + this.partial[0]!.readUIntLE(0, 3);
  }

  /** Takes one packet's payload `buf[start, end)`; true when it ended the answer. */
  private packet(buf: Buffer, start: number, end: number): boolean {
    const first = buf[start]!;
    if (first === 0xff) {
      this.error = serverError(buf, start, end, this.context);
      return true;
    }
    switch (this.state) {
      case 'rows':
        if (first === 0xfe && end - start < 9) return this.resultEnded(uint16(buf, start + 3));
        this.rows.push(this.countOnly ? EMPTY_ROW : this.row(buf, start));
        return false;
      case 'first': {
        if (first === 0x00) {
          const c = { pos: start + 1 };
          const affected = lengthCoded(buf, c);
          lengthCoded(buf, c); // insert id
          this.results.push(affected);
          return this.resultEnded(uint16(buf, c.pos));
        }
        const c = { pos: start };
        this.columnCount = lengthCoded(buf, c);
        this.columnsRead = 0;
        this.columns = [];
        this.state = 'columns';
        return false;
      }
      case 'columns':
        // Counted rows are not decoded, so neither are the columns that would decode them.
        if (!this.countOnly) this.columns.push(this.column(buf, start));
        if (++this.columnsRead === this.columnCount) this.state = 'columnsEof';
        return false;
      case 'columnsEof':
        this.rows = [];
        this.state = 'rows';
        return false;
    }
  }

  private resultEnded(status: number): boolean {
    if (this.state === 'rows') this.results.push(this.rows);
    this.state = 'first';
    if ((status & SERVER_MORE_RESULTS_EXISTS) !== 0) return false;
    this.result = this.answer();
    return true;
  }

  /** The answer as callback-route.ts's textResult makes it of mysql2's. */
  private answer(): TextResult {
    const results = this.results;
    if (results.length === 1) {
      const only = results[0]!;
      return typeof only === 'number'
        ? { rows: NO_ROWS, tag: `OK ${only}` }
        : { rows: only, tag: `SELECT ${only.length}` };
    }
    const sets = results.filter((r): r is TextRows => typeof r !== 'number');
    const rows = sets[0] ?? NO_ROWS;
    return { rows, tag: `SELECT ${rows.length}`, sets };
  }

  private column(buf: Buffer, start: number): Column {
    const c = { pos: start };
    // catalog, schema, table, org table, name, org name
    for (let i = 0; i < 6; i++) {
      const size = lengthCoded(buf, c);
      c.pos += size;
    }
    let json = false;
    if (this.context.extendedMetadata) {
      const size = lengthCoded(buf, c);
      const blockEnd = c.pos + size;
      while (c.pos < blockEnd) {
        const id = buf[c.pos++]!;
        const size = lengthCoded(buf, c);
        if (id === 1 && buf.toString('latin1', c.pos, c.pos + size) === 'json') json = true;
        c.pos += size;
      }
      c.pos = blockEnd;
    }
    const at = c.pos + 1; // the fixed fields' length byte (0x0c)
    const type = buf[at + 6]!;
    return {
      // A type this reader does not know (or MariaDB's JSON) goes out as its bytes' text.
      type: json || !DECODED.has(type) ? T.VAR_STRING : type,
      charset: buf.readUInt16LE(at),
      utf8: this.context.isUtf8(buf.readUInt16LE(at)),
      unsigned: (buf.readUInt16LE(at + 7) & UNSIGNED_FLAG) !== 0,
      decimals: buf[at + 9]!,
    };
  }

  private row(buf: Buffer, start: number): TextValue[] {
    const columns = this.columns;
    const n = columns.length;
    const nullsAt = start + 1;
    const c = { pos: nullsAt + ((n + 9) >> 3) };
    const out = new Array<TextValue>(n);
    for (let i = 0; i < n; i++) {
      const bit = i + 2;
      if ((buf[nullsAt + (bit >> 3)]! & (1 << (bit & 7))) !== 0) out[i] = null;
      else out[i] = this.value(buf, c, columns[i]!);
    }
    return out;
  }

  private value(buf: Buffer, c: { pos: number }, col: Column): string {
    const at = c.pos;
    switch (col.type) {
      case T.TINY:
        c.pos += 1;
        return String(col.unsigned ? buf.readUInt8(at) : buf.readInt8(at));
      case T.SHORT:
        c.pos += 2;
        return String(col.unsigned ? buf.readUInt16LE(at) : buf.readInt16LE(at));
      case T.YEAR:
        c.pos += 2;
        return String(buf.readUInt16LE(at));
      case T.LONG:
      case T.INT24:
        c.pos += 4;
        return String(col.unsigned ? buf.readUInt32LE(at) : buf.readInt32LE(at));
      case T.LONGLONG:
        c.pos += 8;
        return (col.unsigned ? buf.readBigUInt64LE(at) : buf.readBigInt64LE(at)).toString();
      case T.FLOAT:
        c.pos += 4;
        return String(buf.readFloatLE(at));
      case T.DOUBLE:
        c.pos += 8;
        return String(buf.readDoubleLE(at));
      case T.DATE:
      case T.DATETIME:
      case T.TIMESTAMP:
      case T.NEWDATE:
        return dateTimeText(buf, c, col);
      case T.TIME:
        return timeText(buf, c);
      default: {
        const size = lengthCoded(buf, c);
        c.pos += size;
        const b = buf as Slicing;
        if (!col.utf8) return this.context.decode(buf, c.pos - size, c.pos, col.charset);
        return b.utf8Slice ? b.utf8Slice(c.pos - size, c.pos) : buf.toString('utf8', c.pos - size, c.pos);
      }
    }
  }
}

/** The little-endian 16 bits at `at` (an OK's or EOF's status flags). */
const uint16 = (buf: Buffer, at: number): number => buf[at]! | (buf[at + 1]! << 8);

/** A length-coded integer at `c.pos` (moved past it); NULL (0xfb) reads as 0. */
function lengthCoded(buf: Buffer, c: { pos: number }): number {
  const first = buf[c.pos++]!;
  if (first < 0xfb) return first;
  if (first === 0xfb) return 0;
  const size = first === 0xfc ? 2 : first === 0xfd ? 3 : 8;
  const at = c.pos;
  c.pos += size;
  return size === 8 ? Number(buf.readBigUInt64LE(at)) : buf.readUIntLE(at, size);
}

const pad = (width: number, n: number): string => String(n).padStart(width, '0');

/** mysql2's Packet.readDateTimeString(decimals, ' ', type), the text of DATE, DATETIME and TIMESTAMP. */
function dateTimeText(buf: Buffer, c: { pos: number }, col: Column): string {
  const at = c.pos;
  const length = buf[at]!;
  c.pos += 1 + length;
  let text = '0000-00-00';
  if (length > 3)
    text = `${pad(4, buf.readUInt16LE(at + 1))}-${pad(2, buf[at + 3]!)}-${pad(2, buf[at + 4]!)}`;
  if (length > 6) text += ` ${pad(2, buf[at + 5]!)}:${pad(2, buf[at + 6]!)}:${pad(2, buf[at + 7]!)}`;
  else if (col.type === T.DATETIME || col.type === T.TIMESTAMP) text += ' 00:00:00';
  if (length > 10) {
    const micros = buf.readUInt32LE(at + 8);
    text += '.' + (col.decimals ? pad(6, micros).substring(0, col.decimals) : String(micros));
  }
  return text;
}

/** mysql2's Packet.readTimeString(), the text of TIME ([-]hh:mm:ss[.fraction], hours past 24). */
function timeText(buf: Buffer, c: { pos: number }): string {
  const at = c.pos;
  const length = buf[at]!;
  c.pos += 1 + length;
  if (length === 0) return '00:00:00';
  const negative = buf[at + 1] !== 0;
  let days = 0;
  let h = 0;
  let m = 0;
  let s = 0;
  let micros = 0;
  if (length > 6) {
    days = buf.readUInt32LE(at + 2);
    h = buf[at + 6]!;
    m = buf[at + 7]!;
    s = buf[at + 8]!;
  }
  if (length > 10) micros = buf.readUInt32LE(at + 9);
  const fraction = micros ? `.${pad(6, micros)}`.replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${pad(2, days * 24 + h)}:${pad(2, m)}:${pad(2, s)}${fraction}`;
}

/** mysql2's Packet.asError (its Execute of a prepared handle adds no SQL to it). */
function serverError(buf: Buffer, start: number, end: number, context: AnswerContext): ServerError {
  const errno = buf.readUInt16LE(start + 1);
  let at = start + 3;
  let sqlState = '';
  if (buf[at] === 0x23) {
    sqlState = buf.toString('latin1', at + 1, at + 6);
    at += 6;
  }
  const message = buf.toString('utf8', at, end);
  const err = new Error(message) as ServerError;
  err.code = context.errorName(errno);
  err.errno = errno;
  err.sqlState = sqlState;
  err.sqlMessage = message;
  return err;
}

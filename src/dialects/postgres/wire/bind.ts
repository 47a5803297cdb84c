/**
 * The bytes of a call on the hot path: Bind (unnamed portal, text parameters, text results) and
 * Execute for each statement, then one Sync, written in one pass into a connection's scratch buffer
 * and handed to the socket from there. pg-protocol's serializer builds each Bind in its own buffer (a byte-length scan and a
 * native write per parameter), and joining them with Execute and Sync costs one more copy; the
 * parameters here are short and almost always ASCII (numbers, names, array literals), which a
 * plain loop writes faster than a native call (docs/PERFORMANCE.md). Anything else goes through
 * `Buffer.write`, so every string is sent as UTF-8 as before.
 */
import { serialize } from 'pg-protocol';
import { putInteger } from '../../integer-text.js';

/**
 * A parameter as it is sent: its text, or null; or a number or an array of numbers, written as
 * `String(n)` and an array literal (`{1,2,3}`) would be, without making those strings first (the
 * procedure calls' ids, counts and item lists are numbers, and a string per parameter per call
 * was a measurable share of the client's CPU).
 */
export type WireParameter = string | null | number | readonly number[];

/** A pipeline's statement, as connection.ts's PipelineCall (structurally: importing it would be a cycle). */
type Call =
  | { readonly statement: { readonly name: string }; readonly values: readonly WireParameter[] }
  | { readonly text: string };

const EXECUTE: readonly number[] = [0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0]; // 'E', length 9, unnamed portal, no row limit
const SYNC: readonly number[] = [0x53, 0, 0, 0, 4]; // 'S', length 4

/** Parse, Bind and Execute of a statement without parameters, by its text (BEGIN, COMMIT…). */
const UNNAMED_CALLS_KEPT = 64;
const UNNAMED_BIND_EXECUTE = Buffer.concat([serialize.bind({}), serialize.execute()]);

/**
 * A connection's message writer: one scratch buffer, reused by every message, and memos of the
 * messages that are the same every time for a text (at most UNNAMED_CALLS_KEPT texts each). A
 * message is handed out as a view of the scratch, valid until the next one is begun: the socket
 * usually writes it at once, and when it does not, the connection calls `handOver` and the next
 * message goes in a new scratch (a copy of every message cost more than the write's own JS). One
 * per connection, so that connections share nothing; the scratch starts small and grows to the
 * largest call once.
 */
export class MessageEncoder {
  private scratch = Buffer.allocUnsafe(4 * 1024);
  private at = 0;
  private readonly unnamedCalls = new Map<string, Buffer>();
  private readonly simpleQueries = new Map<string, Buffer>();

  /** Bind, Execute and Sync for one prepared statement. */
  bindExecuteSync(statement: string, values: readonly WireParameter[]): Buffer {
    this.putBindExecute(statement, values);
    this.putBytes(SYNC);
    return this.take();
  }

  /**
   * One buffer for a pipeline, then Sync: a prepared statement as Bind/Execute with its values, a
   * statement without parameters as the unnamed statement (its bytes serialized once per text).
   */
  pipelineMessage(calls: readonly Call[]): Buffer {
    for (const call of calls) {
      if ('text' in call) {
        const bytes = this.unnamedCall(call.text);
        this.ensure(bytes.length);
        bytes.copy(this.scratch, this.at);
        this.at += bytes.length;
      } else this.putBindExecute(call.statement.name, call.values);
    }
    this.putBytes(SYNC);
    return this.take();
  }

  /** A simple Query of SQL without parameters, its bytes serialized once per text (as `unnamedCall`). */
  simpleQueryMessage(text: string): Buffer {
    let bytes = this.simpleQueries.get(text);
    if (bytes === undefined) {
      bytes = serialize.query(text);
      if (this.simpleQueries.size < UNNAMED_CALLS_KEPT) this.simpleQueries.set(text, bytes);
    }
    return bytes;
  }

  private unnamedCall(text: string): Buffer {
    let bytes = this.unnamedCalls.get(text);
    if (bytes === undefined) {
      bytes = Buffer.concat([serialize.parse({ text }), UNNAMED_BIND_EXECUTE]);
      if (this.unnamedCalls.size < UNNAMED_CALLS_KEPT) this.unnamedCalls.set(text, bytes);
    }
    return bytes;
  }

  private ensure(bytes: number): void {
    if (this.at + bytes <= this.scratch.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.scratch.length * 2, this.at + bytes));
    this.scratch.copy(bigger, 0, 0, this.at);
    this.scratch = bigger;
  }

  private putInt32(n: number, offset: number): void {
    const scratch = this.scratch;
    scratch[offset] = (n >>> 24) & 0xff;
    scratch[offset + 1] = (n >>> 16) & 0xff;
    scratch[offset + 2] = (n >>> 8) & 0xff;
    scratch[offset + 3] = n & 0xff;
  }

  private putBytes(bytes: readonly number[]): void {
    this.ensure(bytes.length);
    const scratch = this.scratch;
    let at = this.at;
    for (let i = 0; i < bytes.length; i++) scratch[at++] = bytes[i]!;
    this.at = at;
  }

  /** Writes `text` as UTF-8 at `at` and returns its byte length. */
  private putString(text: string): number {
    const n = text.length;
    this.ensure(n * 3);
    const scratch = this.scratch;
    const start = this.at;
    let at = start;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) return (this.at = start + scratch.write(text, start, 'utf8')) - start;
      scratch[at++] = c;
    }
    this.at = at;
    return n;
  }

  /** Writes a non-null parameter's text and returns its byte length. */
  private putParameter(value: string | number | readonly number[]): number {
    if (typeof value === 'string') return this.putString(value);
    if (typeof value === 'number') return this.putNumber(value);
    const start = this.at;
    this.ensure(1);
    this.scratch[this.at++] = 0x7b; // '{'
    for (let i = 0; i < value.length; i++) {
      if (i > 0) {
        this.ensure(1);
        this.scratch[this.at++] = 0x2c; // ','
      }
      this.putNumber(value[i]!);
    }
    this.ensure(1);
    this.scratch[this.at++] = 0x7d; // '}'
    return this.at - start;
  }

  /** Writes `String(n)` and returns its byte length: a safe integer digit by digit, anything else as its string. */
  private putNumber(n: number): number {
    if (!Number.isSafeInteger(n)) return this.putString(String(n));
    this.ensure(17); // a sign and at most 16 digits
    const start = this.at;
    this.at = putInteger(this.scratch, start, n);
    return this.at - start;
  }

  /** One Bind of `statement` with `values` and its Execute. */
  private putBindExecute(statement: string, values: readonly WireParameter[]): void {
    const messageStart = this.at;
    this.ensure(11);
    this.scratch[this.at] = 0x42; // 'B'
    this.at += 5; // the length, filled in below
    this.scratch[this.at++] = 0; // the unnamed portal
    this.putString(statement);
    const n = values.length;
    this.ensure(5 + 2 * n);
    const scratch = this.scratch;
    let at = this.at;
    scratch[at++] = 0;
    // A format code per parameter, each 0 (text), as pg-protocol writes them; then the count again.
    scratch[at++] = (n >>> 8) & 0xff;
    scratch[at++] = n & 0xff;
    for (let i = 0; i < 2 * n; i++) scratch[at++] = 0;
    scratch[at++] = (n >>> 8) & 0xff;
    scratch[at++] = n & 0xff;
    this.at = at;
    for (let i = 0; i < n; i++) {
      const value = values[i];
      this.ensure(4);
      const lengthAt = this.at;
      this.at += 4;
      this.putInt32(value === null || value === undefined ? -1 : this.putParameter(value), lengthAt);
    }
    this.ensure(4);
    const end = this.scratch;
    end[this.at++] = 0;
    end[this.at++] = 1; // one result format code for every column:
    end[this.at++] = 0;
    end[this.at++] = 0; // text
    this.putInt32(this.at - messageStart - 1, messageStart + 1);
    this.putBytes(EXECUTE);
  }

  /**
   * The last message's bytes are the socket's now (it could not write them at once): the next
   * message goes in a new scratch buffer rather than over them.
   */
  handOver(): void {
    this.scratch = Buffer.allocUnsafe(this.scratch.length);
  }

  /** The message written, as a view of the scratch buffer: no copy and no allocation per call. */
  private take(): Buffer {
    const out = this.scratch.subarray(0, this.at);
    this.at = 0;
    return out;
  }
}

/** The 5-byte header of a CopyData message of `length` bytes (written beside the data). */
export function copyDataHeader(length: number): Buffer {
  const header = Buffer.allocUnsafe(5);
  header[0] = 0x64; // 'd'
  header.writeInt32BE(length + 4, 1);
  return header;
}

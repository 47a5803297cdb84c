/**
 * The bytes of a call on the hot path: Bind (unnamed portal, text parameters, text results) and
 * Execute for each statement, then one Sync, written in one pass into a scratch buffer and copied
 * out once. pg-protocol's serializer builds each Bind in its own buffer (a byte-length scan and a
 * native write per parameter), and joining them with Execute and Sync costs one more copy; the
 * parameters here are short and almost always ASCII (numbers, names, array literals), which a
 * plain loop writes faster than a native call (docs/PERFORMANCE.md). Anything else goes through
 * `Buffer.write`, so every string is sent as UTF-8 as before.
 */
import { serialize } from 'pg-protocol';

/** A parameter's text, or null (connection.ts's WireValue; not imported, which would be a cycle). */
type WireValue = string | null;

/** A pipeline's statement, as connection.ts's PipelineCall (structurally, for the same reason). */
type Call =
  | { readonly statement: { readonly name: string }; readonly values: readonly WireValue[] }
  | { readonly text: string };

const EXECUTE: readonly number[] = [0x45, 0, 0, 0, 9, 0, 0, 0, 0, 0]; // 'E', length 9, unnamed portal, no row limit
const SYNC: readonly number[] = [0x53, 0, 0, 0, 4]; // 'S', length 4

let scratch = Buffer.allocUnsafe(16 * 1024);
let at = 0;

function ensure(bytes: number): void {
  if (at + bytes <= scratch.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(scratch.length * 2, at + bytes));
  scratch.copy(bigger, 0, 0, at);
  scratch = bigger;
}

function putInt32(n: number, offset: number): void {
  scratch[offset] = (n >>> 24) & 0xff;
  scratch[offset + 1] = (n >>> 16) & 0xff;
  scratch[offset + 2] = (n >>> 8) & 0xff;
  scratch[offset + 3] = n & 0xff;
}

function putBytes(bytes: readonly number[]): void {
  ensure(bytes.length);
  for (let i = 0; i < bytes.length; i++) scratch[at++] = bytes[i]!;
}

/** Writes `text` as UTF-8 at `at` and returns its byte length. */
function putString(text: string): number {
  const n = text.length;
  ensure(n * 3);
  const start = at;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return (at = start + scratch.write(text, start, 'utf8')) - start;
    scratch[at++] = c;
  }
  return n;
}

/** One Bind of `statement` with `values` and its Execute. */
function putBindExecute(statement: string, values: readonly WireValue[]): void {
  const messageStart = at;
  ensure(11);
  scratch[at] = 0x42; // 'B'
  at += 5; // the length, filled in below
  scratch[at++] = 0; // the unnamed portal
  putString(statement);
  const n = values.length;
  ensure(5 + 2 * n);
  scratch[at++] = 0;
  // A format code per parameter, each 0 (text), as pg-protocol writes them; then the count again.
  scratch[at++] = (n >>> 8) & 0xff;
  scratch[at++] = n & 0xff;
  for (let i = 0; i < 2 * n; i++) scratch[at++] = 0;
  scratch[at++] = (n >>> 8) & 0xff;
  scratch[at++] = n & 0xff;
  for (let i = 0; i < n; i++) {
    const value = values[i];
    ensure(4);
    const lengthAt = at;
    at += 4;
    putInt32(value === null || value === undefined ? -1 : putString(value), lengthAt);
  }
  ensure(4);
  scratch[at++] = 0;
  scratch[at++] = 1; // one result format code for every column:
  scratch[at++] = 0;
  scratch[at++] = 0; // text
  putInt32(at - messageStart - 1, messageStart + 1);
  putBytes(EXECUTE);
}

function take(): Buffer {
  const out = Buffer.allocUnsafe(at);
  scratch.copy(out, 0, 0, at);
  at = 0;
  return out;
}

/** Bind, Execute and Sync for one prepared statement. */
export function bindExecuteSync(statement: string, values: readonly WireValue[]): Buffer {
  putBindExecute(statement, values);
  putBytes(SYNC);
  return take();
}

/** Parse, Bind and Execute of a statement without parameters, by its text (BEGIN, COMMIT…). */
const unnamedCalls = new Map<string, Buffer>();
const UNNAMED_CALLS_KEPT = 64;
const UNNAMED_BIND_EXECUTE = Buffer.concat([serialize.bind({}), serialize.execute()]);

function unnamedCall(text: string): Buffer {
  let bytes = unnamedCalls.get(text);
  if (bytes === undefined) {
    bytes = Buffer.concat([serialize.parse({ text }), UNNAMED_BIND_EXECUTE]);
    if (unnamedCalls.size < UNNAMED_CALLS_KEPT) unnamedCalls.set(text, bytes);
  }
  return bytes;
}

/**
 * One buffer for a pipeline, then Sync: a prepared statement as Bind/Execute with its values, a
 * statement without parameters as the unnamed statement (its bytes serialized once per text).
 */
export function pipelineMessage(calls: readonly Call[]): Buffer {
  for (const call of calls) {
    if ('text' in call) {
      const bytes = unnamedCall(call.text);
      ensure(bytes.length);
      bytes.copy(scratch, at);
      at += bytes.length;
    } else putBindExecute(call.statement.name, call.values);
  }
  putBytes(SYNC);
  return take();
}

/** A simple Query of SQL without parameters, its bytes serialized once per text (as `unnamedCall`). */
const simpleQueries = new Map<string, Buffer>();

export function simpleQueryMessage(text: string): Buffer {
  let bytes = simpleQueries.get(text);
  if (bytes === undefined) {
    bytes = serialize.query(text);
    if (simpleQueries.size < UNNAMED_CALLS_KEPT) simpleQueries.set(text, bytes);
  }
  return bytes;
}

/** The 5-byte header of a CopyData message of `length` bytes (written beside the data). */
export function copyDataHeader(length: number): Buffer {
  const header = Buffer.allocUnsafe(5);
  header[0] = 0x64; // 'd'
  header.writeInt32BE(length + 4, 1);
  return header;
}

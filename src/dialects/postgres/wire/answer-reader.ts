/**
 * How the wire connection reads the answers to its calls where they lie in the read buffer: the
 * messages every call's answer is made of (completions, rows, the command tag, ReadyForQuery), as
 * its `onMessage` takes them from pg-protocol's parser, but with no message object and nothing
 * copied but the values. Per call that parsing was most of the client's reading.
 */
import { COUNTED_ROW } from './row-counting-parser.js';

/** A text value as the server sent it, or null. */
export type WireValue = string | null;

export interface WireResult {
  /** Every row, each as its columns' text values in order. */
  rows: WireValue[][];
  /** The command tag of the last statement ("SELECT 1", "UPDATE 3"). */
  tag: string;
}

export type WireCallback = (err: Error | undefined, result: WireResult) => void;

/** A call waiting for its answer, as connection.ts's Pending (structurally: importing it would be a cycle). */
interface AnsweredCall {
  rows: WireValue[][];
  results: WireResult[];
  readonly countOnly: boolean;
  readonly error: Error | undefined;
  done(err: Error | undefined, call: this): void;
}

export const NO_RESULT: WireResult = { rows: [], tag: '' };
// The backend messages `readAnswers` reads, by their type byte.
const PARSE_COMPLETE = 0x31; // '1'
const BIND_COMPLETE = 0x32; // '2'
const CLOSE_COMPLETE = 0x33; // '3'
const COMMAND_COMPLETE = 0x43; // 'C'
const DATA_ROW = 0x44; // 'D'
const EMPTY_QUERY = 0x49; // 'I'
const READY_FOR_QUERY = 0x5a; // 'Z'
const NO_DATA = 0x6e; // 'n'
/** ReadyForQuery's status byte as its letter: idle, in a transaction, in a failed one. */
const TRANSACTION_STATUS: Readonly<Record<number, string>> = { 0x49: 'I', 0x54: 'T', 0x45: 'E' };

/**
 * Reads the answers' messages in `buf` up to `end` into the calls waiting (`pending`, oldest
 * first); a ReadyForQuery gives its status to `setStatus` and ends the oldest call. Stops
 * at any other message (an error, a row description, a notice), at one the read cut short, and
 * while no call waits (the startup's messages), and returns how far it read: the parser takes
 * the rest.
 */
export function readAnswers<C extends AnsweredCall>(
  buf: Buffer,
  end: number,
  pending: C[],
  tags: CommandTags,
  setStatus: (status: string) => void,
): number {
  let at = 0;
  while (at + 5 <= end) {
    const next = at + 1 + buf.readUInt32BE(at + 1);
    const call = pending[0];
    if (next > end || call === undefined) return at;
    switch (buf[at]) {
      case DATA_ROW:
        call.rows.push(call.countOnly ? (COUNTED_ROW as WireValue[]) : rowValues(buf, at + 5));
        break;
      case COMMAND_COMPLETE:
        call.results.push({ rows: call.rows, tag: tags.read(buf, at + 5, next - 1) });
        call.rows = [];
        break;
      case BIND_COMPLETE:
      case PARSE_COMPLETE:
      case CLOSE_COMPLETE:
      case NO_DATA:
        break;
      case EMPTY_QUERY:
        call.results.push(NO_RESULT);
        break;
      case READY_FOR_QUERY: {
        const status = next === at + 6 ? TRANSACTION_STATUS[buf[at + 5]!] : undefined;
        if (status === undefined) return at;
        setStatus(status);
        pending.shift();
        call.done(call.error, call);
        break;
      }
      default:
        return at;
    }
    at = next;
  }
  return at;
}

/**
 * A DataRow's values from its body at `at`, as pg-protocol's parser reads them: a 16-bit count,
 * then each value's 32-bit length (-1 for NULL) and its text as UTF-8.
 */
export function rowValues(bytes: Buffer, at: number): WireValue[] {
  const n = bytes.readInt16BE(at);
  const values = new Array<WireValue>(n);
  let p = at + 2;
  for (let i = 0; i < n; i++) {
    const length = bytes.readInt32BE(p);
    p += 4;
    if (length === -1) values[i] = null;
    else {
      values[i] = bytes.toString('utf8', p, p + length);
      p += length;
    }
  }
  return values;
}

/** How many different command tags `CommandTags` keeps, and how long each may be. */
const TAGS_KEPT = 16;
const TAG_BYTES_KEPT = 32;

/**
 * A connection's command tags ("SELECT 1", "UPDATE 1", "COMMIT"): a workload's few tags come
 * again and again, so each is decoded once and its string handed out again while its bytes are
 * the same (a string per statement was a tenth of the client's reading). Keeps the first
 * TAGS_KEPT short ones it sees; any other is decoded every time.
 */
export class CommandTags {
  private readonly bytes: Buffer[] = [];
  private readonly texts: string[] = [];

  /** The UTF-8 text of `buf` from `start` to `end`. */
  read(buf: Buffer, start: number, end: number): string {
    const length = end - start;
    const { bytes } = this;
    for (let k = 0; k < bytes.length; k++) {
      const kept = bytes[k]!;
      if (kept.length !== length) continue;
      let i = 0;
      while (i < length && kept[i] === buf[start + i]) i++;
      if (i === length) return this.texts[k]!;
    }
    const text = buf.toString('utf8', start, end);
    if (bytes.length < TAGS_KEPT && length <= TAG_BYTES_KEPT) {
      bytes.push(Buffer.from(buf.subarray(start, end)));
      this.texts.push(text);
    }
    return text;
  }
}

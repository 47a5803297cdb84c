/**
 * How the wire connection reads messages: pg-protocol's parser, except that a caller that only
 * counts a result's rows (`WireConnection.count`) is not made to pay for turning their values into
 * strings, and that ReadyForQuery, which ends every call, is one of three messages made once; and
 * whether a read ended on a message boundary.
 */
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';

const DATA_ROW = 0x44; // 'D'
const READY_FOR_QUERY = 0x5a; // 'Z'
/** Every counted row: no values (the parser's and the connection's `readAnswers` alike). */
export const COUNTED_ROW: readonly (string | null)[] = Object.freeze([]);

/** The three ReadyForQuery messages there are (idle, in a transaction, failed), made once. */
const READY: Readonly<Record<number, BackendMessage>> = Object.fromEntries(
  ['I', 'T', 'E'].map((status) => [
    status.charCodeAt(0),
    Object.freeze({ name: 'readyForQuery', length: 5, status }) as unknown as BackendMessage,
  ]),
);

/** pg-protocol's `handlePacket` (1.x), the one place a message is made from its bytes. */
type PacketHandler = (offset: number, code: number, length: number, bytes: Buffer) => BackendMessage;

/**
 * pg-protocol's parser, except that while `countOnly()` says so a DataRow is not decoded: it is
 * handed on as one shared message with no fields; and a ReadyForQuery is a shared, frozen message. It takes over the parser's `handlePacket`; a
 * parser without one (a later pg-protocol) decodes every row as before, which is only slower.
 */
export function rowCountingParser(countOnly: () => boolean): Parser {
  const parser = new Parser();
  const own = parser as unknown as { handlePacket?: PacketHandler };
  const decode = own.handlePacket;
  if (typeof decode !== 'function') return parser;
  const skipped = { name: 'dataRow', length: 0, fields: COUNTED_ROW };
  own.handlePacket = (offset, code, length, bytes) => {
    if (code === READY_FOR_QUERY && length === 5) {
      // Every call ends in one: pg-protocol would decode its status byte as a string, and make a message.
      const ready = READY[bytes[offset]!];
      if (ready !== undefined) return ready;
    } else if (code === DATA_ROW && countOnly()) {
      skipped.length = length;
      return skipped as unknown as BackendMessage;
    }
    return decode.call(parser, offset, code, length, bytes);
  };
  return parser;
}

/** Whether `chunk` holds whole messages only (it starts on a message, as it does when called). */
export function endsOnMessageBoundary(chunk: Buffer): boolean {
  let at = 0;
  while (at + 5 <= chunk.length) at += 1 + chunk.readUInt32BE(at + 1);
  return at === chunk.length;
}

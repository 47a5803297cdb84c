/**
 * How the wire connection reads messages: pg-protocol's parser, except that a caller that only
 * counts a result's rows (`WireConnection.count`) is not made to pay for turning their values into
 * strings; and whether a read ended on a message boundary.
 */
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';

const DATA_ROW = 0x44; // 'D'
const EMPTY_ROW: readonly (string | null)[] = Object.freeze([]);

/** pg-protocol's `handlePacket` (1.x), the one place a message is made from its bytes. */
type PacketHandler = (offset: number, code: number, length: number, bytes: Buffer) => BackendMessage;

/**
 * pg-protocol's parser, except that while `countOnly()` says so a DataRow is not decoded: it is
 * handed on as one shared message with no fields. It takes over the parser's `handlePacket`; a
 * parser without one (a later pg-protocol) decodes every row as before, which is only slower.
 */
export function rowCountingParser(countOnly: () => boolean): Parser {
  const parser = new Parser();
  const own = parser as unknown as { handlePacket?: PacketHandler };
  const decode = own.handlePacket;
  if (typeof decode !== 'function') return parser;
  const skipped = { name: 'dataRow', length: 0, fields: EMPTY_ROW };
  own.handlePacket = (offset, code, length, bytes) => {
    if (code !== DATA_ROW || !countOnly()) return decode.call(parser, offset, code, length, bytes);
    skipped.length = length;
    return skipped as unknown as BackendMessage;
  };
  return parser;
}

/** Whether `chunk` holds whole messages only (it starts on a message, as it does when called). */
export function endsOnMessageBoundary(chunk: Buffer): boolean {
  let at = 0;
  while (at + 5 <= chunk.length) at += 1 + chunk.readUInt32BE(at + 1);
  return at === chunk.length;
}

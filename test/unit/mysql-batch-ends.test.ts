/** Section 1's MariaDB floor: the end of each text-protocol answer, however the stream is cut. */
import { describe, expect, it } from 'vitest';
import { MysqlBatchEnds } from '../../src/bench/mysql-batch-ends.js';

const packet = (seq: number, payload: number[]): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq;
  return Buffer.concat([head, Buffer.from(payload)]);
};
const MORE = 0x08;
const AUTOCOMMIT = 0x02;
/** OK: affected rows, last insert id (length-encoded), status, warnings. */
const ok = (status: number, affected = 1) => packet(1, [0x00, affected, 0x00, status, 0x00, 0x00, 0x00]);
const eof = (status: number) => packet(9, [0xfe, 0x00, 0x00, status, 0x00]);
/** A result set: one column, `rows` text rows, its final EOF with `status`. */
const resultSet = (rows: number, status: number): Buffer =>
  Buffer.concat([
    packet(1, [0x01]),
    packet(2, [0x03, 0x64, 0x65, 0x66, 0x00, 0x00, 0x00, 0x01, 0x63, 0x00, 0x0c, 0x08, 0x00]),
    eof(AUTOCOMMIT),
    ...Array.from({ length: rows }, (_, i) => packet(4 + i, [0x02, 0x31, 0x32])),
    eof(status),
  ]);

// A batch: start transaction (OK, more), a select (result set, more), an update (OK, more), commit (OK, last).
const batch = Buffer.concat([ok(MORE, 0), resultSet(3, MORE | AUTOCOMMIT), ok(MORE), ok(AUTOCOMMIT, 0)]);
// A CALL: two result sets, then the OK that ends it.
const call = Buffer.concat([resultSet(1, MORE), resultSet(0, MORE), ok(AUTOCOMMIT, 0)]);

describe('MysqlBatchEnds', () => {
  it('counts each answer once, at the result without more after it, whatever the cuts', () => {
    const stream = Buffer.concat([batch, call, batch]);
    for (let cut = 1; cut <= stream.length; cut++) {
      const ends = new MysqlBatchEnds();
      let count = 0;
      for (let i = 0; i < stream.length; i += cut) {
        const chunk = stream.subarray(i, i + cut);
        count += ends.feed(Buffer.concat([chunk, Buffer.alloc(3, 0xfe)]), chunk.length);
      }
      expect(count, `chunks of ${cut} bytes`).toBe(3);
    }
  });

  it('does not end an answer before its last result', () => {
    const ends = new MysqlBatchEnds();
    const head = batch.subarray(0, batch.length - ok(AUTOCOMMIT, 0).length);
    expect(ends.feed(head, head.length)).toBe(0);
  });

  it('reads an OK whose affected rows take more than a byte', () => {
    const big = packet(1, [0x00, 0xfc, 0x10, 0x27, 0x00, AUTOCOMMIT, 0x00, 0x00, 0x00]);
    expect(new MysqlBatchEnds().feed(big, big.length)).toBe(1);
    const bigMore = packet(1, [0x00, 0xfc, 0x10, 0x27, 0x00, MORE, 0x00, 0x00, 0x00]);
    expect(new MysqlBatchEnds().feed(bigMore, bigMore.length)).toBe(0);
  });

  it('an error packet ends its answer (the rest of a batch is not run) and is counted', () => {
    const error = packet(2, [0xff, 0x28, 0x04, 0x23, 0x34, 0x32, 0x53, 0x30, 0x32]);
    const ends = new MysqlBatchEnds();
    const stream = Buffer.concat([ok(MORE, 0), error, call]);
    expect(ends.feed(stream, stream.length)).toBe(2);
    expect(ends.errors).toBe(1);
  });
});

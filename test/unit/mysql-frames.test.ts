/** Section 10's MariaDB frame counter: one count per answer, however the stream is cut. */
import { describe, expect, it } from 'vitest';
import { MysqlFrames } from '../../src/bench/mysql-frames.js';

const packet = (seq: number, payload: number[]): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq;
  return Buffer.concat([head, Buffer.from(payload)]);
};
// Column count 1, one column definition ("def" …), EOF, one binary row, EOF.
const answer = Buffer.concat([
  packet(1, [0x01]),
  packet(2, [0x03, 0x64, 0x65, 0x66, 0x00, 0x00, 0x00, 0x01, 0x63, 0x00, 0x0c, 0x08, 0x00]),
  packet(3, [0xfe, 0x00, 0x00, 0x02, 0x00]),
  packet(4, [0x00, 0x00, 0x03, 0x61, 0x62, 0x63]),
  packet(5, [0xfe, 0x00, 0x00, 0x02, 0x00]),
]);

describe('MysqlFrames', () => {
  it('counts each answer once, whatever the cuts', () => {
    const stream = Buffer.concat([answer, answer, answer]);
    for (let cut = 1; cut <= stream.length; cut++) {
      const frames = new MysqlFrames();
      let count = 0;
      for (let i = 0; i < stream.length; i += cut) {
        const chunk = stream.subarray(i, i + cut);
        count += frames.feed(Buffer.concat([chunk, Buffer.alloc(5, 0xfe)]), chunk.length);
      }
      expect(count, `chunks of ${cut} bytes`).toBe(3);
    }
  });

  it('the EOF after the column definitions does not end an answer', () => {
    const head = answer.subarray(0, answer.length - 9 - 10);
    expect(new MysqlFrames().feed(head, head.length)).toBe(0);
  });

  it('an error packet ends its answer and is counted', () => {
    const error = packet(1, [0xff, 0x28, 0x04, 0x23, 0x34, 0x32, 0x53, 0x30, 0x32]);
    const frames = new MysqlFrames();
    const stream = Buffer.concat([answer, error, answer]);
    expect(frames.feed(stream, stream.length)).toBe(3);
    expect(frames.errors).toBe(1);
  });

  it('an OK answer (BEGIN, an UPDATE) is one packet, though it starts 0x00 as a binary row does', () => {
    const ok = packet(1, [0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00]);
    const frames = new MysqlFrames();
    frames.okAnswer = true;
    expect(frames.feed(ok, ok.length)).toBe(1);
    frames.okAnswer = false;
    expect(frames.feed(answer, answer.length)).toBe(1);
    // Read as a result set, the OK would only look like a row, and end nothing.
    expect(new MysqlFrames().feed(ok, ok.length)).toBe(0);
  });
});

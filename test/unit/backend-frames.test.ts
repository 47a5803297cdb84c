/** Section 10's frame counter: ReadyForQuery counted however the stream is cut, errors counted. */
import { describe, expect, it } from 'vitest';
import { serialize } from 'pg-protocol';
import { BackendFrames } from '../../src/bench/backend-frames.js';

const message = (type: string, body: Buffer): Buffer => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const ready = message('Z', Buffer.from('I'));
const answer = Buffer.concat([
  message('2', Buffer.alloc(0)), // BindComplete: a message with no body
  message('D', Buffer.from([0, 1, 0, 0, 0, 3, 0x61, 0x62, 0x63])), // one DataRow 'abc'
  message('C', Buffer.from('SELECT 1\0')),
  ready,
]);

describe('BackendFrames', () => {
  it('counts every ReadyForQuery of three answers, whatever the cuts', () => {
    const stream = Buffer.concat([answer, answer, answer]);
    for (let cut = 1; cut <= stream.length; cut++) {
      const frames = new BackendFrames();
      let count = 0;
      for (let i = 0; i < stream.length; i += cut) {
        const chunk = stream.subarray(i, i + cut);
        // The chunk lies at the start of a larger read buffer, as `onread` gives it.
        const buffer = Buffer.concat([chunk, Buffer.alloc(7, 0x5a)]);
        count += frames.feed(buffer, chunk.length);
      }
      expect(count, `chunks of ${cut} bytes`).toBe(3);
    }
  });

  it('counts nothing in messages other than ReadyForQuery (a frontend Sync is not one)', () => {
    const frames = new BackendFrames();
    const notReady = Buffer.concat([message('1', Buffer.alloc(0)), message('C', Buffer.from('BEGIN\0'))]);
    expect(frames.feed(notReady, notReady.length)).toBe(0);
    const sync = serialize.sync();
    expect(new BackendFrames().feed(sync, sync.length)).toBe(0);
  });

  it('counts an ErrorResponse, and the ReadyForQuery after it still ends its statement', () => {
    const error = message('E', Buffer.from('SERROR\0C23505\0Mduplicate key\0\0'));
    const frames = new BackendFrames();
    const stream = Buffer.concat([answer, error, ready, answer]);
    expect(frames.feed(stream, stream.length)).toBe(3);
    expect(frames.errors).toBe(1);
  });
});

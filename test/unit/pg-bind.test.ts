import { serialize } from 'pg-protocol';
import { describe, expect, it } from 'vitest';
import { MessageEncoder, type WireParameter } from '../../src/dialects/postgres/wire/bind.js';
import type { WireValue } from '../../src/dialects/postgres/wire/connection.js';
import { arrayLiteral } from '../../src/dialects/postgres/wire/session.js';

/** What pg-protocol's serializer sends for the same call: the bytes the fast writer must match. */
const reference = (statement: string, values: WireValue[]): Buffer =>
  Buffer.concat([serialize.bind({ statement, values }), serialize.execute()]);

const SYNC = serialize.sync();

/** One connection's writer, as a WireConnection owns it. */
const encoder = new MessageEncoder();
const bindExecuteSync = encoder.bindExecuteSync.bind(encoder);
const pipelineMessage = encoder.pipelineMessage.bind(encoder);

/** Strings a parameter may hold: ASCII, multi-byte UTF-8, astral characters, lone surrogates. */
function randomText(next: () => number): string {
  const alphabet = ['a', 'Z', '7', ' ', '"', '\\', '{', ',', 'é', 'ß', '€', '日', '😀', '\ud800', '\0'];
  let out = '';
  const n = Math.floor(next() * 40);
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)]!;
  return out;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('Bind/Execute/Sync writer', () => {
  it('writes the bytes pg-protocol writes, for numbers, names, NULLs and empty strings', () => {
    const values: WireValue[] = ['1', '10', '2104', 'BARBARBAR', null, '', '{1,2,3}', '12.50'];
    expect(bindExecuteSync('txb1', values)).toEqual(Buffer.concat([reference('txb1', values), SYNC]));
    expect(bindExecuteSync('txb12', [])).toEqual(Buffer.concat([reference('txb12', []), SYNC]));
  });

  it('writes any string as UTF-8 exactly as Buffer does (1,000 seeded random parameter lists)', () => {
    const next = seeded(16);
    for (let round = 0; round < 1000; round++) {
      const values = Array.from({ length: Math.floor(next() * 8) }, () =>
        next() < 0.1 ? null : randomText(next),
      );
      expect(bindExecuteSync('s', values)).toEqual(Buffer.concat([reference('s', values), SYNC]));
    }
  });

  it('grows past its scratch buffer for a long parameter and stays right afterwards', () => {
    const long = 'x'.repeat(100_000) + '€';
    expect(bindExecuteSync('big', [long, '1'])).toEqual(Buffer.concat([reference('big', [long, '1']), SYNC]));
    expect(bindExecuteSync('small', ['2'])).toEqual(Buffer.concat([reference('small', ['2']), SYNC]));
  });

  it('joins a pipeline of prepared calls and unnamed statements, ending in one Sync', () => {
    const begin = Buffer.concat([
      serialize.parse({ text: 'begin' }),
      serialize.bind({}),
      serialize.execute(),
    ]);
    const commit = Buffer.concat([
      serialize.parse({ text: 'commit' }),
      serialize.bind({}),
      serialize.execute(),
    ]);
    const calls = [
      { text: 'begin' },
      { statement: { name: 'txb3' }, values: ['1', null] },
      { text: 'commit' },
    ];
    // Twice: the second time the unnamed statements' bytes come from the cache.
    for (let round = 0; round < 2; round++)
      expect(pipelineMessage(calls)).toEqual(
        Buffer.concat([begin, reference('txb3', ['1', null]), commit, SYNC]),
      );
  });

  it('writes a number as String(n) and an array of numbers as its array literal, byte for byte', () => {
    const asText = (v: WireParameter): WireValue =>
      typeof v === 'number' ? String(v) : Array.isArray(v) ? arrayLiteral(v) : (v as WireValue);
    const cases: WireParameter[][] = [
      [1, 10, 2104, 0, -0, -7, 99_999, 100_000, 2 ** 31, -(2 ** 31), Number.MAX_SAFE_INTEGER],
      [Number.MIN_SAFE_INTEGER, 2 ** 53, 1e21, 12.5, -0.25, NaN, Infinity, -Infinity],
      [[], [7], [1, 2, 3], [100_000, 1, 99_999, 10, -3], [1.5, 2 ** 60]],
      ['3', 3, null, [4, 5], '', 'BARBARBAR', [6]],
    ];
    const next = seeded(32);
    for (let round = 0; round < 500; round++) {
      const int = (): number => Math.floor((next() - 0.2) * 10 ** Math.floor(next() * 16));
      cases.push([int(), Array.from({ length: Math.floor(next() * 15) }, int), int()]);
    }
    for (const values of cases) {
      const text = values.map(asText);
      expect(bindExecuteSync('txb1', values)).toEqual(Buffer.concat([reference('txb1', text), SYNC]));
      expect(pipelineMessage([{ statement: { name: 'txb2' }, values }])).toEqual(
        Buffer.concat([reference('txb2', text), SYNC]),
      );
    }
  });

  it('lends its scratch buffer: a message handed over (the socket kept it) is not overwritten by the next', () => {
    const first = bindExecuteSync('a', ['1']);
    const copy = Buffer.from(first);
    encoder.handOver();
    expect(bindExecuteSync('b', ['2222222'])).toEqual(Buffer.concat([reference('b', ['2222222']), SYNC]));
    expect(first).toEqual(copy);
  });

  it("two connections' writers share nothing: one's grown scratch and memos leave the other's bytes right", () => {
    const other = new MessageEncoder();
    const long = 'y'.repeat(50_000);
    expect(other.bindExecuteSync('big', [long])).toEqual(Buffer.concat([reference('big', [long]), SYNC]));
    expect(other.simpleQueryMessage('begin')).toEqual(serialize.query('begin'));
    expect(bindExecuteSync('c', ['3'])).toEqual(Buffer.concat([reference('c', ['3']), SYNC]));
    expect(encoder.simpleQueryMessage('commit')).toEqual(serialize.query('commit'));
  });
});

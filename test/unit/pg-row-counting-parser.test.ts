import { Parser } from 'pg-protocol/dist/parser.js';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { describe, expect, it } from 'vitest';
import { CommandTags, rowValues } from '../../src/dialects/postgres/wire/answer-reader.js';
import { rowCountingParser } from '../../src/dialects/postgres/wire/row-counting-parser.js';

/** A backend message: its code, then its length (itself included) and body. */
function message(code: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header[0] = code.charCodeAt(0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const ready = (status: string): Buffer => message('Z', Buffer.from(status));
const dataRow = (fields: string[]): Buffer => {
  const parts = fields.map((f) => {
    const len = Buffer.alloc(4);
    len.writeInt32BE(Buffer.byteLength(f));
    return Buffer.concat([len, Buffer.from(f)]);
  });
  const count = Buffer.alloc(2);
  count.writeInt16BE(fields.length);
  return message('D', Buffer.concat([count, ...parts]));
};
const complete = (tag: string): Buffer => message('C', Buffer.from(`${tag}\0`));

const parseAll = (parser: Parser, bytes: Buffer): BackendMessage[] => {
  const out: BackendMessage[] = [];
  parser.parse(bytes, (m) => out.push({ ...m }));
  return out;
};

describe('the wire connection’s parser', () => {
  const stream = Buffer.concat([
    message('2', Buffer.alloc(0)),
    dataRow(['42', 'é']),
    complete('SELECT 1'),
    ready('I'),
    ready('T'),
    ready('E'),
    complete('COMMIT'),
    ready('I'),
  ]);

  it('reads every message as pg-protocol does when rows are read', () => {
    expect(
      parseAll(
        rowCountingParser(() => false),
        stream,
      ),
    ).toEqual(parseAll(new Parser(), stream));
  });

  it('reads ReadyForQuery as pg-protocol does, split across reads too', () => {
    const ours = rowCountingParser(() => false);
    const out: BackendMessage[] = [];
    for (const byte of ready('T')) ours.parse(Buffer.from([byte]), (m) => out.push({ ...m }));
    expect(out).toEqual(parseAll(new Parser(), ready('T')));
  });

  it('hands on a counted row without its values, and every other message as pg-protocol does', () => {
    const ours = parseAll(
      rowCountingParser(() => true),
      stream,
    );
    const theirs = parseAll(new Parser(), stream);
    expect(ours[1]).toMatchObject({ name: 'dataRow', fields: [] });
    expect(ours.filter((_, i) => i !== 1)).toEqual(theirs.filter((_, i) => i !== 1));
  });
});

describe('reading in place', () => {
  it('reads a DataRow’s values as pg-protocol does: text, UTF-8, empty and NULL', () => {
    const body = Buffer.concat([Buffer.from([0, 4]), ...['42', 'é€😀', ''].map(field), int32(-1)]);
    const theirs = parseAll(new Parser(), message('D', body))[0] as unknown as { fields: unknown[] };
    expect(rowValues(Buffer.concat([Buffer.from('xyz'), body]), 3)).toEqual(theirs.fields);
  });

  it('gives each command tag’s text, the same string again for the same bytes, past its memo too', () => {
    const tags = new CommandTags();
    const texts = [
      'SELECT 1',
      'UPDATE 1',
      'SELECT 1',
      'SELECT 10',
      'INSERT 0 1',
      'COMMIT',
      'BEGIN',
      'Ünïcode 1',
    ];
    for (let i = 0; i < 40; i++) texts.push(`UPDATE ${i}`, 'SELECT 1', `x${'y'.repeat(40 + i)}`);
    const read = texts.map((t) => {
      const bytes = Buffer.concat([Buffer.from('pad'), Buffer.from(t), Buffer.from('\0rest')]);
      return tags.read(bytes, 3, 3 + Buffer.byteLength(t));
    });
    expect(read).toEqual(texts);
  });
});

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function field(text: string): Buffer {
  return Buffer.concat([int32(Buffer.byteLength(text)), Buffer.from(text)]);
}

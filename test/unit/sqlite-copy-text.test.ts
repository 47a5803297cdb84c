import { describe, expect, it } from 'vitest';
import { parseCopyText } from '../../src/dialects/sqlite/copy-text.js';
import { taskStreams } from '../../src/workloads/tpcc/generate.js';
import { COLUMNS } from '../../src/workloads/tpcc/schema.js';

describe('parseCopyText', () => {
  it('splits lines and tabs into one flat row-major array, \\N as null', () => {
    const parsed = parseCopyText('1\tabc\t\\N\n2\t\t12.50\n', 3);
    expect(parsed).toEqual({ values: ['1', 'abc', null, '2', '', '12.50'], rows: 2, rest: '' });
  });

  it('keeps a backslash-N inside a value as text: only the whole field is NULL', () => {
    expect(parseCopyText('x\\N\t\\N\n', 2).values).toEqual(['x\\N', null]);
  });

  it('returns an unfinished last line to be completed by the next chunk', () => {
    const first = parseCopyText('1\ta\n2\tb', 2);
    expect(first).toEqual({ values: ['1', 'a'], rows: 1, rest: '2\tb' });
    const second = parseCopyText(`${first.rest}c\n3\td\n`, 2);
    expect(second).toEqual({ values: ['2', 'bc', '3', 'd'], rows: 2, rest: '' });
  });

  it('skips empty lines and reports a row of the wrong width', () => {
    expect(parseCopyText('\n1\t2\n\n', 2).rows).toBe(1);
    expect(() => parseCopyText('1\t2\t3\n', 2)).toThrow(/COPY row 1 has 3 fields, expected 2/);
  });

  it("reads the loader's own chunks: every row has the table's columns, NULLs where the spec puts them", () => {
    const ctx = { seed: 7, loadTime: '2026-01-01 00:00:00.000', constants: { cLast: 1, cId: 1, olIId: 1 } };
    const [orders] = taskStreams({ kind: 'orders', w: 1 }, ctx, () => undefined);
    let rows = 0;
    let nullCarriers = 0;
    const width = COLUMNS.orders.length;
    const carrier = COLUMNS.orders.indexOf('o_carrier_id');
    for (const chunk of orders!.chunks) {
      const parsed = parseCopyText(chunk.toString('latin1'), width);
      expect(parsed.rest).toBe('');
      for (let r = 0; r < parsed.rows; r++) if (parsed.values[r * width + carrier] === null) nullCarriers++;
      rows += parsed.rows;
    }
    expect(rows).toBe(30_000);
    expect(nullCarriers).toBe(9_000);
  });
});

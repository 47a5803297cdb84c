/** mysql2's answers as the MySQL callback route hands them on (callback-route.ts). */
import { describe, expect, it } from 'vitest';
import { textResult } from '../../src/dialects/mysql/callback-route.js';

type Answer = Parameters<typeof textResult>[0];
const answer = (x: unknown): Answer => x as Answer;

describe('the MySQL callback route: results as text', () => {
  it("turns a SELECT's rows into the server's text, nulls kept, in column order", () => {
    const rows = [
      { id: 1, name: 'one', price: '1.50', at: null, raw: Buffer.from('ab') },
      { id: 2, name: null, price: '2.25', at: '2026-12-04 10:00:00', raw: null },
    ];
    expect(textResult(answer(rows), false)).toEqual({
      rows: [
        ['1', 'one', '1.50', null, 'ab'],
        ['2', null, '2.25', '2026-12-04 10:00:00', null],
      ],
      tag: 'SELECT 2',
    });
  });

  it('counts rows without reading them', () => {
    const r = textResult(answer([{ c: 'x' }, { c: 'y' }, { c: 'z' }]), true);
    expect(r.rows).toHaveLength(3);
    expect(r.rows.every((row) => row.length === 0)).toBe(true);
    expect(r.tag).toBe('SELECT 3');
  });

  it('answers a write with no rows and the number it changed', () => {
    expect(textResult(answer({ affectedRows: 3, insertId: 0 }), false)).toEqual({ rows: [], tag: 'OK 3' });
  });

  it("reads a CALL's first result set as its rows, and an empty SELECT as no rows", () => {
    const call = [[{ delivered: 10 }], { affectedRows: 0 }];
    expect(textResult(answer(call), false)).toMatchObject({ rows: [['10']], tag: 'SELECT 1' });
    expect(textResult(answer([]), false)).toEqual({ rows: [], tag: 'SELECT 0' });
  });

  it('keeps every result set of a CALL, in order, empty ones included; a plain answer has none', () => {
    const call = [
      [{ c_id: 7, c_balance: '-10.00' }],
      [],
      [
        { ol_i_id: 9, ol_delivery_d: null },
        { ol_i_id: 4, ol_delivery_d: '2026-12-04 11:00:00.000000' },
      ],
      { affectedRows: 0 },
    ];
    const read = textResult(answer(call), false);
    expect(read.sets).toEqual([
      [['7', '-10.00']],
      [],
      [
        ['9', null],
        ['4', '2026-12-04 11:00:00.000000'],
      ],
    ]);
    expect(read.rows).toBe(read.sets![0]);
    expect(textResult(answer(call), true).sets!.map((rows) => rows.length)).toEqual([1, 0, 2]);
    expect(textResult(answer([{ id: 1 }]), false).sets).toBeUndefined();
  });
});

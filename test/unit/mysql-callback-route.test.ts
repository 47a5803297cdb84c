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

  it("reads a CALL's first result set, and an empty SELECT as no rows", () => {
    const call = [[{ delivered: 10 }], { affectedRows: 0 }];
    expect(textResult(answer(call), false)).toEqual({ rows: [['10']], tag: 'SELECT 1' });
    expect(textResult(answer([]), false)).toEqual({ rows: [], tag: 'SELECT 0' });
  });
});

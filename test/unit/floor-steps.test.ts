/** Section 10's bare loop runs txbench's own steps for each script, with the ints where they go. */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integerAt } from '../../src/bench/floor-mysql.js';
import {
  drawOf,
  floorSteps,
  paramsOf,
  returnsRows,
  sqlOf,
  statementOf,
  statementsOf,
} from '../../src/bench/floor-steps.js';
import { countsOf, DEFAULT_COUNTS, planOf } from '../../src/workloads/sysbench/scripts.js';

const require = createRequire(import.meta.url);
/* eslint-disable @typescript-eslint/no-explicit-any -- mysql2's internals have no typings */
const Execute: any = require(join(dirname(require.resolve('mysql2')), 'lib', 'packets/execute.js'));

/** The bytes mysql2 writes for statement 7 and `values`, with or without query attributes. */
function mysql2Execute(values: unknown[], attributes: boolean): Buffer {
  const packet = new Execute(
    7,
    values,
    45,
    'local',
    undefined,
    attributes ? 0x08000000 : 0,
    true,
    [],
  ).toPacket();
  packet.writeHeader(0);
  return packet.buffer as Buffer;
}

describe("section 10's floor steps", () => {
  it('runs as many statements a transaction as sysbench counts for each script', () => {
    for (const script of ['oltp_point_select', 'oltp_read_only', 'oltp_read_write'] as const) {
      const n = countsOf(planOf(script, DEFAULT_COUNTS));
      expect(floorSteps(script), script).toHaveLength(n.reads + n.writes + n.other);
    }
    const readWrite = floorSteps('oltp_read_write');
    expect(readWrite[0]!.kind).toBe('begin');
    expect(readWrite.at(-1)!.kind).toBe('commit');
    expect(readWrite.map((s) => s.kind)).toContain('insertPair');
  });

  it('prepares each statement once, and gives each its SQL, its parameters and its answer', () => {
    const statements = statementsOf(floorSteps('oltp_read_write'));
    expect(statements).toEqual([
      'begin',
      'pointSelect',
      'simpleRange',
      'sumRange',
      'orderRange',
      'distinctRange',
      'indexUpdate',
      'nonIndexUpdate',
      'delete',
      'insert',
      'commit',
    ]);
    expect(statementOf('deletePair')).toBe('delete');
    expect(sqlOf('simpleRange', 3, (i) => `$${i}`)).toBe('SELECT c FROM sbtest3 WHERE id BETWEEN $1 AND $2');
    expect(sqlOf('begin', 3, () => '?')).toBe('BEGIN');
    // An insert's placeholders in order: id, k, c, pad.
    const insert = paramsOf('insert');
    expect(insert.slice(0, 2)).toEqual(['a', 'b']);
    expect(insert.slice(2).map((p) => (typeof p === 'string' ? p : p.text.length))).toEqual([120, 60]);
    expect(paramsOf('nonIndexUpdate')[1]).toBe('a');
    expect(statements.filter(returnsRows)).toEqual([
      'pointSelect',
      'simpleRange',
      'sumRange',
      'orderRange',
      'distinctRange',
    ]);
    expect(drawOf('orderRange')).toBe('range');
    expect(drawOf('deletePair')).toBe('pairDelete');
    expect(drawOf('insertPair')).toBe('pairInsert');
    expect(drawOf('commit')).toBe('none');
    expect(drawOf('indexUpdate')).toBe('id');
  });

  it("retypes mysql2's DOUBLE parameters as LONGLONG, where the ids then go", () => {
    for (const attributes of [false, true]) {
      const bytes = mysql2Execute(['x'.repeat(120), 987_654_321, 987_654_322], attributes);
      const a = integerAt(bytes, 3, 1, 987_654_321);
      const b = integerAt(bytes, 3, 2, 987_654_322);
      bytes.writeUInt32LE(42, a);
      bytes.writeUInt32LE(141, b);
      expect(bytes.readBigInt64LE(a)).toBe(42n);
      expect(bytes.readBigInt64LE(b)).toBe(141n);
      // The string's type stays; both numbers are now LONGLONG (8), unsigned flag 0.
      const types = 14 + (attributes ? 1 : 0) + 1 + 1;
      const stride = attributes ? 3 : 2;
      expect([0, 1, 2].map((i) => bytes[types + i * stride])).toEqual([0xfd, 0x08, 0x08]);
      expect(integerAt(bytes, 3, 1, 123)).toBe(-1);
    }
  });
});

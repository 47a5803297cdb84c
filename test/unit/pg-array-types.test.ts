import { describe, expect, it } from 'vitest';
import { builtInArrayTypes } from '../../src/dialects/postgres/array-types.js';
import { decodeValue } from '../../src/dialects/postgres/wire/session.js';

describe("postgres.js's built-in array types (no pg_type lookup)", () => {
  const types = builtInArrayTypes();
  const byOid = new Map(Object.values(types).map((t) => [t.to, t]));

  it('sends a JavaScript array as an array literal, and text as it is', () => {
    const int4 = byOid.get(1007)!;
    expect(int4.serialize([1, 2, 3])).toBe('{1,2,3}');
    expect(int4.serialize('{4,5}')).toBe('{4,5}');
    expect(byOid.get(1009)!.serialize(['a b', 'q"x', null])).toBe('{"a b","q\\"x",NULL}');
    expect(byOid.get(1231)!.serialize(['12.50', '0.01'])).toBe('{"12.50","0.01"}');
  });

  it('reads arrays with their elements decoded by type (numbers, booleans, dates, JSON; others as text)', () => {
    expect(byOid.get(1007)!.parse('{1,2,NULL}')).toEqual([1, 2, null]);
    expect(byOid.get(1016)!.parse('{9007199254740993}')).toEqual(['9007199254740993']);
    expect(byOid.get(1009)!.parse('{"a b",NULL,"NULL"}')).toEqual(['a b', null, 'NULL']);
    expect(byOid.get(2951)!.parse('{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}')).toEqual([
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    ]);
    expect(byOid.get(1185)!.parse('{"2026-12-01 12:34:56+00"}')).toEqual([new Date('2026-12-01T12:34:56Z')]);
  });

  it('covers every array type the wire path decodes', () => {
    const decodedAsArrays = Array.from({ length: 10_000 }, (_, oid) => oid).filter((oid) =>
      Array.isArray(decodeValue('{}', oid)),
    );
    expect(decodedAsArrays.length).toBeGreaterThan(10);
    for (const oid of decodedAsArrays) expect(byOid.has(oid), `array type ${oid}`).toBe(true);
  });

  it('gives each type its parser and its serializer under the same OID', () => {
    for (const t of Object.values(types)) expect(t.from).toEqual([t.to]);
  });
});

/**
 * PostgreSQL's built-in array types, given to postgres.js up front so that it never looks them up.
 *
 * Why: postgres.js 3.4.9 (`fetch_types`, on by default) queries pg_type for the array types on
 * each new connection, from a message handler that does not catch (connection.js
 * `fetchArrayTypes`). A connection lost at that moment (the server killed or restarted, the
 * network cut, while a slot connects) rejected a promise nobody held, and Node ends a process on
 * an unhandled rejection. Without the lookup there is no such promise. Built-in types keep their
 * OIDs in every PostgreSQL version, so a fixed table serves every server.
 *
 * A JavaScript array is sent as the wire path sends it (`arrayLiteral`); an array column is read
 * with the wire path's parser (`parseArray`), its elements decoded as postgres.js decodes them
 * (numbers, booleans, dates and JSON; the rest as text), the values postgres.js gave with the
 * lookup. The array types of extensions, and the few built-in ones left out here, come back as
 * their text form ('{...}').
 */
import type postgres from 'postgres';
import { arrayLiteral, parseArray } from './wire/session.js';

/** Built-in array types: name, OID, and the OID of the element type. */
export const BUILT_IN_ARRAYS: readonly (readonly [name: string, oid: number, element: number])[] = [
  ['bool[]', 1000, 16],
  ['char[]', 1002, 18],
  ['name[]', 1003, 19],
  ['int2[]', 1005, 21],
  ['int4[]', 1007, 23],
  ['text[]', 1009, 25],
  ['bpchar[]', 1014, 1042],
  ['varchar[]', 1015, 1043],
  ['int8[]', 1016, 20],
  ['float4[]', 1021, 700],
  ['float8[]', 1022, 701],
  ['oid[]', 1028, 26],
  ['inet[]', 1041, 869],
  ['cidr[]', 651, 650],
  ['macaddr[]', 1040, 829],
  ['timestamp[]', 1115, 1114],
  ['date[]', 1182, 1082],
  ['time[]', 1183, 1083],
  ['timestamptz[]', 1185, 1184],
  ['interval[]', 1187, 1186],
  ['numeric[]', 1231, 1700],
  ['timetz[]', 1270, 1266],
  ['bit[]', 1561, 1560],
  ['varbit[]', 1563, 1562],
  ['uuid[]', 2951, 2950],
  ['json[]', 199, 114],
  ['jsonb[]', 3807, 3802],
];

/** postgres.js's `types` option for the built-in array types (a new object for each client). */
export function builtInArrayTypes(): Record<string, postgres.PostgresType> {
  return Object.fromEntries(
    BUILT_IN_ARRAYS.map(([name, oid, element]) => [
      name,
      {
        to: oid,
        from: [oid],
        // A value already in text form (an array literal) goes as it is, as postgres.js sent it.
        serialize: (value: unknown) => (Array.isArray(value) ? arrayLiteral(value) : value),
        parse: (text: string) => parseArray(text, element),
      },
    ]),
  );
}

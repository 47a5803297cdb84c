/**
 * binary-protocol.ts and command-packets.ts against mysql2 itself: the COM_STMT_EXECUTE and
 * COM_QUERY bytes its packets write for the same values, and the text of answers its Execute
 * command parses (under connect.ts's options, through callback-route.ts's textResult), for every
 * column type, cut anywhere; the LONG of an integer's text against the protocol's layout.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParamValue, TextResult, TextValue } from '../../src/dialects/connections.js';
import { AnswerReader, type AnswerContext } from '../../src/dialects/mysql/binary-protocol.js';
import {
  answersOkOnly,
  executePacket,
  ExecuteWriter,
  longOf,
  queryPacket,
} from '../../src/dialects/mysql/command-packets.js';
import { textResult } from '../../src/dialects/mysql/callback-route.js';
import { connectionOptions } from '../../src/dialects/mysql/connect.js';
import { parseMysqlUrl } from '../../src/dialects/mysql/url.js';

const require = createRequire(import.meta.url);
const lib = join(dirname(require.resolve('mysql2')), 'lib');
/* eslint-disable @typescript-eslint/no-explicit-any -- mysql2's internals have no typings */
const Execute: any = require(join(lib, 'packets/execute.js'));
const Query: any = require(join(lib, 'packets/query.js'));
const ExecuteCommand: any = require(join(lib, 'commands/execute.js'));
const ConnectionConfig: any = require(join(lib, 'connection_config.js'));
const PacketParser: any = require(join(lib, 'packet_parser.js'));

const CLIENT_QUERY_ATTRIBUTES = 0x08000000;
const UTF8MB4_GENERAL_CI = 45;

/** The bytes mysql2 writes for statement `id` and `values`, header with sequence 0. */
function mysql2Execute(id: number, values: readonly TextValue[], clientFlags: number): Buffer {
  const packet = new Execute(
    id,
    values,
    UTF8MB4_GENERAL_CI,
    'local',
    undefined,
    clientFlags,
    true,
    [],
  ).toPacket();
  packet.writeHeader(0);
  return packet.buffer as Buffer;
}

const config = new ConnectionConfig(connectionOptions(parseMysqlUrl('mysql://u@127.0.0.1/db')));

/** mysql2's Execute command reading `bytes` as a prepared statement's answer, as the route's text. */
async function mysql2Answer(
  bytes: Buffer,
  extendedMetadata = false,
): Promise<{ result?: TextResult; error?: Error }> {
  let out: { result?: TextResult; error?: Error } | undefined;
  const command = new ExecuteCommand(
    { statement: { id: 1, parameters: [], columns: [] }, values: [] },
    (err: Error | null, answer: Parameters<typeof textResult>[0]) => {
      out = err ? { error: err } : { result: textResult(answer, false) };
    },
  );
  const connection = {
    config,
    clientEncoding: 'utf8',
    serverEncoding: 'utf8',
    serverCapabilityFlags: 0,
    _handshakePacket: { capabilityFlags: 0x200 }, // PROTOCOL_41
    _isMariaDB: true,
    _mariadbExtendedMetadata: extendedMetadata,
    sequenceId: 0,
    _resetSequenceId: () => undefined,
    writePacket: () => undefined,
    protocolError: (message: string) => {
      throw new Error(message);
    },
  };
  command.execute(undefined, connection);
  new PacketParser((p: unknown) => command.execute(p, connection)).execute(bytes);
  // mysql2 hands a result over on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  if (out === undefined) throw new Error('mysql2 did not finish the answer');
  return out;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

const context = (extendedMetadata = false): AnswerContext => ({
  extendedMetadata,
  isUtf8: (charset) => charset !== 8,
  decode: (buf, start, end, charset) => buf.toString(charset === 8 ? 'latin1' : 'utf8', start, end),
  errorName: (errno) => (errno === 1062 ? 'ER_DUP_ENTRY' : undefined),
});

/**
 * The reader on `bytes` cut into `cut`-byte chunks; the bytes it left over. Each chunk is fed as a
 * reading socket feeds it: copied to the start of one read buffer, which is scrambled after each
 * feed (the next read overwrites it), so an answer comes out right only if the reader kept none of it.
 */
function read(
  bytes: Buffer,
  cut: number,
  countOnly = false,
  extendedMetadata = false,
  reader = new AnswerReader(context(extendedMetadata)),
) {
  reader.start(countOnly);
  const readBuffer = Buffer.alloc(cut + 3);
  for (let i = 0; i < bytes.length; i += cut) {
    const n = bytes.copy(readBuffer, 0, i, i + cut);
    const used = reader.feed(readBuffer, n);
    readBuffer.fill(0xa5);
    if (used >= 0) {
      const rest = bytes.subarray(i + used);
      return { result: reader.result, error: reader.error, rest };
    }
  }
  throw new Error('the reader did not finish the answer');
}

// ---- answers, packet by packet -----------------------------------------------------------------

let seq = 1;
const packet = (payload: Buffer): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUIntLE(payload.length, 0, 3);
  head[3] = seq++ & 0xff;
  return Buffer.concat([head, payload]);
};
const lenenc = (n: number): Buffer =>
  n < 0xfb
    ? Buffer.from([n])
    : n < 0x10000
      ? Buffer.from([0xfc, n & 0xff, n >> 8])
      : Buffer.from([0xfd, n & 0xff, (n >> 8) & 0xff, n >> 16]);
const lstr = (s: string | Buffer): Buffer => {
  const b = typeof s === 'string' ? Buffer.from(s) : s;
  return Buffer.concat([lenenc(b.length), b]);
};

interface Col {
  type: number;
  unsigned?: boolean;
  decimals?: number;
  charset?: number;
  json?: boolean;
}
function columnDef(name: string, c: Col, extended: boolean): Buffer {
  const fixed = Buffer.alloc(13);
  fixed[0] = 0x0c;
  fixed.writeUInt16LE(c.charset ?? 45, 1);
  fixed.writeUInt32LE(255, 3);
  fixed[7] = c.type;
  fixed.writeUInt16LE(c.unsigned ? 0x20 : 0, 8);
  fixed[10] = c.decimals ?? 0;
  const names = [lstr('def'), lstr('db'), lstr('t'), lstr('t'), lstr(name), lstr(name)];
  const ext = extended
    ? lstr(c.json ? Buffer.concat([Buffer.from([1]), lstr('json')]) : Buffer.alloc(0))
    : Buffer.alloc(0);
  return packet(Buffer.concat([...names, ext, fixed]));
}
const eof = (status = 0x0002): Buffer => packet(Buffer.from([0xfe, 0, 0, status & 0xff, status >> 8]));
const ok = (affected: number, status = 0x0002): Buffer =>
  packet(
    Buffer.concat([
      Buffer.from([0]),
      lenenc(affected),
      lenenc(0),
      Buffer.from([status & 0xff, status >> 8, 0, 0]),
    ]),
  );
const err = (errno: number, state: string, message: string): Buffer =>
  packet(Buffer.concat([Buffer.from([0xff, errno & 0xff, errno >> 8]), Buffer.from(`#${state}${message}`)]));

/** A result set: columns and binary rows (each value already encoded, or null). */
function resultSet(columns: Col[], rows: (Buffer | null)[][], status = 0x0002, extended = false): Buffer {
  const parts = [packet(lenenc(columns.length))];
  columns.forEach((c, i) => parts.push(columnDef(`c${i}`, c, extended)));
  parts.push(eof());
  for (const row of rows) {
    const bitmap = Buffer.alloc((columns.length + 9) >> 3);
    row.forEach((v, i) => {
      if (v === null) bitmap[(i + 2) >> 3]! |= 1 << ((i + 2) & 7);
    });
    parts.push(
      packet(Buffer.concat([Buffer.from([0]), bitmap, ...row.filter((v): v is Buffer => v !== null)])),
    );
  }
  parts.push(eof(status));
  return Buffer.concat(parts);
}

const le = (bytes: number, n: bigint): Buffer => {
  const b = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) b[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return b;
};
const f32 = (x: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(x);
  return b;
};
const f64 = (x: number): Buffer => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return b;
};
const date = (...parts: number[]): Buffer => {
  const [y = 0, mo = 0, d = 0, h, mi, s, us] = parts;
  const b = [le(2, BigInt(y)), Buffer.from([mo, d])];
  if (h !== undefined) b.push(Buffer.from([h, mi!, s!]));
  if (us !== undefined) b.push(le(4, BigInt(us)));
  const body = Buffer.concat(parts.length === 0 ? [] : b);
  return Buffer.concat([Buffer.from([body.length]), body]);
};
const time = (negative: boolean, days: number, h: number, m: number, s: number, us?: number): Buffer => {
  const body = Buffer.concat([
    Buffer.from([negative ? 1 : 0]),
    le(4, BigInt(days)),
    Buffer.from([h, m, s]),
    us === undefined ? Buffer.alloc(0) : le(4, BigInt(us)),
  ]);
  return Buffer.concat([Buffer.from([body.length]), body]);
};

/** mysql2's own column-type codes, so that the answers built here are typed as mysql2 reads them. */
type TypeName =
  | 'BLOB'
  | 'DATE'
  | 'DATETIME'
  | 'DECIMAL'
  | 'DOUBLE'
  | 'FLOAT'
  | 'INT24'
  | 'LONG'
  | 'LONGLONG'
  | 'NEWDECIMAL'
  | 'SHORT'
  | 'STRING'
  | 'TIME'
  | 'TIMESTAMP'
  | 'TINY'
  | 'VAR_STRING'
  | 'YEAR';
const T = require(join(lib, 'constants/types.js')) as Record<TypeName, number>;

const everyType: Col[] = [
  { type: T.TINY },
  { type: T.TINY, unsigned: true },
  { type: T.SHORT },
  { type: T.SHORT, unsigned: true },
  { type: T.INT24 },
  { type: T.LONG },
  { type: T.LONG, unsigned: true },
  { type: T.LONGLONG },
  { type: T.LONGLONG, unsigned: true },
  { type: T.FLOAT },
  { type: T.DOUBLE },
  { type: T.NEWDECIMAL, charset: 63 },
  { type: T.DECIMAL, charset: 63 },
  { type: T.DATE, charset: 63 },
  { type: T.DATETIME, charset: 63 },
  { type: T.DATETIME, charset: 63, decimals: 6 },
  { type: T.TIMESTAMP, charset: 63, decimals: 3 },
  { type: T.TIME, charset: 63 },
  { type: T.YEAR, unsigned: true, charset: 63 },
  { type: T.VAR_STRING },
  { type: T.STRING },
  { type: T.BLOB, charset: 63 },
  { type: T.VAR_STRING, charset: 8 },
];
const everyTypeRows: (Buffer | null)[][] = [
  [
    le(1, -128n),
    le(1, 255n),
    le(2, -32768n),
    le(2, 65535n),
    le(4, -8388608n),
    le(4, -2147483648n),
    le(4, 4294967295n),
    le(8, -9223372036854775808n),
    le(8, 18446744073709551615n),
    f32(1.1),
    f64(Math.PI),
    lstr('-12345678.1234'),
    lstr('123456789012345678901234567890'),
    date(2024, 2, 29),
    date(2024, 2, 29, 23, 59, 58),
    date(2024, 2, 29, 23, 59, 58, 120),
    date(2024, 3, 1, 1, 2, 3, 400000),
    time(true, 34, 22, 59, 59),
    le(2, 2024n),
    lstr('héllo wörld ✓'),
    lstr('x'.repeat(300)),
    lstr(Buffer.from([0x00, 0xff, 0x10])),
    lstr(Buffer.from('café', 'latin1')),
  ],
  [
    le(1, 127n),
    le(1, 0n),
    le(2, 32767n),
    le(2, 0n),
    le(4, 8388607n),
    le(4, 2147483647n),
    le(4, 0n),
    le(8, 9007199254740993n),
    le(8, 9007199254740993n),
    f32(3.4e38),
    f64(-2.2250738585072014e-308),
    lstr('0.0001'),
    lstr('-1'),
    date(),
    date(2024, 1, 1),
    date(2000, 1, 1, 0, 0, 0),
    date(2024, 1, 1, 12, 0, 0),
    time(false, 0, 12, 34, 56, 789000),
    le(2, 1901n),
    lstr(''),
    lstr('y'.repeat(70_000)),
    lstr(''),
    lstr(''),
  ],
  everyType.map(() => null),
];

describe('longOf', () => {
  it('reads an integer written as MySQL writes one that fits a signed LONG', () => {
    for (const n of [0, 1, -1, 10, 100_000, 2147483647, -2147483648]) expect(longOf(String(n))).toBe(n);
  });

  it('leaves any other text as text', () => {
    for (const text of [
      '',
      '-',
      '-0',
      '+1',
      '01',
      '00',
      ' 1',
      '1 ',
      '1.0',
      '1e3',
      'a1',
      '2147483648',
      '-2147483649',
      '99999999999',
    ])
      expect(longOf(text), text).toBeUndefined();
  });
});

/**
 * COM_STMT_EXECUTE as the protocol lays it out (and libmariadb writes it for sysbench's integer
 * binds), with no query attributes: a number is a LONG, a bigint a LONGLONG, a string
 * VAR_STRING, null NULL.
 */
function protocolExecute(id: number, values: readonly (string | number | bigint | null)[]): Buffer {
  const n = values.length;
  const body: number[] = [0x17, ...leBytes(id, 4), 0, ...leBytes(1, 4)];
  if (n > 0) {
    const bitmap = new Array<number>((n + 7) >> 3).fill(0);
    values.forEach((v, i) => {
      if (v === null) bitmap[i >> 3]! |= 1 << (i & 7);
    });
    body.push(...bitmap, 1);
    for (const v of values)
      body.push(v === null ? 0x06 : typeof v === 'number' ? 0x03 : typeof v === 'bigint' ? 0x08 : 0xfd, 0);
    for (const v of values) {
      if (typeof v === 'number') body.push(...leBytes(v >>> 0, 4));
      else if (typeof v === 'bigint') body.push(...le(8, BigInt.asUintN(64, v)));
      else if (typeof v === 'string') {
        const bytes = Buffer.from(v, 'utf8');
        body.push(bytes.length, ...bytes); // under 251 bytes: a one-byte length
      }
    }
  }
  return Buffer.from([...leBytes(body.length, 3), 0, ...body]);
}

const leBytes = (n: number, bytes: number): number[] => [...le(bytes, BigInt(n))];

describe('executePacket', () => {
  const cases: TextValue[][] = [
    [],
    ['a'],
    [null],
    ['a', null, 'é✓', ''],
    [null, '01', '+2', '3.0', ' 4', '5 ', '-0', null, null, '2147483648'],
    ['x'.repeat(250), 'x'.repeat(251), 'x'.repeat(0xfffe), 'x'.repeat(0xffff), 'x'.repeat(70_000)],
    // ASCII text (written a character at a time) on either side of the first non-ASCII character.
    ['1,2,3', "O'BAR", '\x7f', '\x80', 'ÿ', 'é'.repeat(200), '12.50', 'a\u{1f600}b'],
  ];
  it('writes the bytes mysql2 writes for the same statement and values, where none is an integer', () => {
    for (const values of cases) {
      for (const flags of [0, CLIENT_QUERY_ATTRIBUTES]) {
        const expected = mysql2Execute(7, values, flags);
        const actual = executePacket(7, values, flags !== 0);
        expect(actual.equals(expected), `${values.length} values, flags ${flags}`).toBe(true);
      }
    }
    expect(executePacket(0xfffffffe, ['a'], false).equals(mysql2Execute(0xfffffffe, ['a'], 0))).toBe(true);
  });

  it("binds an integer's text as a signed LONG, as sysbench's C driver binds its integers", () => {
    const cases: (string | number | null)[][] = [
      [5],
      [5, 104],
      [-2147483648, 2147483647, 0],
      [null, 1, 'a', null, -7, 'é✓', '01', 2, 3, null],
    ];
    for (const values of cases) {
      const text = values.map((v) => (typeof v === 'number' ? String(v) : v));
      expect(executePacket(0x01020304, text, false).toString('hex'), JSON.stringify(values)).toBe(
        protocolExecute(0x01020304, values).toString('hex'),
      );
    }
  });

  it('binds a number as an integer: a LONG within 32 bits, a LONGLONG beyond, any other number as its text', () => {
    const cases: [ParamValue[], (string | number | bigint | null)[]][] = [
      [
        [5, -7, 0, -0, 2147483647, -2147483648],
        [5, -7, 0, 0, 2147483647, -2147483648],
      ],
      [
        [2147483648, -2147483649, 2 ** 32, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER],
        [2147483648n, -2147483649n, 4294967296n, 9007199254740991n, -9007199254740991n],
      ],
      [
        [1.5, -0.25, 2 ** 53, Number.NaN, null, 'a', '12'],
        ['1.5', '-0.25', '9007199254740992', 'NaN', null, 'a', 12],
      ],
    ];
    for (const [values, expected] of cases)
      expect(executePacket(0x01020304, values, false).toString('hex'), JSON.stringify(values)).toBe(
        protocolExecute(0x01020304, expected).toString('hex'),
      );
    // An integer and its text go the same way.
    expect(
      executePacket(9, [5, -2147483648], true).equals(executePacket(9, ['5', '-2147483648'], true)),
    ).toBe(true);
  });

  it('writes a list of numbers as the bytes mysql2 writes for their comma-separated text', () => {
    const lists: (readonly number[])[] = [
      [],
      [7],
      [1, 2, 3],
      [0, 9, 10, 99, 100, 99_999, 100_000, 2_147_483_647, 2_147_483_648, 123_456_789_012_345],
      [-1, -10, -2_147_483_648, -9_007_199_254_740_991, 9_007_199_254_740_991, -0],
      [1.5, 2, Number.NaN],
      Array.from({ length: 100 }, (_, i) => i * 1001), // over 250 characters: a longer length
    ];
    for (const list of lists)
      for (const flags of [0, CLIENT_QUERY_ATTRIBUTES]) {
        const values: ParamValue[] = [list, 'a', null, list];
        const text = list.join(',');
        const expected = mysql2Execute(5, [text, 'a', null, text], flags);
        expect(executePacket(5, values, flags !== 0).equals(expected), `${text}, flags ${flags}`).toBe(true);
      }
  });

  it('writes each command in one scratch, leaving a handed-over one as it was, and grows for a large one', () => {
    const writer = new ExecuteWriter();
    const first = writer.execute(1, ['abc', 5, [1, 2]], false);
    const kept = Buffer.from(first);
    writer.handOver();
    const large: ParamValue[] = ['x'.repeat(5000), [3, 4], null, 'é✓'];
    const second = writer.execute(2, large, true);
    expect(first.equals(kept)).toBe(true);
    expect(
      second.equals(mysql2Execute(2, ['x'.repeat(5000), '3,4', null, 'é✓'], CLIENT_QUERY_ATTRIBUTES)),
    ).toBe(true);
    // Not handed over: the next command is written where the last was.
    const third = writer.execute(3, ['b'], false);
    expect(third.equals(mysql2Execute(3, ['b'], 0))).toBe(true);
    expect(second.subarray(0, third.length).equals(third)).toBe(true);
  });

  it('with query attributes, adds the parameter count and an empty name per value, as mysql2 does', () => {
    const withText = mysql2Execute(3, ['a', 'b'], CLIENT_QUERY_ATTRIBUTES);
    const withLongs = executePacket(3, ['1', 'b'], true);
    // The same layout, but the first value: type LONG and 4 bytes of 1 instead of VAR_STRING 'a'.
    const at = withText.length - 4; // the values: 0x01 'a' 0x01 'b'
    expect(withLongs.subarray(4, 14)).toEqual(withText.subarray(4, 14));
    expect(withLongs.readUIntLE(0, 3)).toBe(withText.readUIntLE(0, 3) + 2);
    expect([...withLongs.subarray(14, 23)]).toEqual([2, 0, 1, 0x03, 0, 0, 0xfd, 0, 0]);
    expect([...withText.subarray(14, 23)]).toEqual([2, 0, 1, 0xfd, 0, 0, 0xfd, 0, 0]);
    expect([...withLongs.subarray(23)]).toEqual([1, 0, 0, 0, ...withText.subarray(at + 2)]);
  });
});

describe('queryPacket', () => {
  it('writes the bytes mysql2 writes for the same SQL', () => {
    for (const sql of ['begin', 'COMMIT', ' rollback ;'])
      for (const flags of [0, CLIENT_QUERY_ATTRIBUTES]) {
        const packet = new Query(sql, UTF8MB4_GENERAL_CI, undefined, flags).toPacket();
        packet.writeHeader(0);
        expect(queryPacket(sql, flags !== 0).equals(packet.buffer as Buffer), `${sql}, flags ${flags}`).toBe(
          true,
        );
      }
  });

  it('is taken for BEGIN, COMMIT and ROLLBACK only, the statements answered by an OK alone', () => {
    for (const sql of ['begin', 'COMMIT', ' Rollback; ', 'commit;'])
      expect(answersOkOnly(sql), sql).toBe(true);
    for (const sql of [
      'select 1',
      'begin work',
      'commit and chain',
      'rollback to s1',
      'beginx',
      'begin; select 1',
      '',
    ])
      expect(answersOkOnly(sql), sql).toBe(false);
  });
});

describe('AnswerReader', () => {
  const answers: [string, Buffer][] = [
    ['every type, NULLs', resultSet(everyType, everyTypeRows)],
    ['no rows', resultSet([{ type: T.LONG }], [])],
    ['a write', ok(3)],
    ['an error', err(1062, '23000', "Duplicate entry '1' for key 'PRIMARY'")],
    [
      'a CALL with two sets',
      Buffer.concat([
        resultSet(
          [{ type: T.LONG }, { type: T.VAR_STRING }],
          [
            [le(4, 1n), lstr('a')],
            [le(4, 2n), null],
          ],
          0x000a,
        ),
        resultSet([{ type: T.LONGLONG }], [[le(8, 2n)]], 0x000a),
        ok(0),
      ]),
    ],
    ['a CALL with no set', ok(1)],
    [
      'an error in the middle of a CALL',
      Buffer.concat([
        resultSet([{ type: T.LONG }], [[le(4, 1n)]], 0x000a),
        err(1213, '40001', 'Deadlock found'),
      ]),
    ],
  ];

  it('gives the text mysql2 gives, however the bytes are cut', async () => {
    for (const [what, bytes] of answers) {
      const expected = await mysql2Answer(bytes);
      for (const cut of [1, 2, 3, 5, 7, 64, bytes.length]) {
        const actual = read(bytes, cut);
        expect(actual.rest.length, what).toBe(0);
        if (expected.error) {
          expect(actual.error).toMatchObject({
            message: expected.error.message,
            errno: (expected.error as { errno?: number }).errno,
            sqlState: (expected.error as { sqlState?: string }).sqlState,
          });
        } else expect(actual.result, `${what}, cut ${cut}`).toEqual(expected.result);
      }
    }
  });

  it('reads answer after answer, one reader per connection', async () => {
    const reader = new AnswerReader(context());
    for (const cut of [1, 7, 1000]) {
      for (const [what, bytes] of answers) {
        const expected = await mysql2Answer(bytes);
        const actual = read(bytes, cut, false, false, reader);
        expect(actual.rest.length, what).toBe(0);
        if (expected.error) expect(actual.error?.message, what).toBe(expected.error.message);
        else {
          expect(actual.error, what).toBeUndefined();
          expect(actual.result, `${what}, cut ${cut}`).toEqual(expected.result);
        }
      }
    }
    // An answer only counted, then one decoded, on the same reader.
    const bytes = resultSet(everyType, everyTypeRows);
    expect(read(bytes, 5, true, false, reader).result).toEqual({ rows: [[], [], []], tag: 'SELECT 3' });
    expect(read(bytes, 5, false, false, reader).result).toEqual((await mysql2Answer(bytes)).result);
  });

  it("reads MariaDB's extended column metadata, and a JSON column as its text", () => {
    const bytes = resultSet(
      [{ type: T.LONG }, { type: T.BLOB, json: true }],
      [[le(4, 1n), lstr('{"a":1}')]],
      0x0002,
      true,
    );
    expect(read(bytes, 3, false, true).result).toEqual({ rows: [['1', '{"a":1}']], tag: 'SELECT 1' });
  });

  it('counts rows without decoding them', () => {
    const bytes = resultSet(everyType, everyTypeRows);
    expect(read(bytes, 11, true).result).toEqual({ rows: [[], [], []], tag: 'SELECT 3' });
  });

  it('leaves the bytes after its answer to the next reader', () => {
    const next = ok(9);
    const bytes = Buffer.concat([ok(1), next]);
    for (let cut = 1; cut <= bytes.length; cut++) {
      const { result, rest } = read(bytes, cut);
      expect(result?.tag).toBe('OK 1');
      expect(rest.equals(next), `cut ${cut}`).toBe(true);
    }
  });

  it('joins a row longer than one packet (16 MB) from its parts', () => {
    const long = 'z'.repeat(0xffffff);
    const payload = Buffer.concat([Buffer.from([0, 0]), lstr(long)]);
    const head = Buffer.concat([packet(lenenc(1)), columnDef('c', { type: T.VAR_STRING }, false), eof()]);
    const frames: Buffer[] = [];
    for (let at = 0; at <= payload.length; at += 0xffffff)
      frames.push(packet(payload.subarray(at, at + 0xffffff)));
    const bytes = Buffer.concat([head, ...frames, eof()]);
    const result = read(bytes, 1 << 20).result!;
    expect(result.rows[0]![0]).toBe(long);
  });
});

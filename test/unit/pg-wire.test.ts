import { describe, expect, it } from 'vitest';
import { scramClient } from '../../src/dialects/postgres/wire/scram.js';
import { affectedRows, arrayLiteral, decodeValue, toText } from '../../src/dialects/postgres/wire/session.js';
import { wireTarget } from '../../src/dialects/postgres/wire/target.js';

describe('SCRAM-SHA-256', () => {
  // RFC 7677, section 3.
  const serverFirst =
    'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096';
  it('gives the RFC 7677 proof and accepts its server signature', () => {
    const c = scramClient('pencil', { user: 'user', nonce: 'rOprNGfwEbeRWgbNEkqO' });
    expect(c.first).toBe('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    expect(c.final(serverFirst)).toBe(
      'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
    );
    expect(() => c.verify('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')).not.toThrow();
  });
  it('refuses a wrong server signature, a foreign nonce and a message without salt', () => {
    const c = scramClient('pencil', { user: 'user', nonce: 'rOprNGfwEbeRWgbNEkqO' });
    c.final(serverFirst);
    expect(() => c.verify('v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=')).toThrow(/signature/);
    expect(() => scramClient('x', { nonce: 'abc' }).final('r=xyz123,s=AAAA,i=4096')).toThrow(/nonce/);
    expect(() => scramClient('x', { nonce: 'abc' }).final('r=abc123,i=4096')).toThrow(/salt/);
    expect(() => scramClient('x', { nonce: 'abc' }).verify('v=AAAA')).toThrow(/signature/);
  });
});

describe('wire values', () => {
  it('writes parameters as PostgreSQL reads text', () => {
    expect(toText(null)).toBeNull();
    expect(toText(undefined)).toBeNull();
    expect(toText(12)).toBe('12');
    expect(toText(12n)).toBe('12');
    expect(toText(false)).toBe('f');
    expect(toText(new Date('2026-01-02T03:04:05.006Z'))).toBe('2026-01-02T03:04:05.006Z');
    expect(toText(Buffer.from([1, 255]))).toBe('\\x01ff');
    expect(toText({ a: 1 })).toBe('{"a":1}');
    expect(arrayLiteral([1, 2, 3])).toBe('{1,2,3}');
    expect(arrayLiteral([])).toBe('{}');
    expect(arrayLiteral(['a b', 'q"x', 'b\\s', null, '12.50'])).toBe('{"a b","q\\"x","b\\\\s",NULL,"12.50"}');
    expect(
      arrayLiteral([
        [1, 2],
        [3, null],
      ]),
    ).toBe('{{1,2},{3,NULL}}');
  });
  it('reads values by type as postgres.js does', () => {
    expect(decodeValue('42', 23)).toBe(42);
    expect(decodeValue('-7', 21)).toBe(-7);
    expect(decodeValue('2.5', 701)).toBe(2.5);
    expect(decodeValue('9007199254740993', 20)).toBe('9007199254740993');
    expect(decodeValue('12.30', 1700)).toBe('12.30');
    expect(decodeValue('t', 16)).toBe(true);
    expect(decodeValue('f', 16)).toBe(false);
    expect(decodeValue('{"a":[1]}', 3802)).toEqual({ a: [1] });
    expect(decodeValue('2026-12-01 12:00:00+00', 1184)).toEqual(new Date('2026-12-01T12:00:00Z'));
    expect(decodeValue(null, 23)).toBeNull();
    expect(decodeValue('{1,2}', 1007)).toEqual([1, 2]);
    expect(decodeValue('{}', 1007)).toEqual([]);
    expect(decodeValue('{a,"b \\"c\\"","d,e",NULL,"NULL"}', 1009)).toEqual([
      'a',
      'b "c"',
      'd,e',
      null,
      'NULL',
    ]);
    expect(decodeValue('{{1,2},{3,NULL}}', 1007)).toEqual([
      [1, 2],
      [3, null],
    ]);
    expect(decodeValue('[0:1]={7,8}', 1007)).toEqual([7, 8]);
    expect(decodeValue('{1.50,2}', 1231)).toEqual(['1.50', '2']);
    expect(decodeValue('{t,f}', 1000)).toEqual([true, false]);
    expect(decodeValue('{"(1,2)"}', 2287)).toBe('{"(1,2)"}');
  });
  it('reads the rows changed from a command tag', () => {
    expect(affectedRows({ rows: [], tag: 'UPDATE 3' })).toBe(3);
    expect(affectedRows({ rows: [], tag: 'INSERT 0 12' })).toBe(12);
    expect(affectedRows({ rows: [], tag: 'BEGIN' })).toBe(0);
    expect(affectedRows({ rows: [], tag: '' })).toBe(0);
  });
});

describe('which URLs the wire path takes', () => {
  it('reads host, port, user, password and database, with libpq-style defaults', () => {
    const t = wireTarget('postgres://u%40x:p%3Aw@db.example:6543/shop?application_name=txb', {});
    expect(t).toEqual({
      target: {
        host: 'db.example',
        port: 6543,
        socketPath: undefined,
        user: 'u@x',
        password: 'p:w',
        database: 'shop',
        parameters: { application_name: 'txb' },
      },
    });
    const d = wireTarget('postgres://127.0.0.1', { PGUSER: 'me', PGPASSWORD: 'pw' });
    expect('target' in d && d.target).toMatchObject({
      port: 5432,
      user: 'me',
      password: 'pw',
      database: 'me',
    });
    const s = wireTarget('postgres://u@x/db?host=/var/run/postgresql&port=5433', {});
    expect('target' in s && s.target.socketPath).toBe('/var/run/postgresql/.s.PGSQL.5433');
    expect(
      'target' in wireTarget('postgres://u@[::1]:5432/db', {}) &&
        wireTarget('postgres://u@[::1]:5432/db', {}),
    ).toMatchObject({ target: { host: '::1' } });
  });
  it('leaves TLS and options it does not know to postgres.js', () => {
    expect(wireTarget('postgres://u@h/db?sslmode=require', {})).toEqual({
      unsupported: 'sslmode=require (TLS)',
    });
    expect(wireTarget('postgres://u@h/db?sslmode=disable', {})).toHaveProperty('target');
    expect(wireTarget('postgres://u@h/db?sslrootcert=/ca.pem', {})).toHaveProperty('unsupported');
    expect(wireTarget('postgres://u@h/db?target_session_attrs=read-write', {})).toHaveProperty('unsupported');
  });
});

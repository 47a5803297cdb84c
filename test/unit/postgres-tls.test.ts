import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresTls } from '../../src/dialects/postgres/tls.js';

let dir: string;
let ca: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'txbench-tls-unit-'));
  ca = path.join(dir, 'ca.pem');
  await writeFile(ca, 'not really a certificate');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('postgresTls (libpq TLS options in a PostgreSQL URL)', () => {
  it('leaves a URL without TLS files alone (postgres.js reads sslmode itself)', () => {
    const url = 'postgres://u:p@db/x?sslmode=require';
    expect(postgresTls(url)).toEqual({ url, ssl: undefined });
  });

  it('verify-full: the CA read, the chain and the URL host checked, the files and mode out of the URL', () => {
    const t = postgresTls(
      `postgres://u:p@db.example:5433/x?sslmode=verify-full&sslrootcert=${ca}&application_name=a`,
    );
    expect(t.url).toBe('postgres://u:p@db.example:5433/x?application_name=a');
    expect(t.ssl?.rejectUnauthorized).toBe(true);
    expect(t.ssl?.host).toBe('db.example');
    expect(String(t.ssl?.ca)).toBe('not really a certificate');
    expect(t.ssl?.checkServerIdentity).toBeUndefined();
  });

  it('verify-ca: the chain checked, not the host name', () => {
    const t = postgresTls(`postgres://u@127.0.0.1/x?sslmode=verify-ca&sslrootcert=${ca}`);
    expect(t.ssl?.rejectUnauthorized).toBe(true);
    expect(t.ssl?.checkServerIdentity?.('127.0.0.1', {} as never)).toBeUndefined();
  });

  it('a CA file that cannot be read: one line naming it, without the password', () => {
    expect(() =>
      postgresTls('postgres://u:Secret1@db/x?sslmode=verify-full&sslrootcert=/nope/ca.pem'),
    ).toThrow(
      /^sslrootcert=\/nope\/ca\.pem in postgres:\/\/u:\*+@db\/x.*: cannot read it \(ENOENT\); name a PEM file$/,
    );
    expect(() =>
      postgresTls('postgres://u:Secret1@db/x?sslmode=verify-full&sslrootcert=/nope/ca.pem'),
    ).not.toThrow(/Secret1/);
  });
});

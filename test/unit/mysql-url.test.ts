import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { parseMysqlUrl, serverAddress } from '../../src/dialects/mysql/url.js';

const env = {};

describe('parseMysqlUrl', () => {
  it('reads user, password, host, port and database', () => {
    const s = parseMysqlUrl('mysql://bench:s3cret@db.example.com:3307/tpcc', env);
    expect(s).toMatchObject({
      host: 'db.example.com',
      port: 3307,
      user: 'bench',
      password: 's3cret',
      database: 'tpcc',
      tls: undefined,
      poolSize: undefined,
      connectTimeoutMs: 10_000,
    });
    expect(s.safeUrl).toBe('mysql://bench:***@db.example.com:3307/tpcc');
    expect(serverAddress(s)).toBe('db.example.com:3307');
  });

  it('takes mariadb:// alike, defaults the port to 3306 and decodes percent-encoding', () => {
    const s = parseMysqlUrl('mariadb://a%40b:p%3Aw%2Fd@localhost/my%20db', env);
    expect(s).toMatchObject({ user: 'a@b', password: 'p:w/d', port: 3306, database: 'my db' });
    expect(s.secrets).toContain('p:w/d');
    expect(s.secrets).toContain('p%3Aw%2Fd');
  });

  it('strips the brackets of an IPv6 host', () => {
    expect(parseMysqlUrl('mysql://u:p@[::1]:3306/tpcc', env).host).toBe('::1');
  });

  it('takes the password from MYSQL_PWD when the URL has none', () => {
    const s = parseMysqlUrl('mysql://u@h/tpcc', { MYSQL_PWD: 'fromenv' });
    expect(s.password).toBe('fromenv');
    expect(s.secrets).toEqual(['fromenv']);
    expect(parseMysqlUrl('mysql://u:url@h/tpcc', { MYSQL_PWD: 'fromenv' }).password).toBe('url');
    expect(parseMysqlUrl('mysql://u@h/tpcc', env).password).toBeUndefined();
  });

  it('needs a database name', () => {
    expect(() => parseMysqlUrl('mysql://u:pw@h:3306', env)).toThrow(UsageError);
    expect(() => parseMysqlUrl('mysql://u:pw@h:3306/', env)).toThrow(/name the database/);
  });

  it('never puts the password in an error', () => {
    for (const url of [
      'mysql://u:topsecret@h:3306',
      'mysql://u:topsecret@h/db?nope=1',
      'mysql://u:topsecret@h/db?pool_size=x',
    ]) {
      try {
        parseMysqlUrl(url, env);
        expect.unreachable();
      } catch (err) {
        expect((err as Error).message).not.toContain('topsecret');
      }
    }
  });

  it('refuses unknown options, naming the supported ones', () => {
    expect(() => parseMysqlUrl('mysql://u@h/db?sslmod=require', env)).toThrow(
      /unknown option "sslmod".*sslmode/,
    );
  });

  it('reads the pool size under its three names', () => {
    expect(parseMysqlUrl('mysql://u@h/db?pool_size=20', env).poolSize).toBe(20);
    expect(parseMysqlUrl('mysql://u@h/db?connectionLimit=7', env).poolSize).toBe(7);
    expect(parseMysqlUrl('mysql://u@h/db?max=3', env).poolSize).toBe(3);
    expect(() => parseMysqlUrl('mysql://u@h/db?pool_size=0', env)).toThrow(/pool_size=0/);
    expect(() => parseMysqlUrl('mysql://u@h/db?pool_size=2.5', env)).toThrow(UsageError);
  });

  it('reads connect_timeout in seconds and a Unix socket', () => {
    const s = parseMysqlUrl('mysql://u@localhost/db?connect_timeout=3&socket=/run/mysqld/mysqld.sock', env);
    expect(s.connectTimeoutMs).toBe(3000);
    expect(s.socketPath).toBe('/run/mysqld/mysqld.sock');
    expect(serverAddress(s)).toBe('/run/mysqld/mysqld.sock');
  });
});

describe('TLS options', () => {
  const tls = (query: string) => parseMysqlUrl(`mysql://u@h/db?${query}`, env).tls;

  it('is off by default, for disable and for prefer (mysql2 has no opportunistic TLS)', () => {
    expect(parseMysqlUrl('mysql://u@h/db', env).tls).toBeUndefined();
    expect(tls('sslmode=disable')).toBeUndefined();
    expect(tls('sslmode=prefer')).toBeUndefined();
    expect(tls('ssl-mode=PREFERRED')).toBeUndefined();
    expect(tls('ssl=false')).toBeUndefined();
  });

  it('encrypts without verifying for require', () => {
    expect(tls('sslmode=require')).toEqual({ verifyCertificate: false, verifyHostname: false });
    expect(tls('ssl-mode=REQUIRED')).toMatchObject({ verifyCertificate: false, verifyHostname: false });
  });

  it('verifies the chain with a CA file even for require, as libpq does', () => {
    expect(tls('sslmode=require&sslca=/ca.pem')).toMatchObject({
      verifyCertificate: true,
      verifyHostname: false,
      caFile: '/ca.pem',
    });
  });

  it('verifies the chain for verify-ca, and the host name too for verify-full, VERIFY_IDENTITY and ssl=true', () => {
    expect(tls('sslmode=verify-ca')).toMatchObject({ verifyCertificate: true, verifyHostname: false });
    expect(tls('ssl_mode=VERIFY_CA')).toMatchObject({ verifyCertificate: true, verifyHostname: false });
    expect(tls('sslmode=verify-full')).toMatchObject({ verifyCertificate: true, verifyHostname: true });
    expect(tls('ssl-mode=VERIFY_IDENTITY')).toMatchObject({ verifyCertificate: true, verifyHostname: true });
    expect(tls('ssl=true')).toMatchObject({ verifyCertificate: true, verifyHostname: true });
    expect(tls('ssl=1')).toMatchObject({ verifyCertificate: true, verifyHostname: true });
  });

  it('names the client certificate and key files', () => {
    expect(tls('sslmode=verify-full&ssl-ca=/a&ssl-cert=/b&ssl-key=/c')).toEqual({
      verifyCertificate: true,
      verifyHostname: true,
      caFile: '/a',
      certFile: '/b',
      keyFile: '/c',
    });
  });

  it('lets sslmode win over ssl, and refuses values it does not know', () => {
    expect(tls('ssl=true&sslmode=disable')).toBeUndefined();
    expect(() => tls('sslmode=sometimes')).toThrow(/sslmode=sometimes/);
    expect(() => tls('ssl=maybe')).toThrow(/ssl=maybe/);
  });
});

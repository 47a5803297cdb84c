/** SQL Server URLs to the driver configuration, and connection failures to one password-free line. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONNECT_TIMEOUT_S,
  describeConnectionError,
  parseMssqlUrl,
  poolConfig,
  whereOf,
} from '../../src/dialects/mssql/config.js';
import { DatabaseError, UsageError } from '../../src/errors.js';

const NO_ENV = {};
const SECRET = 's3cr3t!P@ss';
const URL_WITH_SECRET = `mssql://sa:${encodeURIComponent(SECRET)}@db.example:14330/tpcc`;

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

describe('parseMssqlUrl', () => {
  it('reads host, port, database, user and password (decoded)', () => {
    const t = parseMssqlUrl(URL_WITH_SECRET, NO_ENV);
    expect(t).toMatchObject({
      server: 'db.example',
      port: 14330,
      database: 'tpcc',
      user: 'sa',
      password: SECRET,
      domain: undefined,
      instanceName: undefined,
      encrypt: true,
      trustServerCertificate: false,
      poolSize: undefined,
      connectTimeoutS: DEFAULT_CONNECT_TIMEOUT_S,
      requestTimeoutS: 0,
    });
    expect(t.safeUrl).not.toContain(SECRET);
    expect(t.safeUrl).toContain('***');
  });

  it('accepts sqlserver:// and defaults the port to 1433 and the host to localhost', () => {
    const t = parseMssqlUrl('sqlserver:///db', NO_ENV);
    expect(t.server).toBe('localhost');
    expect(t.port).toBe(1433);
    expect(parseMssqlUrl('sqlserver://u:p@host/db', NO_ENV).port).toBe(1433);
  });

  it('leaves the database to the login default when the path is empty', () => {
    expect(parseMssqlUrl('mssql://u:p@host', NO_ENV).database).toBeUndefined();
    expect(parseMssqlUrl('mssql://u:p@host/', NO_ENV).database).toBeUndefined();
  });

  it('strips the brackets of an IPv6 host', () => {
    expect(parseMssqlUrl('mssql://u:p@[::1]:1433/db', NO_ENV).server).toBe('::1');
  });

  it('reads the TLS options, case-insensitively', () => {
    const t = parseMssqlUrl('mssql://u:p@h/db?encrypt=false&TrustServerCertificate=true', NO_ENV);
    expect(t.encrypt).toBe(false);
    expect(t.trustServerCertificate).toBe(true);
    expect(parseMssqlUrl('mssql://u:p@h/db?encrypt=strict', NO_ENV).encrypt).toBe('strict');
    expect(parseMssqlUrl('mssql://u:p@h/db?encrypt=yes&trustServerCertificate=0', NO_ENV)).toMatchObject({
      encrypt: true,
      trustServerCertificate: false,
    });
  });

  it('reads the pool size and timeouts', () => {
    const t = parseMssqlUrl('mssql://u:p@h/db?poolSize=64&connectTimeout=30&requestTimeout=600', NO_ENV);
    expect(t).toMatchObject({ poolSize: 64, connectTimeoutS: 30, requestTimeoutS: 600 });
  });

  it('drops the port for a named instance unless one is given', () => {
    const t = parseMssqlUrl('mssql://u:p@h/db?instanceName=SQLEXPRESS', NO_ENV);
    expect(t.instanceName).toBe('SQLEXPRESS');
    expect(t.port).toBeUndefined();
    expect(whereOf(t)).toBe('h\\SQLEXPRESS');
    expect(parseMssqlUrl('mssql://u:p@h:5000/db?instanceName=X', NO_ENV).port).toBe(5000);
  });

  it('splits DOMAIN\\user into an NTLM domain and user', () => {
    const t = parseMssqlUrl('mssql://CORP%5Cbench:p@h/db', NO_ENV);
    expect(t.domain).toBe('CORP');
    expect(t.user).toBe('bench');
  });

  it('takes credentials from SQLCMDUSER and SQLCMDPASSWORD when the URL has none', () => {
    const env = { SQLCMDUSER: 'envuser', SQLCMDPASSWORD: 'envpass' };
    expect(parseMssqlUrl('mssql://h/db', env)).toMatchObject({ user: 'envuser', password: 'envpass' });
    expect(parseMssqlUrl('mssql://urluser:urlpass@h/db', env)).toMatchObject({
      user: 'urluser',
      password: 'urlpass',
    });
    expect(parseMssqlUrl('mssql://h/db', { SQLCMDUSER: '' })).toMatchObject({
      user: undefined,
      password: undefined,
    });
  });

  it('rejects unknown options in one line that lists the accepted ones and hides the password', () => {
    const err = thrown(() => parseMssqlUrl(`${URL_WITH_SECRET}?sslmode=require`, NO_ENV));
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain('unknown option "sslmode"');
    expect(err.message).toContain('encrypt, trustServerCertificate, poolSize');
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain(encodeURIComponent(SECRET));
    expect(err.message).not.toContain('\n');
  });

  it('rejects bad values without echoing the password', () => {
    for (const query of [
      'encrypt=maybe',
      'trustServerCertificate=2',
      'poolSize=0',
      'poolSize=abc',
      'connectTimeout=-1',
      'requestTimeout=1.5',
    ]) {
      const err = thrown(() => parseMssqlUrl(`${URL_WITH_SECRET}?${query}`, NO_ENV));
      expect(err, query).toBeInstanceOf(UsageError);
      expect(err.message).not.toContain(SECRET);
      expect(err.message).not.toContain(encodeURIComponent(SECRET));
    }
  });

  it('rejects malformed URLs and other schemes', () => {
    expect(() => parseMssqlUrl('mssql://u:p@h:99999/db', NO_ENV)).toThrow(UsageError);
    expect(() => parseMssqlUrl('postgres://u:p@h/db', NO_ENV)).toThrow(UsageError);
    expect(() => parseMssqlUrl('mssql://u:p@h/a/b', NO_ENV)).toThrow(/contains "\/"/);
  });
});

describe('poolConfig', () => {
  it('maps a target to the driver configuration', () => {
    const cfg = poolConfig(
      parseMssqlUrl('mssql://sa:pw@h:1444/tpcc?trustServerCertificate=true&connectTimeout=20', NO_ENV),
      12,
    );
    expect(cfg).toEqual({
      server: 'h',
      port: 1444,
      database: 'tpcc',
      user: 'sa',
      password: 'pw',
      domain: undefined,
      connectionTimeout: 20_000,
      requestTimeout: 0,
      validateConnection: 'socket',
      pool: { max: 12, min: 0, idleTimeoutMillis: 3_600_000 },
      options: {
        encrypt: true,
        trustServerCertificate: true,
        instanceName: undefined,
        appName: 'txbench',
        useUTC: true,
        enableArithAbort: true,
        abortTransactionOnError: true,
        packetSize: undefined,
      },
    });
  });

  it('lets the URL pool size win over the caller’s', () => {
    expect(poolConfig(parseMssqlUrl('mssql://h/db?poolSize=7', NO_ENV), 40).pool.max).toBe(7);
    expect(poolConfig(parseMssqlUrl('mssql://h/db', NO_ENV), 40).pool.max).toBe(40);
  });

  it('passes a packet size through', () => {
    expect(
      poolConfig(parseMssqlUrl('mssql://h/db', NO_ENV), 1, { packetSize: 32_767 }).options.packetSize,
    ).toBe(32_767);
  });
});

describe('describeConnectionError', () => {
  const target = parseMssqlUrl(URL_WITH_SECRET, NO_ENV);
  const driverError = (message: string, code: string): Error => Object.assign(new Error(message), { code });

  const cases: [string, Error, RegExp][] = [
    [
      'refused',
      driverError('Failed to connect to db.example:14330 - connect ECONNREFUSED 10.0.0.1:14330', 'ESOCKET'),
      /connection refused; start the server or correct --db/,
    ],
    [
      'unknown host',
      driverError('Failed to connect to db.example:14330 - getaddrinfo ENOTFOUND db.example', 'ESOCKET'),
      /cannot resolve the host/,
    ],
    [
      'timeout',
      driverError('Failed to connect to db.example:14330 in 15000ms', 'ETIMEOUT'),
      /timed out connecting to SQL Server at db.example:14330/,
    ],
    [
      'login',
      driverError("Login failed for user 'sa'.", 'ELOGIN'),
      /login failed for sa at db.example:14330/,
    ],
    [
      'database',
      driverError('Cannot open database "tpcc" requested by the login. The login failed.', 'ELOGIN'),
      /database "tpcc" does not exist at db.example:14330/,
    ],
    [
      'certificate',
      driverError('Failed to connect to db.example:14330 - self-signed certificate', 'ESOCKET'),
      /trustServerCertificate=true/,
    ],
    [
      'other, with the password in the driver message',
      driverError(`something odd about ${SECRET} and ${encodeURIComponent(SECRET)}`, 'EFOO'),
      /cannot use SQL Server at .*something odd about \*\*\* and \*\*\* \(EFOO\)/,
    ],
  ];
  for (const [name, err, expected] of cases) {
    it(`explains ${name} in one line without the password`, () => {
      const out = describeConnectionError(err, target);
      expect(out).toBeInstanceOf(DatabaseError);
      expect(out.message).toMatch(expected);
      expect(out.message).not.toContain(SECRET);
      expect(out.message).not.toContain(encodeURIComponent(SECRET));
      expect(out.message).not.toContain('\n');
    });
  }
});

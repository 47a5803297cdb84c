/**
 * TLS with verification, against servers the test starts with a certificate authority it creates
 * (openssl): a PostgreSQL 15 that accepts only TLS connections (hostssl) and a MariaDB whose user
 * must use TLS (REQUIRE SSL). The server certificates name `localhost` only, so with
 * `sslmode=verify-full` a URL naming localhost is accepted and one naming 127.0.0.1 — the same
 * server, another name — is refused: one line, exit 3. And no file a run writes (its run
 * directory, the --json file, report.html) holds the password. Drives the compiled CLI (run
 * `npm run build` first).
 */
import { execFileSync } from 'node:child_process';
import { chown, readdir, readFile, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeDir, runCli } from './helpers.js';
import { startPgCtlServer, type PgCtlServer } from './faults/pg-ctl-server.js';
import { startMariaDb, type MariaDbServer } from './targets/mariadb.js';

let dir: string;
let certs: string;
const SHORT = ['--warmup', '1s', '--duration', '3s', '--interval', '1s', '--no-monitor'];

/** A CA, and a server certificate it signed for DNS:localhost only. */
function makeCertificates(into: string): void {
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: into, stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=txbench test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  execFileSync('sh', ['-c', 'printf "subjectAltName=DNS:localhost\\n" > san.ext'], { cwd: into });
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'san.ext',
    '-out',
    'server.pem',
  );
}

/** Hands the server's key and certificate to the system user a server runs as (when root). */
async function giveTo(user: string, copyAs: string): Promise<{ cert: string; key: string }> {
  const cert = path.join(certs, `${copyAs}.pem`);
  const key = path.join(certs, `${copyAs}.key`);
  execFileSync('cp', [path.join(certs, 'server.pem'), cert]);
  execFileSync('cp', [path.join(certs, 'server.key'), key]);
  execFileSync('chmod', ['0600', key]);
  if (userInfo().uid === 0) {
    const id = (flag: string): number =>
      Number(execFileSync('id', [flag, user], { encoding: 'utf8' }).trim());
    await chown(cert, id('-u'), id('-g'));
    await chown(key, id('-u'), id('-g'));
  }
  return { cert, key };
}

/** Every file under `root`, recursively. */
async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(root, { withFileTypes: true })) {
    const p = path.join(root, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else out.push(p);
  }
  return out;
}

/** Runs a short TLS run with --json, then `report`, and checks no file written holds `password`. */
async function expectNoPasswordWritten(url: string, password: string, name: string): Promise<void> {
  const out = path.join(dir, `results-${name}`);
  const json = path.join(dir, `${name}.json`);
  const html = path.join(dir, `${name}.html`);
  const r = await runCli(dir, ['run', '--db', url, ...SHORT, '--out', out, '--json', json], 120_000);
  expect(r.code, r.stderr).toBe(0);
  const report = await runCli(dir, ['report', out, '--out', html]);
  expect(report.code, report.stderr).toBe(0);
  const files = [...(await filesUnder(out)), json, html];
  expect(files.some((f) => f.endsWith('run.json'))).toBe(true);
  expect(files.some((f) => f.endsWith('intervals.ndjson'))).toBe(true);
  for (const f of files) {
    expect((await stat(f)).size, f).toBeGreaterThan(0);
    const text = await readFile(f, 'utf8');
    expect(text.includes(password), `${f} holds the password`).toBe(false);
    expect(text.includes(encodeURIComponent(password)), `${f} holds the password`).toBe(false);
  }
  expect(r.stdout + r.stderr + report.stdout + report.stderr).not.toContain(password);
}

function expectRefusedHostName(
  r: { code: number | null; stdout: string; stderr: string },
  password: string,
): void {
  expect(r.code, r.stderr).toBe(3);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/TLS to .*127\.0\.0\.1.* failed: .*(altnames|localhost)/i);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout + r.stderr).not.toContain(password);
}

beforeAll(async () => {
  dir = await makeTempDir('txbench-tls-');
  certs = path.join(dir, 'certs');
  execFileSync('mkdir', ['-m', '0755', certs]);
  makeCertificates(certs);
});

afterAll(async () => {
  await removeDir(dir);
});

describe('PostgreSQL 15 accepting only TLS (hostssl), certificate for localhost', () => {
  let pg: PgCtlServer;
  // Trust authentication ignores it, but txbench is given it like any password and must not write it.
  const password = 'Pg-Secret-7f3a';
  const urlFor = (host: string, mode: string): string =>
    `postgres://postgres:${password}@${host}:${pg.port}/postgres?sslmode=${mode}&sslrootcert=${encodeURIComponent(path.join(certs, 'ca.pem'))}`;

  beforeAll(async () => {
    const { cert, key } = await giveTo('postgres', 'pg');
    pg = await startPgCtlServer({
      settings: ['ssl=on', `ssl_cert_file=${cert}`, `ssl_key_file=${key}`],
      hba: 'hostssl all all 127.0.0.1/32 trust\nhostssl all all ::1/128 trust\n',
    });
  }, 120_000);

  afterAll(async () => {
    await pg?.stop();
  });

  it('verify-full with the CA and the host name the certificate names: load and run, no password written', async () => {
    const url = urlFor('localhost', 'verify-full');
    const load = await runCli(dir, ['load', '--db', url, '--warehouses', '1'], 300_000);
    expect(load.code, load.stderr).toBe(0);
    await expectNoPasswordWritten(url, password, 'pg');
  }, 400_000);

  it('verify-full with a host name the certificate does not name: refused, one line, exit 3', async () => {
    const r = await runCli(dir, ['run', '--db', urlFor('127.0.0.1', 'verify-full'), ...SHORT]);
    expectRefusedHostName(r, password);
  });

  it('without TLS the server refuses: the hostssl rule is what made the runs above encrypted', async () => {
    const r = await runCli(dir, [
      'run',
      '--db',
      `postgres://postgres:${password}@127.0.0.1:${pg.port}/postgres`,
      ...SHORT,
    ]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/pg_hba|no encryption|refused/);
  });
});

describe('MariaDB with TLS, its user REQUIRE SSL, certificate for localhost', () => {
  let maria: MariaDbServer;
  let password: string;
  const urlFor = (host: string, mode: string): string => {
    const u = new URL(maria.url);
    u.hostname = host;
    u.searchParams.set('sslmode', mode);
    u.searchParams.set('sslca', path.join(certs, 'ca.pem'));
    return u.toString();
  };

  beforeAll(async () => {
    const { cert, key } = await giveTo('mysql', 'maria');
    maria = await startMariaDb([
      `--ssl-ca=${path.join(certs, 'ca.pem')}`,
      `--ssl-cert=${cert}`,
      `--ssl-key=${key}`,
    ]);
    password = decodeURIComponent(new URL(maria.url).password);
    const root = await mysql.createConnection(maria.rootUrl);
    try {
      await root.query(`alter user '${decodeURIComponent(new URL(maria.url).username)}'@'%' require ssl`);
    } finally {
      await root.end();
    }
  }, 120_000);

  afterAll(async () => {
    await maria?.stop();
  });

  it('verify-full with the CA and the host name the certificate names: load and run, no password written', async () => {
    const url = urlFor('localhost', 'verify-full');
    const load = await runCli(dir, ['load', '--db', url, '--warehouses', '1'], 300_000);
    expect(load.code, load.stderr).toBe(0);
    await expectNoPasswordWritten(url, password, 'maria');
  }, 400_000);

  it('verify-full with a host name the certificate does not name: refused, one line, exit 3', async () => {
    const r = await runCli(dir, ['run', '--db', urlFor('127.0.0.1', 'verify-full'), ...SHORT]);
    expectRefusedHostName(r, password);
  });
});

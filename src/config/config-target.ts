/**
 * One `targets:` entry of a config file as what `--db`/`--data-dir` take: a URL with the password
 * read from the environment or a file (an inline one is refused), or a data directory.
 */
import { readFileSync } from 'node:fs';
import type { ConfigTarget, ConfigValue } from './config-types.js';
import type { Report } from './interpolate.js';

/** One `targets:` entry as a URL (with the password read), or a data directory. */
export function resolveTarget(
  t: Record<string, ConfigValue>,
  where: string,
  env: NodeJS.ProcessEnv,
  report: Report,
): ConfigTarget {
  const str = (k: string): string | undefined => (typeof t[k] === 'string' ? t[k] : undefined);
  const given = (['url', 'host', 'dataDir'] as const).filter((k) => t[k] !== undefined);
  const out: ConfigTarget = {
    label: str('label'),
    nodeExporter: str('nodeExporter'),
    device: str('device'),
  };
  if (given.length !== 1) {
    report(
      where,
      given.length === 0
        ? 'needs a url, a host or a dataDir'
        : `give one of ${given.join(', ')}, not several`,
    );
    return out;
  }
  const passwordEnv = str('passwordEnv');
  const passwordFile = str('passwordFile');
  if (passwordEnv !== undefined && passwordFile !== undefined) {
    report(where, 'give passwordEnv or passwordFile, not both');
    return out;
  }
  if (given[0] === 'dataDir') {
    if (passwordEnv !== undefined || passwordFile !== undefined) {
      report(where, 'an embedded PostgreSQL (dataDir) takes no password; drop passwordEnv/passwordFile');
    }
    return { ...out, dataDir: str('dataDir') };
  }
  for (const k of ['kind', 'port', 'user', 'database'] as const) {
    if (given[0] === 'url' && t[k] !== undefined)
      report(`${where}.${k}`, 'goes with host, not with url; put it in the url');
  }
  let url: URL;
  try {
    url = given[0] === 'url' ? new URL(str('url')!) : urlFromParts(t);
  } catch {
    report(`${where}.${given[0]}`, 'is not a valid URL (check its form: postgres://user@host:5432/db)');
    return out;
  }
  const inline = url.password !== '' || [...url.searchParams.keys()].some((k) => /pass(word)?|pwd/i.test(k));
  if (inline) {
    report(
      `${where}.url`,
      'has a password in it, which is refused; take it out and name passwordEnv or passwordFile',
    );
    return out;
  }
  let password: string | undefined;
  if (passwordEnv !== undefined) {
    password = env[passwordEnv];
    if (password === undefined || password === '') {
      report(`${where}.passwordEnv`, `${passwordEnv} is not set in the environment`);
      return out;
    }
  } else if (passwordFile !== undefined) {
    try {
      password = readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      report(
        `${where}.passwordFile`,
        `cannot read ${passwordFile} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
      return out;
    }
  }
  if (password !== undefined) {
    if (url.host === '') {
      report(where, `a ${url.protocol} target takes no password; drop passwordEnv/passwordFile`);
      return out;
    }
    // The URL setter percent-encodes what a password may hold (@, /, :).
    url.password = password;
  }
  return { ...out, url: url.toString() };
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  postgres: 5432,
  mysql: 3306,
  mariadb: 3306,
  mssql: 1433,
};

function urlFromParts(t: Record<string, ConfigValue>): URL {
  const kind = typeof t.kind === 'string' ? t.kind : 'postgres';
  const url = new URL(`${kind}://${String(t.host)}`);
  url.port = String(typeof t.port === 'number' ? t.port : DEFAULT_PORTS[kind]);
  if (typeof t.user === 'string') url.username = t.user;
  if (typeof t.database === 'string') url.pathname = `/${encodeURIComponent(t.database)}`;
  return url;
}

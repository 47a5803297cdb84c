/**
 * TLS options in a PostgreSQL URL, as libpq reads them: `sslmode` (disable, allow, prefer,
 * require, verify-ca, verify-full) with `sslrootcert`, `sslcert` and `sslkey` naming PEM files.
 * postgres.js reads `sslmode` but not the files (it would send them to the server as settings),
 * so they are taken out of the URL here and given to it as Node TLS options. verify-full checks
 * the host name in the URL against the certificate (an IP address against its IP SANs).
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { UsageError } from '../../errors.js';
import { redactUrl } from '../../util/redact.js';

const FILE_KEYS = ['sslrootcert', 'sslcert', 'sslkey'] as const;

export interface PostgresTls {
  /** The URL without the file options. */
  url: string;
  /** postgres.js's `ssl` option; undefined: as the URL's sslmode says (or none). */
  ssl: ConnectionOptions | undefined;
}

export function postgresTls(url: string): PostgresTls {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, ssl: undefined };
  }
  const params = parsed.searchParams;
  const files = Object.fromEntries(FILE_KEYS.map((k) => [k, params.get(k) ?? undefined])) as Record<
    (typeof FILE_KEYS)[number],
    string | undefined
  >;
  const mode = params.get('sslmode') ?? undefined;
  if (FILE_KEYS.every((k) => files[k] === undefined) && mode !== 'verify-ca') return { url, ssl: undefined };
  if (mode === undefined || mode === 'disable') return { url: withoutFiles(parsed), ssl: undefined };
  const read = (key: string, file: string | undefined): Buffer | undefined => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new UsageError(
        `${key}=${file} in ${redactUrl(url)}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)}); name a PEM file`,
      );
    }
  };
  const host = decodeURIComponent(parsed.hostname.replace(/^\[(.*)\]$/, '$1')) || 'localhost';
  const verify = mode === 'verify-ca' || mode === 'verify-full' || files.sslrootcert !== undefined;
  const ssl: ConnectionOptions = {
    rejectUnauthorized: verify && mode !== 'allow' && mode !== 'prefer',
    // The name checked against the certificate: the URL's host, as libpq does.
    host,
    ...(mode === 'verify-full' ? {} : { checkServerIdentity: () => undefined }),
  };
  const ca = read('sslrootcert', files.sslrootcert);
  const cert = read('sslcert', files.sslcert);
  const key = read('sslkey', files.sslkey);
  if (ca) ssl.ca = ca;
  if (cert) ssl.cert = cert;
  if (key) ssl.key = key;
  // postgres.js still needs the mode from the URL to ask for TLS; the object replaces its own.
  return { url: withoutFiles(parsed), ssl };
}

function withoutFiles(parsed: URL): string {
  const u = new URL(parsed.toString());
  for (const k of FILE_KEYS) u.searchParams.delete(k);
  u.searchParams.delete('sslmode');
  return u.toString();
}

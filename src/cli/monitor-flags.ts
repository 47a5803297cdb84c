/**
 * The monitoring flags' values, validated before anything starts: a node_exporter URL, a disk's
 * kernel name (whether the disk is there is checked as the targets open: run/open-targets.ts),
 * and the address of the live metrics endpoint.
 */
import { UsageError } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import { parseIntFlag } from './args.js';

/** Where `--metrics-port` serves the live run. */
export interface MetricsEndpoint {
  host: string;
  port: number;
}

export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** `--node-exporter URL`: http or https with a host (the URL may carry credentials: never echoed). */
export function nodeExporterUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined || !['http:', 'https:'].includes(url.protocol) || url.hostname === '') {
    throw new UsageError(
      `--node-exporter must be an http:// or https:// URL such as http://db1:9100, not "${redactUrl(value)}"`,
    );
  }
  return value;
}

/** `--device NAME`: a kernel disk name as lsblk shows it (`/dev/` in front is dropped). */
export function deviceName(value: string): string {
  const name = value.startsWith('/dev/') ? value.slice('/dev/'.length) : value;
  if (!/^[A-Za-z0-9][\w.:+-]{0,63}$/.test(name)) {
    throw new UsageError(
      `--device must be a disk's kernel name such as nvme0n1, sda or vda (as lsblk shows it), not "${value}"`,
    );
  }
  return name;
}

/** `--metrics-port` and `--metrics-host`: undefined when no port is given. */
export function metricsEndpoint(
  port: string | undefined,
  host: string | undefined,
): MetricsEndpoint | undefined {
  if (port === undefined) {
    if (host !== undefined) throw new UsageError('--metrics-host needs --metrics-port PORT');
    return undefined;
  }
  return {
    host: metricsHost(host ?? DEFAULT_METRICS_HOST),
    port: parseIntFlag('metrics-port', port, 1, 65535),
  };
}

/** A host name or an IP address (an IPv6 address may come in brackets). */
function metricsHost(value: string): string {
  const host = /^\[(.*)\]$/.exec(value)?.[1] ?? value;
  if (!/^[A-Za-z0-9._:%-]{1,253}$/.test(host)) {
    throw new UsageError(
      `--metrics-host must be a host name or IP address such as 127.0.0.1 or 0.0.0.0, not "${value}"`,
    );
  }
  return host;
}

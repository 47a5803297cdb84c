import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceName, metricsEndpoint, nodeExporterUrl } from '../../src/cli/monitor-flags.js';
import { checkDeviceHere } from '../../src/run/open-targets.js';
import { parseRunOptions } from '../../src/cli/run.js';
import { targetOptionsFrom } from '../../src/cli/target.js';
import { ExitCode, UsageError } from '../../src/errors.js';
import { resolveTarget } from '../../src/targets/target.js';
import { findWorkload } from '../../src/workloads/registry.js';

const TPCC = await findWorkload('tpcc');

/** Runs `fn` and returns the one-line UsageError it throws (failing the test otherwise). */
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).exitCode).toBe(ExitCode.usage);
    expect((err as UsageError).message).not.toContain('\n');
    return err as UsageError;
  }
  throw new Error('expected a UsageError, but nothing was thrown');
}

describe('--node-exporter and --device: per target, like --label', () => {
  it('each applies to the target before it', () => {
    expect(
      targetOptionsFrom([
        '--db',
        'postgres://db1/x',
        '--label',
        'vm1',
        '--node-exporter',
        'http://db1:9100',
        '--device=nvme0n1',
        '--data-dir',
        '/d2',
        '--device',
        'vdb',
        '--terminals',
        '5',
      ]),
    ).toEqual([
      { db: 'postgres://db1/x', label: 'vm1', nodeExporter: 'http://db1:9100', device: 'nvme0n1' },
      { dataDir: '/d2', device: 'vdb' },
    ]);
  });

  it('before any target they describe the first (or the only, default) one', () => {
    expect(targetOptionsFrom(['--device', 'sda', '--node-exporter=https://h:9100/metrics'])).toEqual([
      { device: 'sda', nodeExporter: 'https://h:9100/metrics' },
    ]);
    expect(targetOptionsFrom(['--device', 'sda', '--db', 'postgres://a/x', '--label', 'a'])).toEqual([
      { db: 'postgres://a/x', label: 'a', device: 'sda' },
    ]);
  });

  it('a /dev/ prefix is dropped', () => {
    expect(targetOptionsFrom(['--device', '/dev/nvme0n1'])).toEqual([{ device: 'nvme0n1' }]);
  });

  it('refuses two of the same for one target, and one before any target plus one after the first', () => {
    const twice = usageError(() =>
      targetOptionsFrom(['--db', 'postgres://a/x', '--device', 'sda', '--device', 'sdb']),
    );
    expect(twice.message).toMatch(
      /--device "sdb" follows a target that already has one; give one --device per/,
    );
    usageError(() => targetOptionsFrom(['--device', 'sda', '--db', 'postgres://a/x', '--device', 'sdb']));
    usageError(() =>
      targetOptionsFrom([
        '--db',
        'postgres://a/x',
        '--node-exporter',
        'http://a:9100',
        '--node-exporter',
        'http://b:9100',
      ]),
    );
  });

  it('resolveTarget carries them into the spec, for a URL and for the embedded server', () => {
    expect(
      resolveTarget({ db: 'postgres://h/db', nodeExporter: 'http://h:9100', device: 'sdb' }, {}),
    ).toEqual({
      kind: 'url',
      url: 'postgres://h/db',
      label: 'h:5432/db',
      nodeExporter: 'http://h:9100',
      device: 'sdb',
    });
    expect(resolveTarget({ dataDir: '/mnt/pg', device: 'vdb' }, {})).toEqual({
      kind: 'embedded',
      dataDir: '/mnt/pg',
      label: 'embedded:/mnt/pg',
      device: 'vdb',
    });
    expect(resolveTarget({}, {})).not.toHaveProperty('device');
  });
});

describe('nodeExporterUrl', () => {
  it.each(['http://db1:9100', 'https://db1.example:9100/metrics', 'http://10.0.0.5:9100'])(
    'accepts %s',
    (url) => {
      expect(nodeExporterUrl(url)).toBe(url);
    },
  );

  it.each(['db1:9100', 'ftp://db1:9100', 'postgres://db1/x', 'http://', 'not a url', ''])(
    'refuses %j with a one-line usage error naming the flag',
    (url) => {
      expect(usageError(() => nodeExporterUrl(url)).message).toMatch(
        /^--node-exporter must be an http:\/\/ or https:\/\/ URL/,
      );
    },
  );

  it('never echoes a password in the URL', () => {
    const err = usageError(() => nodeExporterUrl('ftp://u:sekret@h:9100'));
    expect(err.message).not.toContain('sekret');
    expect(
      usageError(() => targetOptionsFrom(['--node-exporter', 'ftp://u:sekret@h'])).message,
    ).not.toContain('sekret');
  });
});

describe('deviceName', () => {
  it.each([
    ['nvme0n1', 'nvme0n1'],
    ['sda', 'sda'],
    ['dm-0', 'dm-0'],
    ['md127', 'md127'],
    ['/dev/vda', 'vda'],
  ])('accepts %s as %s', (value, name) => {
    expect(deviceName(value)).toBe(name);
  });

  it.each(['', '/dev/', 'mapper/vg-lv', '/dev/mapper/vg-lv', '../sda', '-sda', 'sd a', 'x'.repeat(65)])(
    'refuses %j',
    (value) => {
      expect(usageError(() => deviceName(value)).message).toMatch(/^--device must be a disk's kernel name/);
    },
  );
});

describe('checkDeviceHere: a disk read from this machine must be here', () => {
  let sys: string;

  beforeAll(() => {
    sys = mkdtempSync(path.join(tmpdir(), 'txbench-sys-'));
    mkdirSync(path.join(sys, 'block', 'vda'), { recursive: true });
    mkdirSync(path.join(sys, 'class', 'block', 'vda1'), { recursive: true });
  });

  afterAll(() => rmSync(sys, { recursive: true, force: true }));

  const embedded = (device?: string, nodeExporter?: string) =>
    resolveTarget({ dataDir: '/d', device, nodeExporter }, {});

  it('a whole disk in /sys/block passes; no --device passes', () => {
    expect(() => checkDeviceHere(embedded('vda'), sys)).not.toThrow();
    expect(() => checkDeviceHere(embedded(), sys)).not.toThrow();
  });

  it('a missing disk is a one-line usage error naming it and what to do', () => {
    const err = usageError(() => checkDeviceHere(embedded('nvme9n9'), sys));
    expect(err.message).toContain('--device nvme9n9: no such disk on this machine');
    expect(err.message).toContain('--node-exporter');
  });

  it('a partition is named as such', () => {
    expect(usageError(() => checkDeviceHere(embedded('vda1'), sys)).message).toMatch(/vda1 is a partition/);
  });

  it('with a node_exporter the disk is on the other host: not checked here', () => {
    expect(() => checkDeviceHere(embedded('nvme9n9', 'http://db1:9100'), sys)).not.toThrow();
  });

  it('a URL target without a node_exporter is checked here too (its disk is read from /proc)', () => {
    usageError(() => checkDeviceHere(resolveTarget({ db: 'postgres://h/db', device: 'nvme9n9' }, {}), sys));
  });
});

describe('metricsEndpoint', () => {
  it('no --metrics-port: no endpoint', () => {
    expect(metricsEndpoint(undefined, undefined)).toBeUndefined();
  });

  it('the host defaults to 127.0.0.1', () => {
    expect(metricsEndpoint('9464', undefined)).toEqual({ host: '127.0.0.1', port: 9464 });
  });

  it('takes a host name or an address, IPv6 with or without brackets', () => {
    expect(metricsEndpoint('1', '0.0.0.0')).toEqual({ host: '0.0.0.0', port: 1 });
    expect(metricsEndpoint('65535', 'bench-host.local')).toEqual({ host: 'bench-host.local', port: 65535 });
    expect(metricsEndpoint('9464', '[::1]')).toEqual({ host: '::1', port: 9464 });
  });

  it.each(['0', '65536', 'abc', '-1', '80.5'])('refuses port %j', (port) => {
    expect(usageError(() => metricsEndpoint(port, undefined)).message).toMatch(
      /^--metrics-port must be a whole number from 1 to 65535/,
    );
  });

  it.each(['', 'a b', 'http://h', 'h/x'])('refuses host %j', (host) => {
    expect(usageError(() => metricsEndpoint('9464', host)).message).toMatch(/^--metrics-host must be/);
  });

  it('--metrics-host without --metrics-port is refused', () => {
    expect(usageError(() => metricsEndpoint(undefined, '0.0.0.0')).message).toBe(
      '--metrics-host needs --metrics-port PORT',
    );
  });
});

describe('run options: monitoring', () => {
  it('monitoring is on unless --no-monitor; no metrics endpoint unless --metrics-port', () => {
    expect(parseRunOptions({}, TPCC, 'tpcc', {})).toMatchObject({ monitor: true, metrics: undefined });
    expect(parseRunOptions({ 'no-monitor': true }, TPCC, 'tpcc', {}).monitor).toBe(false);
    expect(
      parseRunOptions({ 'metrics-port': '9464', 'metrics-host': '0.0.0.0' }, TPCC, 'tpcc', {}).metrics,
    ).toEqual({
      host: '0.0.0.0',
      port: 9464,
    });
  });

  it('--no-monitor with --device or --node-exporter is a contradiction', () => {
    expect(
      usageError(() => parseRunOptions({ 'no-monitor': true, device: ['sda'] }, TPCC, 'tpcc', {})).message,
    ).toBe('--no-monitor turns monitoring off; drop --device or --no-monitor');
    usageError(() =>
      parseRunOptions({ 'no-monitor': true, 'node-exporter': ['http://h:9100'] }, TPCC, 'tpcc', {}),
    );
  });
});

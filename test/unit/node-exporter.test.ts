/**
 * Snapshots from node_exporter's text, over a recorded /metrics page of node_exporter 1.5 (its
 * HELP/TYPE lines, a Go summary, two CPUs, memory) whose diskstats list NVMe namespaces with their
 * partitions, a SATA disk and its partition, an md array and an LVM volume.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  isPartitionOf,
  NodeExporterSource,
  parseNodeExporter,
  requireDisk,
} from '../../src/monitor/node-exporter.js';

const RECORDED = readFileSync(new URL('../fixtures/node-exporter-1.5.txt', import.meta.url), 'utf8');

describe('parseNodeExporter', () => {
  const snapshot = parseNodeExporter(RECORDED, 1234.5);

  it('keeps whole disks only: no partition beside its disk, no dm-* or md* above the disks', () => {
    expect([...snapshot.disks.keys()].sort()).toEqual(['nvme0n1', 'nvme1n1', 'sda']);
    expect(snapshot.atMs).toBe(1234.5);
  });

  it('gives each disk the counters /proc/diskstats would: bytes, and whole milliseconds from seconds', () => {
    expect(snapshot.disks.get('nvme0n1')).toEqual({
      readsCompleted: 120345,
      readBytes: 3210905600,
      readMs: 45678,
      writesCompleted: 987654,
      writtenBytes: 56789012480,
      writeMs: 321987,
      inFlight: 3,
      busyMs: 210500,
      weightedMs: 400123,
    });
    expect(snapshot.disks.get('sda')).toMatchObject({ readMs: 9876, busyMs: 9500, writtenBytes: 0 });
  });

  it('sums CPU seconds by mode over the CPUs, and counts the CPUs', () => {
    expect(snapshot.cpus).toBe(2);
    const cpu = snapshot.cpu!;
    expect(cpu.user).toBeCloseTo(1432.18 + 1530.23, 6);
    expect(cpu.system).toBeCloseTo(453.69 + 474, 6);
    expect(cpu.idle).toBeCloseTo(835.29 + 699.14, 6);
    expect(cpu.iowait).toBeCloseTo(16.13 + 25.75, 6);
    expect(cpu.softirq).toBeCloseTo(17.06 + 24.89, 6);
    expect({ nice: cpu.nice, irq: cpu.irq, steal: cpu.steal }).toEqual({ nice: 0, irq: 0, steal: 0 });
  });

  it('memory used is MemTotal − MemAvailable, page cache Cached + Buffers, in MB of 10^6 bytes', () => {
    expect(snapshot.memory).toEqual({
      usedMB: Math.round((25275953152 - 24093200384) / 1e6),
      pageCacheMB: Math.round((2210193408 + 32509952) / 1e6),
    });
  });

  it('keeps a device the user names, even a dm-*, md* or partition', () => {
    const named = parseNodeExporter(RECORDED, 0, ['dm-0', 'nvme0n1p2']);
    expect([...named.disks.keys()].sort()).toEqual(['dm-0', 'nvme0n1', 'nvme0n1p2', 'nvme1n1', 'sda']);
  });

  it('keeps a partition whose disk is not listed (an exporter configured to show partitions only)', () => {
    const only = RECORDED.split('\n')
      .filter((l) => !/device="(?!sda1")/.test(l))
      .join('\n');
    expect([...parseNodeExporter(only, 0).disks.keys()]).toEqual(['sda1']);
  });

  it('leaves out a disk missing one of its counters, rather than inventing a zero', () => {
    const partial = RECORDED.split('\n')
      .filter((l) => !l.startsWith('node_disk_io_time_weighted_seconds_total{device="sda"}'))
      .join('\n');
    expect([...parseNodeExporter(partial, 0).disks.keys()].sort()).toEqual(['nvme0n1', 'nvme1n1']);
  });

  it('an exporter without the cpu, meminfo or diskstats collectors: those parts undefined or empty', () => {
    const bare = parseNodeExporter('# TYPE node_boot_time_seconds gauge\nnode_boot_time_seconds 1.7e9\n', 0);
    expect(bare).toEqual({ atMs: 0, disks: new Map(), cpu: undefined, cpus: undefined, memory: undefined });
  });

  it('reads the last sample of a text without a final newline', () => {
    const text = 'node_memory_MemAvailable_bytes 4e+09\nnode_memory_MemTotal_bytes 8e+09';
    expect(parseNodeExporter(text, 0).memory).toEqual({ usedMB: 4000, pageCacheMB: 0 });
  });

  it('a kernel without MemAvailable: free memory plus page cache stands in for it', () => {
    const text = [
      'node_memory_MemTotal_bytes 8e+09',
      'node_memory_MemFree_bytes 1e+09',
      'node_memory_Cached_bytes 2.5e+09',
      'node_memory_Buffers_bytes 5e+08',
      '',
    ].join('\n');
    expect(parseNodeExporter(text, 0).memory).toEqual({ usedMB: 4000, pageCacheMB: 3000 });
  });

  it('throws on text that is not Prometheus exposition', () => {
    expect(() => parseNodeExporter('# TYPE a counter extra\n', 0)).toThrow();
  });
});

describe('isPartitionOf', () => {
  it.each([
    ['sda1', 'sda', true],
    ['vda15', 'vda', true],
    ['nvme0n1p2', 'nvme0n1', true],
    ['mmcblk0p1', 'mmcblk0', true],
    ['md0p1', 'md0', true],
    ['nvme0n10', 'nvme0n1', false],
    ['dm-10', 'dm-1', false],
    ['sdaa', 'sda', false],
    ['sdaa1', 'sda', false],
    ['sda', 'sda', false],
    ['nvme0n1', 'nvme0n1p1', false],
  ])('%s of %s: %s', (name, disk, expected) => {
    expect(isPartitionOf(name, disk)).toBe(expected);
  });
});

describe('requireDisk', () => {
  const snapshot = parseNodeExporter(RECORDED, 0);

  it('passes a listed disk', () => {
    expect(() => requireDisk(snapshot, 'nvme1n1', 'node_exporter http://db1:9100/metrics')).not.toThrow();
  });

  it('a disk the exporter does not list: a usage error naming the ones it does', () => {
    expect(() => requireDisk(snapshot, 'sdz', 'node_exporter http://db1:9100/metrics')).toThrow(
      new UsageError(
        '--device sdz: node_exporter http://db1:9100/metrics lists no such disk; it lists nvme0n1, nvme1n1, sda',
      ),
    );
  });
});

describe('NodeExporterSource', () => {
  it('adds /metrics to a bare address and keeps a path that is given', () => {
    expect(new NodeExporterSource('http://db1:9100').description).toBe(
      'node_exporter http://db1:9100/metrics',
    );
    expect(new NodeExporterSource('https://db1/node/metrics').description).toBe(
      'node_exporter https://db1/node/metrics',
    );
  });

  it.each(['db1:9100', 'ftp://db1:9100', 'not a url'])('refuses %s with a usage error', (url) => {
    expect(() => new NodeExporterSource(url)).toThrow(UsageError);
    expect(() => new NodeExporterSource(url)).toThrow(/give one like http:\/\/db1:9100$/);
  });
});

import { describe, expect, it } from 'vitest';
import {
  clientCpuCount,
  clientCpuList,
  forkOnClientCpus,
  onClientCpus,
  placed,
  placementText,
  processTree,
} from '../../src/bench/placement.js';
import { sysbenchWorkers } from '../../src/bench/sysbench.js';

describe('placement of the turns', () => {
  it('gives the client every CPU but the last, which is the server’s', () => {
    expect(clientCpuList(2)).toBe('0');
    expect(clientCpuList(4)).toBe('0-2');
  });

  it('counts the CPUs the client may run on', () => {
    expect(clientCpuCount({ kind: 'apart', serverCpu: 1, clientCpus: '0' }, 2)).toBe(1);
    expect(clientCpuCount({ kind: 'apart', serverCpu: 3, clientCpus: '0-2' }, 4)).toBe(3);
    expect(clientCpuCount({ kind: 'scheduler', why: 'one CPU' }, 4)).toBe(4);
    expect(clientCpuCount(undefined, 2)).toBe(2);
  });

  it('gives txbench a worker per client CPU, at most one per terminal', () => {
    const onOne = { kind: 'apart' as const, serverCpu: 1, clientCpus: '0' };
    expect(sysbenchWorkers(4, onOne)).toBe(1);
    expect(sysbenchWorkers(1, { kind: 'apart', serverCpu: 3, clientCpus: '0-2' })).toBe(1);
    expect(sysbenchWorkers(4, { kind: 'apart', serverCpu: 3, clientCpus: '0-2' })).toBe(3);
  });

  it('leaves the turns to the scheduler when told to share, and says so', async () => {
    const seen = await placed('shared', process.pid, async (p) => p);
    expect(seen).toEqual({ kind: 'scheduler', why: 'BENCH_PLACEMENT=shared' });
    expect(placementText(seen)).toBe('scheduler (BENCH_PLACEMENT=shared)');
  });

  it('starts a program through taskset only when there are CPUs to pin it to', () => {
    expect(onClientCpus(undefined, 'bash', ['-c', 'x'])).toEqual(['bash', ['-c', 'x']]);
    expect(onClientCpus('0', 'bash', ['-c', 'x'])).toEqual(['taskset', ['-c', '0', 'bash', '-c', 'x']]);
  });

  it('forks Node.js through taskset with its own flags after it', () => {
    expect(forkOnClientCpus(undefined, ['--x'])).toEqual({ execArgv: ['--x'] });
    expect(forkOnClientCpus('0-2', ['--x'])).toEqual({
      execPath: 'taskset',
      execArgv: ['-c', '0-2', process.execPath, '--x'],
    });
  });

  it('names the placement for the table', () => {
    expect(placementText(undefined)).toBe('scheduler');
    expect(placementText({ kind: 'apart', serverCpu: 1, clientCpus: '0' })).toBe('server 1, client 0');
    expect(placementText({ kind: 'scheduler', why: 'one CPU' })).toBe('scheduler (one CPU)');
  });

  it('finds this process at the top of its own tree', () => {
    const tree = processTree(process.pid);
    expect(tree[0]).toBe(process.pid);
    expect(new Set(tree).size).toBe(tree.length);
  });
});

import { describe, expect, it } from 'vitest';
import {
  clientCpuList,
  forkOnClientCpus,
  onClientCpus,
  placementText,
  processTree,
} from '../../src/bench/placement.js';

describe('placement of the one-thread turns', () => {
  it('gives the client every CPU but the last, which is the server’s', () => {
    expect(clientCpuList(2)).toBe('0');
    expect(clientCpuList(4)).toBe('0-2');
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

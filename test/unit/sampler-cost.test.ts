import { describe, expect, it } from 'vitest';
import { measureSamplerCost } from '../../src/bench/sampler-cost.js';
import { ZERO_COUNTERS } from '../../src/monitor/figures.js';
import type { SystemSnapshot, SystemSource } from '../../src/monitor/types.js';

describe('measureSamplerCost', () => {
  it('takes the samples asked for through a real Sampler and reports CPU per sample', async () => {
    let calls = 0;
    const source: SystemSource = {
      description: 'counting source',
      snapshot: async (): Promise<SystemSnapshot> => {
        calls += 1;
        return {
          atMs: calls * 1000,
          disks: new Map([['vda', { ...ZERO_COUNTERS, writesCompleted: calls }]]),
        };
      },
    };
    const cost = await measureSamplerCost({ samples: 20, source, devices: [{ name: 'vda', role: 'data' }] });
    // start, openWindow, 50 warm-up samples, the 20 measured, closeWindow.
    expect(calls).toBe(73);
    expect(cost.samples).toBe(20);
    expect(cost.cpuUsPerSample).toBeGreaterThanOrEqual(0);
    expect(cost.pctOfOneCoreAt1s).toBeCloseTo(cost.cpuUsPerSample / 1e4, 1);
  });
});

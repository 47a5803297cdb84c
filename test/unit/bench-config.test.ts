/** The bench's settings from the environment: the sections, section 7's and 10's scripts and placement. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/bench/config.js';

describe('bench config: BENCH_SYSBENCH_SCRIPTS', () => {
  it('runs all three scripts unless some are picked, in sections 7 and 10 alike', () => {
    const all = loadConfig({});
    expect(all.sysbench.scripts).toEqual(['oltp_point_select', 'oltp_read_only', 'oltp_read_write']);
    const picked = loadConfig({ BENCH_SYSBENCH_SCRIPTS: 'oltp_read_write, oltp_read_only' });
    expect(picked.sysbench.scripts).toEqual(['oltp_read_write', 'oltp_read_only']);
    expect(picked.floor.scripts).toEqual(['oltp_read_write', 'oltp_read_only']);
  });

  it('names a script it does not run, and the ones it does', () => {
    expect(() => loadConfig({ BENCH_SYSBENCH_SCRIPTS: 'oltp_point_select,oltp_insert' })).toThrow(
      'BENCH_SYSBENCH_SCRIPTS must be a comma-separated list of oltp_point_select, oltp_read_only, oltp_read_write, not "oltp_insert"',
    );
  });
});

describe('bench config: BENCH_SECTIONS', () => {
  it('brings section 1 along with 2 or 6, which run on its database', () => {
    expect([...loadConfig({ BENCH_SECTIONS: '2' }).sections].sort()).toEqual([1, 2]);
    expect([...loadConfig({ BENCH_SECTIONS: '6,7' }).sections].sort()).toEqual([1, 6, 7]);
    expect([...loadConfig({ BENCH_SECTIONS: '7,10' }).sections].sort((a, b) => a - b)).toEqual([7, 10]);
  });
});

describe('bench config: BENCH_PLACEMENT', () => {
  it('pins sections 7 and 10 apart unless told to share', () => {
    expect(loadConfig({}).sysbench.placement).toBe('apart');
    const shared = loadConfig({ BENCH_PLACEMENT: 'shared' });
    expect([shared.sysbench.placement, shared.floor.placement]).toEqual(['shared', 'shared']);
  });

  it('names the two placements when given another', () => {
    expect(() => loadConfig({ BENCH_PLACEMENT: 'pinned' })).toThrow(
      'BENCH_PLACEMENT must be apart or shared, not "pinned"',
    );
  });
});

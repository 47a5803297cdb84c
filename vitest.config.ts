import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/slow-first-sequencer.js';

/**
 * Integration files whose assertions depend on how steady the machine's load is: a warm-up that
 * must settle by the SNIA rule, figures compared with iostat's over the same seconds, fault
 * timeouts with a grace period a stalled event loop can miss, a server counter whose late flush
 * grows with the load (server-tpm failed at a load of 34 on 2 cores, as it was, 2026-12-04).
 * They run alone, after the others.
 */
const RUN_ALONE = [
  'test/integration/faults.test.ts',
  'test/integration/server-tpm.test.ts',
  'test/integration/steady-state.test.ts',
  'test/integration/monitor-run.test.ts',
  'test/integration/monitor-iostat.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        // Pure logic, no servers: files share the cores. The group runs first, alone.
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // Two files side by side: much of a file's time is fixed-length runs, servers starting and
        // --start-at waits, which leave the cores to the other file. Their assertions hold on a
        // loaded machine (counts, audits, sums, schema; no rates compared between runs).
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: RUN_ALONE,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-alone',
          include: RUN_ALONE,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

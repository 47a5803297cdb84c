import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Integration files that must run alone. The others run two at a time: each starts its own
 * servers on free ports in its own temp directories, and much of a file's time is waiting (server
 * start-up, child processes, fixed run windows).
 * - monitor-iostat, monitor-run, node-exporter: compare figures for this machine's whole disk from
 *   two readers over the same seconds within 10%, which another file's bursts of writes at a
 *   window's edge would break.
 * - faults-disk-db, faults-disk-mariadb (and node-exporter): attach loop devices and mount them as
 *   root, then fill hundreds of MB on the root disk; `losetup --find` picks the first free device
 *   and can race another file's.
 */
const SERIAL_INTEGRATION = [
  'test/integration/monitor-iostat.test.ts',
  'test/integration/monitor-run.test.ts',
  'test/integration/node-exporter.test.ts',
  'test/integration/faults-disk-db.test.ts',
  'test/integration/faults-disk-mariadb.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
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
        test: {
          name: 'integration-parallel',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SERIAL_INTEGRATION],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-serial',
          include: SERIAL_INTEGRATION,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});

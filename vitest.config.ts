import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Integration suites each start their own embedded PostgreSQL; run files one after another
    // so that two servers never compete for this machine's two cores.
    fileParallelism: false,
  },
});

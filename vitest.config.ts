import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-level tests start real servers and child processes; two files at a time keeps a
    // 2-core machine responsive without serialising the whole suite.
    maxWorkers: 2,
  },
});

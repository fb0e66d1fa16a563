import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-level tests start real servers and child processes and spend much of their time
    // waiting on them: on a 2-core machine two files at a time left a third of the CPU idle.
    // Three files used 1.4 of the 2 cores (19 min for `.ci/run` on a clean clone); four fill
    // the rest.
    maxWorkers: 4,
  },
});

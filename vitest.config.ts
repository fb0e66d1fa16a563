import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-level tests start real servers and child processes and spend much of their time
    // waiting on them: on a 2-core machine two files at a time left a third of the CPU idle
    // (17.7 min of suite); three took it to 13.9 min with every test green.
    maxWorkers: 3,
  },
});

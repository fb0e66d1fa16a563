import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-level tests start real servers and child processes and spend much of their time
    // waiting on them: on a 2-core machine two files at a time left a third of the CPU idle.
    // Three files at a time are the fastest measured (`.ci/run` on a clean clone: 19 min 10 s;
    // four: 21 min 6 s, every test green, the machine past saturation).
    maxWorkers: 3,
  },
});

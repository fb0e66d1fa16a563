import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-level tests start real servers and child processes and spend much of their time
    // waiting on them: on a 2-core machine two files at a time left a third of the CPU idle.
    // Three or four files at a time are the same within noise (`.ci/run` on a clean clone, all
    // green: three 19 min 10 s and 21 min 21 s, four 21 min 6 s and 22 min 21 s); three loads
    // the machine less.
    maxWorkers: 3,
  },
});

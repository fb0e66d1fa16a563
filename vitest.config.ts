import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-level tests start real servers and child processes and spend much of their time
    // waiting on them. On this 2-core machine (`.ci/run` on a clean clone, 2026-11-27): three
    // files at a time took 21 min 21 s, four took 19 min 18 s (tests 18.9 against 17.0 min).
    maxWorkers: 4,
  },
});

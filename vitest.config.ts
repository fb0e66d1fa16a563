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
    // expect.poll waits on what a page or a server shows: a condition, not a time. Its default
    // of one second is a timing on a loaded 2-core machine (the browser, the server and two more
    // test files share it), so it waits up to 15 s, asking every 50 ms.
    expect: { poll: { timeout: 15_000, interval: 50 } },
  },
});

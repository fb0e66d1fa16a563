import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Process-level tests start real servers, browsers, database clusters and child processes
    // and spend most of their time waiting on them (fsyncs, timers, children): a clean-clone run
    // with three files at a time used 43 % of the 2 cores' CPU and ran 2.4 files at once on
    // average, 25 minutes for 420 files. Five at a time keeps the cores busy.
    maxWorkers: 5,
    // expect.poll waits on what a page or a server shows: a condition, not a time. Its default
    // of one second is a timing on a loaded 2-core machine (the browser, the server and two more
    // test files share it), so it waits up to 15 s, asking every 50 ms.
    expect: { poll: { timeout: 15_000, interval: 50 } },
  },
});

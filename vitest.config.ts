import { defineConfig } from 'vitest/config';

/**
 * Folders whose tests run the code in the test's own process (an in-process API, supervisor,
 * store or pool; pure functions): their files share their test processes (`isolate: false`).
 * A fresh process per file re-imported the sources every time: over these folders that was half
 * of their CPU (import 239 s of 280 s wall for 99 files; 25 s shared, all green), on a suite
 * that is CPU-bound on 2 cores. Their files hold no global state between them (no module mocks,
 * no changed process.env, real timers), and each closes what it opened.
 */
const inProcess = [
  'api', 'codebases', 'conversations', 'credentials', 'github', 'hooks', 'layers', 'models', 'records', 'shared', 'store', 'supervisor',
  'terminal', 'worker', 'workflow',
].map((folder) => `test/${folder}/**/*.test.ts`);

export default defineConfig({
  test: {
    // A limit, not a timing: tests wait on conditions, and a passing test never waits for it. On
    // a 2-core machine under load (average 17–22, the suite beside four engineers' work) a
    // workflow of several real Claude Code sessions took over the old 60 s; 180 s keeps a test
    // that hangs from holding the suite much longer than that.
    testTimeout: 180_000,
    hookTimeout: 180_000,
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
    projects: [
      { extends: true, test: { name: 'in-process', include: inProcess, isolate: false } },
      // Servers, CLIs and browsers as child processes (cli, e2e, launcher, stress, web). Their
      // files share test processes too: what runs as a user's machine would run it is the child
      // process each starts, not the test file's. A fresh process per file cost the cli folder
      // 13 % more CPU (214 against 186 CPU-s, 114 against 96 s wall, all green both ways). The
      // one file that changes process state (home-file-modes: the umask) restores it after.
      { extends: true, test: { name: 'processes', include: ['test/**/*.test.ts'], exclude: inProcess, isolate: false } },
    ],
  },
});

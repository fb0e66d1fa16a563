import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { assertBuilt, runCli, userCliEnv } from './cli-process.js';

/** `cairn stress --url`: a server it did not start is stressed without kills, AI nodes or a process check. */

let home: TempHome;
beforeEach(async () => {
  assertBuilt();
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('runs its workflows on the server at --url and checks them, killing nothing', async () => {
  const server = await startServer(home);
  const res = await runCli(['stress', '--url', server.url, '--runs', '3', '--nodes', '5', '--seed', '3', '--json'], { env: userCliEnv(home.home), cwd: home.home });
  expect(res.code, res.stderr + res.stdout).toBe(0);
  const report = JSON.parse(res.stdout);
  expect(report.ok).toBe(true);
  expect(report.kills).toEqual([]);
  expect(report.memory).toBeNull();
  expect(report.counts).toMatchObject({ runs: 3, reruns: 0, aiCalls: 0, failedAttempts: 0 });
  expect(report.checks.find((c: { id: string }) => c.id === 'no-orphans').ok).toBeNull();
  // The server it did not start is still up.
  expect(server.launcher.exitCode).toBeNull();
  expect((await fetch(`${server.url}/api/health`)).ok).toBe(true);
});

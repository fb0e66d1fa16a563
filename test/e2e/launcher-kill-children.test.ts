import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/shared/process-group.js';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The launcher killed with SIGKILL: its API and supervisor notice the closed channel and stop
 * themselves, cleanly. The API used to crash on the way out (an uncaught ERR_IPC_DISCONNECTED
 * from disconnecting a channel that was already gone), which `cairn stress --kill launcher`
 * counted on every launcher kill.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('a launcher killed -9: the API and the supervisor stop by themselves, with no uncaught error', async () => {
  const server = await startServer(home);
  const api = await server.pid('api');
  const supervisor = await server.pid('supervisor');
  server.launcher.kill('SIGKILL');
  await waitFor(() => !isProcessAlive(api) && !isProcessAlive(supervisor), { what: 'the API and the supervisor to stop', timeoutMs: 30_000 });
  expect(server.output()).not.toMatch(/ERR_IPC_DISCONNECTED|Uncaught|uncaughtException/);
});

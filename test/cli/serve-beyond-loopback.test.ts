import { afterEach, beforeEach, expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { waitFor } from '../helpers/wait-for.js';

/** `cairn serve` on an address other machines reach says, loudly, that nothing guards it. */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

it('warns on the console and in the log when HOST is 0.0.0.0, saying how to protect it', async () => {
  const server = await startServer(home, { HOST: '0.0.0.0' });
  const output = await waitFor(() => (server.output().includes('launcher.listening_beyond_loopback') ? server.output() : undefined), {
    what: 'the warning in the log',
  });
  expect(output).toContain('WARNING: Cairn listens on 0.0.0.0 port');
  expect(output).toContain('has no authentication');
  expect(output).toContain('Keep HOST=127.0.0.1');
  expect(output).toContain('reverse proxy that authenticates');
  expect(output).toContain('CAIRN_ALLOWED_HOSTS');
  // Reached through loopback, the server answers as usual.
  expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
});

it('says nothing of the kind on the default loopback address', async () => {
  const server = await startServer(home);
  await waitFor(() => server.output().includes('Cairn is listening on'), { what: 'the listening line' });
  expect(server.output()).not.toContain('WARNING');
  expect(server.output()).not.toContain('listening_beyond_loopback');
});

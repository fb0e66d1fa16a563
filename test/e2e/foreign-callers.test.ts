import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { multipartForm } from '../helpers/multipart-form.js';
import { startServer, type RunningServer } from '../helpers/server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/**
 * The real `cairn serve`, called as a hostile web page would: through a name of its own that
 * resolves to this machine (DNS rebinding, played by a resolver that answers 127.0.0.1 for every
 * name), and with another page's Origin. Real fetch, real sockets, the real Host header.
 */

let home: TempHome;
let rebinding: Agent;
beforeEach(async () => {
  home = await makeTempHome();
  rebinding = new Agent({
    connect: {
      lookup: (_host, opts, done) =>
        (opts as { all?: boolean }).all
          ? (done as (err: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }])
          : (done as (err: null, address: string, family: number) => void)(null, '127.0.0.1', 4),
    },
  });
  home.defer(() => rebinding.close());
  await writeHomeWorkflow(home, 'stamp', 'name: stamp\ndescription: s\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterEach(async () => {
  await home.close();
});

/** The same server, reached by `name` instead of 127.0.0.1. */
function viaName(server: RunningServer, name: string, path: string, init: Parameters<typeof undiciFetch>[1] = {}) {
  const { port } = new URL(server.url);
  return undiciFetch(`http://${name}:${port}${path}`, { ...init, dispatcher: rebinding });
}

it('refuses a rebinding page’s workflow save, run and stream, and another page’s writes', async () => {
  const server = await startServer(home);
  const definition = { definition: { name: 'stamp', description: 'rebound', nodes: [{ id: 'pwn', bash: 'touch pwned' }] } };

  const saved = await viaName(server, 'rebind.evil.example', '/api/workflows/stamp?source=global', {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(definition),
  });
  expect(saved.status).toBe(421);
  expect(await saved.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED', error: expect.stringContaining('CAIRN_ALLOWED_HOSTS') });
  const ran = await viaName(server, 'rebind.evil.example', '/api/workflows/stamp/run', { method: 'POST' });
  expect(ran.status).toBe(421);
  for (const stream of ['/api/stream/__dashboard__', '/api/stream/conv-1']) {
    const res = await viaName(server, 'rebind.evil.example', stream, { headers: { accept: 'text/event-stream' } });
    expect(res.status, stream).toBe(421);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    await res.body?.cancel();
  }

  // Another page's writes, sent to the server's real address.
  const evil = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
  expect((await fetch(`${server.url}/api/workflows/stamp/run`, { method: 'POST', headers: evil })).status).toBe(403);
  const form = await fetch(`${server.url}/api/workflows/stamp/run`, { method: 'POST', headers: evil, body: multipartForm({ message: 'x' }, [{ name: 'a.txt', bytes: 'a' }]) });
  expect(form.status).toBe(403);
  expect(await form.json()).toMatchObject({ code: 'CROSS_ORIGIN_REFUSED' });

  const store = home.openStore();
  expect(await store.listRuns({ limit: 10 })).toEqual([]);
  expect(readdirSync(home.paths.workflows)).toEqual(['stamp.yaml']);
  expect((await (await fetch(`${server.url}/api/workflows/stamp`)).json()) as object).toMatchObject({ workflow: { description: 's' } });
  expect(existsSync(home.paths.uploads) ? readdirSync(home.paths.uploads) : []).toEqual([]);

  // The server's own origin and the CLI's requests go through.
  const own = await fetch(`${server.url}/api/workflows/stamp/run`, { method: 'POST', headers: { origin: server.url, 'sec-fetch-site': 'same-origin' } });
  expect(own.status).toBe(200);
  const cli = await fetch(`${server.url}/api/workflows/stamp/run`, { method: 'POST', body: multipartForm({ message: 'cli' }) });
  expect(cli.status).toBe(200);
  expect(await store.listRuns({ limit: 10 })).toHaveLength(2);
  expect(existsSync(join(home.home, 'pwned'))).toBe(false);
});

it('answers a name listed in CAIRN_ALLOWED_HOSTS, and takes writes from that origin', async () => {
  const server = await startServer(home, { CAIRN_ALLOWED_HOSTS: 'cairn.test' });
  const health = await viaName(server, 'cairn.test', '/api/health');
  expect(health.status).toBe(200);
  await health.body?.cancel();
  const { port } = new URL(server.url);
  const run = await viaName(server, 'cairn.test', '/api/workflows/stamp/run', { method: 'POST', headers: { origin: `http://cairn.test:${port}` } });
  expect(run.status).toBe(200);
  expect((await viaName(server, 'other.test', '/api/health')).status).toBe(421);
});

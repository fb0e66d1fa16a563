import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/shared/config.js';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * The Host check: a DNS-rebinding page is same-origin with the server, so only the name it
 * addressed the request to gives it away. Every method and route is checked, the streams too.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
  await writeHomeWorkflow(home, 'stamp', 'name: stamp\ndescription: s\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterEach(async () => {
  await home.close();
});

const definition = { name: 'stamp', description: 'rebound', nodes: [{ id: 'pwn', bash: 'touch /tmp/pwned' }] };

function expectMisdirected(res: { statusCode: number; json: () => any }, host: string): void {
  expect(res.statusCode).toBe(421);
  expect(res.json()).toEqual({ code: 'HOST_NOT_ALLOWED', error: expect.stringContaining(`Host '${host}' is not a name this Cairn server answers to`) });
  expect(res.json().error).toContain('CAIRN_ALLOWED_HOSTS');
  expect(res.json().error).toContain('server.allowedHosts');
}

/** A raw request over a real socket, with whatever Host header it is given (fetch always sends the URL's). */
function rawRequest(base: string, path: string, headers: Record<string, string>, method = 'GET'): Promise<{ statusCode: number; headers: Record<string, unknown>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port: Number(port), path, method, headers, setHost: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
        // A stream that was let through never ends: its first bytes are enough.
        if (res.headers['content-type']?.startsWith('text/event-stream')) req.destroy();
      });
      const done = () => resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body });
      res.on('end', done);
      res.on('close', done);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a request addressed to a name the server does not answer to', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp(home);
  });

  it('refuses to save a workflow for a rebinding page (PUT), writing nothing, and refuses to run or read', async () => {
    const before = readdirSync(home.paths.workflows);
    const saved = await t.app.inject({ method: 'PUT', url: '/api/workflows/stamp?source=global', headers: { host: 'rebind.evil.example' }, payload: { definition } });
    expectMisdirected(saved, 'rebind.evil.example');
    expect(readdirSync(home.paths.workflows)).toEqual(before);
    expect((await t.app.inject({ method: 'GET', url: '/api/workflows/stamp' })).json().workflow.description).toBe('s');
    const ran = await t.app.inject({ method: 'POST', url: '/api/workflows/stamp/run', headers: { host: 'rebind.evil.example:80' } });
    expectMisdirected(ran, 'rebind.evil.example:80');
    expect(await t.store.listRuns({ limit: 10 })).toEqual([]);
    expectMisdirected(await t.app.inject({ url: '/api/workflows/runs', headers: { host: 'rebind.evil.example' } }), 'rebind.evil.example');
    expectMisdirected(await t.app.inject({ url: '/api/no-such-route', headers: { host: 'rebind.evil.example' } }), 'rebind.evil.example');
    expectMisdirected(await t.app.inject({ method: 'OPTIONS', url: '/api/workflows/stamp/run', headers: { host: 'rebind.evil.example' } }), 'rebind.evil.example');
  });

  it('refuses a loopback name on another port than the one the request came in on', async () => {
    // inject's requests come in on no port and count as port 80 (its default Host is localhost:80).
    expectMisdirected(await t.app.inject({ url: '/api/health', headers: { host: 'localhost:3090' } }), 'localhost:3090');
    expect((await t.app.inject({ url: '/api/health', headers: { host: 'localhost' } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/health', headers: { host: '127.0.0.1:80' } })).statusCode).toBe(200);
  });

  it('refuses the streams over a real socket with a foreign Host, and serves them with the server’s own', async () => {
    const url = await listen(t.app);
    const { port } = new URL(url);
    for (const path of ['/api/stream/__dashboard__', '/api/stream/conv-1']) {
      const refused = await rawRequest(url, path, { host: `rebind.evil.example:${port}`, accept: 'text/event-stream' });
      expect(refused.statusCode, path).toBe(421);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
      const served = await rawRequest(url, path, { host: `localhost:${port}`, accept: 'text/event-stream' });
      expect(served.statusCode, path).toBe(200);
    }
    // HTTP/1.0 allows a request without Host (Node refuses one in HTTP/1.1); it is refused too.
    const hostless = await new Promise<string>((resolve, reject) => {
      let answer = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /api/health HTTP/1.0\r\n\r\n'));
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
    expect(hostless).toMatch(/^HTTP\/1\.[01] 421 /);
    expect(JSON.parse(hostless.split('\r\n\r\n')[1] ?? '').error).toMatch(/^A request without a Host header is not a name/);
  });
});

describe('names the user allowed', () => {
  it('answers the names in CAIRN_ALLOWED_HOSTS, and takes a write from their origin', async () => {
    const settings = loadSettings({ CAIRN_HOME: home.home, CAIRN_ALLOWED_HOSTS: 'cairn.example.com, build.internal:8443' });
    const t = await makeTestApp(home, { settings });
    expect((await t.app.inject({ url: '/api/health', headers: { host: 'cairn.example.com' } })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/health', headers: { host: 'build.internal:8443' } })).statusCode).toBe(200);
    expectMisdirected(await t.app.inject({ url: '/api/health', headers: { host: 'build.internal:9000' } }), 'build.internal:9000');
    // Behind a TLS proxy that rewrites Host to the loopback address, the page's origin is the configured name.
    const run = await t.app.inject({ method: 'POST', url: '/api/workflows/stamp/run', headers: { host: 'localhost', origin: 'https://cairn.example.com' } });
    expect(run.statusCode).toBe(200);
  });

  it('reads server.allowedHosts from config.yaml when the variable is not set, and names a bad entry', async () => {
    await writeFile(home.paths.config, 'server:\n  allowedHosts: [cairn.lan]\n');
    const t = await makeTestApp(home, { settings: loadSettings({ CAIRN_HOME: home.home }) });
    expect((await t.app.inject({ url: '/api/health', headers: { host: 'cairn.lan:3090' } })).statusCode).toBe(200);
    // The variable, when set, replaces the file's list.
    const replaced = await makeTestApp(home, { settings: loadSettings({ CAIRN_HOME: home.home, CAIRN_ALLOWED_HOSTS: 'other.lan' }) });
    expectMisdirected(await replaced.app.inject({ url: '/api/health', headers: { host: 'cairn.lan' } }), 'cairn.lan');
    expect(() => loadSettings({ CAIRN_HOME: home.home, CAIRN_ALLOWED_HOSTS: 'https://cairn.lan/' })).toThrow(
      /CAIRN_ALLOWED_HOSTS: 'https:\/\/cairn.lan\/' is not a host name with an optional port/,
    );
    await writeFile(home.paths.config, 'server:\n  allowedHosts: ["cairn lan"]\n');
    expect(() => loadSettings({ CAIRN_HOME: home.home })).toThrow(/server\.allowedHosts: 'cairn lan' is not a host name/);
    expect(existsSync(home.paths.config)).toBe(true);
  });
});

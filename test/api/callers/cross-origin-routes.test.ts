import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * Every state-changing route, found in fastify's own route table (so a route added later is
 * covered without touching this file): a write from another web page is refused with 403 before
 * anything happens, and the same write from a client without browser headers still works.
 */

let home: TempHome;
let t: TestApp;
let probe: Database.Database;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'stamp', 'name: stamp\ndescription: s\nnodes:\n  - id: a\n    bash: "true"\n');
  probe = new Database(home.paths.database, { readonly: true });
  home.defer(() => probe.close());
});
afterEach(async () => {
  await home.close();
});

/** Everything under the home but the database files, which the probe watches instead. */
function homeFiles(): string[] {
  return readdirSync(home.home, { recursive: true })
    .map(String)
    .filter((path) => !path.startsWith('db'))
    .sort();
}

const user = { 'x-service-user': 'alice' };

/** A request each write route would carry out for the CLI (params of things that may not exist are fine: the refusal comes first). */
function plausible(method: string, url: string, dir: string): { url: string; payload?: unknown } {
  const path = url
    .replace(':name', 'stamp')
    .replace(':provider', 'anthropic')
    .replace(':id', 'conv-1')
    .replace(':owner', 'acme')
    .replace(':repo', 'widget')
    .replace(/:\w+/g, 'x');
  if (method === 'PUT' && url === '/api/workflows/:name') return { url: `${path}?source=global`, payload: { definition: { name: 'stamp', description: 'rewritten', nodes: [{ id: 'b', bash: 'id' }] } } };
  if (method === 'DELETE' && url === '/api/workflows/:name') return { url: `${path}?source=global` };
  if (url === '/api/codebases') return { url: path, payload: { path: dir } };
  if (url === '/api/config/assistants') return { url: path, payload: { assistant: 'codex' } };
  if (url.startsWith('/api/auth/providers/:provider') && method === 'PUT') return { url: path, payload: { apiKey: 'sk-ant-test-0123456789', label: 'mine' } };
  if (url.endsWith('/message')) return { url: path, payload: { message: '/workflow run stamp go' } };
  return { url: path, payload: {} };
}

describe('every POST, PUT, PATCH and DELETE route', () => {
  it('refuses a write with a foreign Origin, with or without a body, and nothing changes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-origin-'));
    home.defer(() => rm(dir, { recursive: true, force: true }));
    const writes = t.app.routeTable.filter((route) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method));
    expect(writes.length).toBeGreaterThan(25);
    const version = probe.pragma('data_version', { simple: true });
    const files = homeFiles();
    for (const route of writes) {
      const { url, payload } = plausible(route.method, route.url, dir);
      for (const body of [payload, undefined]) {
        const res = await t.app.inject({
          method: route.method as 'POST',
          url,
          headers: { ...user, origin: 'http://evil.example', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        const where = `${route.method} ${url} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
        expect(res.statusCode, where).toBe(403);
        expect(res.json(), where).toEqual({ code: 'CROSS_ORIGIN_REFUSED', error: expect.stringContaining(`${route.method} `) });
        expect(res.headers['access-control-allow-origin'], where).toBeUndefined();
      }
    }
    expect(probe.pragma('data_version', { simple: true })).toBe(version);
    expect(homeFiles()).toEqual(files);
    expect(existsSync(home.paths.config)).toBe(false);
  });

  it('carries out the same writes for a client that sends no Origin (the refusal above was not luck)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-origin-'));
    home.defer(() => rm(dir, { recursive: true, force: true }));
    const cli = async (method: string, url: string) => {
      const { url: path, payload } = plausible(method, url, dir);
      return t.app.inject({ method: method as 'POST', url: path, headers: user, payload: payload as object });
    };
    expect((await cli('PUT', '/api/workflows/:name')).statusCode).toBe(200);
    expect(readdirSync(home.paths.workflows)).toEqual(['stamp.yaml']);
    expect((await cli('PATCH', '/api/config/assistants')).statusCode).toBe(200);
    expect(existsSync(home.paths.config)).toBe(true);
    expect((await cli('POST', '/api/codebases')).statusCode).toBe(201);
    expect((await cli('PUT', '/api/auth/providers/:provider')).statusCode).toBe(200);
    expect((await cli('POST', '/api/conversations/:id/message')).statusCode).toBe(200);
    expect((await cli('POST', '/api/workflows/:name/run')).statusCode).toBe(200);
    expect((await cli('DELETE', '/api/workflows/:name')).statusCode).toBe(200);
  });

  it('lets a write from the server’s own origin through, as its own pages send it', async () => {
    // inject's requests are addressed to localhost:80, so the server's own origin is http://localhost.
    const res = await t.app.inject({ method: 'POST', url: '/api/workflows/stamp/run', headers: { origin: 'http://localhost', 'sec-fetch-site': 'same-origin' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('CORS', () => {
  it('answers a preflight from another origin without any allow header, and reads without one', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/workflows/stamp/run',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(preflight.statusCode).toBeGreaterThanOrEqual(400);
    for (const route of t.app.routeTable.filter((r) => r.method === 'GET' && !r.url.startsWith('/api/stream/'))) {
      const res = await t.app.inject({ method: 'GET', url: route.url.replace(/:\w+|\*/g, 'x'), headers: { origin: 'http://evil.example' } });
      expect(Object.keys(res.headers).filter((name) => name.startsWith('access-control-')), route.url).toEqual([]);
    }
  });
});

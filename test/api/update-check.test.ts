import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UPDATE_CHECK_INTERVAL_MS } from '../../src/api/update-check.js';
import { makeTestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

/** `GET /api/update-check`: no request from a source build; a packaged build asks a (local) registry once a day. */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

/** A local stand-in for the npm registry that records what it was asked. */
async function registry(answer: (req: IncomingMessage) => { status: number; body: unknown }) {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const { status, body } = answer(req);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  home.defer(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

describe('GET /api/update-check', () => {
  it('answers a source build with no update and asks no one (§12 row 31)', async () => {
    const npm = await registry(() => ({ status: 200, body: { version: '9.9.9' } }));
    const { app } = await makeTestApp(home, { version: '0.1.0', updateCheck: { registry: npm.url } });
    const res = await app.inject({ url: '/api/update-check' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ updateAvailable: false, currentVersion: '0.1.0', latestVersion: '0.1.0', releaseUrl: '' });
    expect(npm.asked).toEqual([]);
  });

  it('lets a packaged build ask the registry once a day and answer from its cache otherwise', async () => {
    const npm = await registry(() => ({ status: 200, body: { version: '0.2.0' } }));
    let now = Date.parse('2026-01-01T00:00:00Z');
    const { app } = await makeTestApp(home, { version: '0.1.0', clock: () => now, updateCheck: { packaged: true, registry: npm.url } });
    const newer = { updateAvailable: true, currentVersion: '0.1.0', latestVersion: '0.2.0', releaseUrl: 'https://www.npmjs.com/package/cairn/v/0.2.0' };
    expect((await app.inject({ url: '/api/update-check' })).json()).toEqual(newer);
    expect((await app.inject({ url: '/api/update-check' })).json()).toEqual(newer);
    expect(npm.asked).toEqual(['/cairn/latest']);
    // A restarted server reads the cache file rather than asking again.
    const again = await makeTestApp(home, { version: '0.1.0', clock: () => now, updateCheck: { packaged: true, registry: npm.url } });
    expect((await again.app.inject({ url: '/api/update-check' })).json()).toEqual(newer);
    expect(npm.asked).toHaveLength(1);
    now += UPDATE_CHECK_INTERVAL_MS + 1;
    await app.inject({ url: '/api/update-check' });
    expect(npm.asked).toHaveLength(2);
  });

  it('answers no update when the registry fails, and does not ask again the same day', async () => {
    const npm = await registry(() => ({ status: 500, body: {} }));
    const { app } = await makeTestApp(home, { version: '0.1.0', updateCheck: { packaged: true, registry: npm.url } });
    const body = { updateAvailable: false, currentVersion: '0.1.0', latestVersion: '0.1.0', releaseUrl: '' };
    expect((await app.inject({ url: '/api/update-check' })).json()).toEqual(body);
    expect((await app.inject({ url: '/api/update-check' })).json()).toEqual(body);
    expect(npm.asked).toHaveLength(1);
  });
});

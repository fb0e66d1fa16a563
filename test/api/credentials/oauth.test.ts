import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { oauthConfigYaml, startOAuthServer, type OAuthServer, type OAuthServerOptions } from '../../helpers/oauth-server.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

const ann = { 'x-service-user': 'ann' };

let home: TempHome;
let t: TestApp;
let auth: OAuthServer;
/** The clock the API and the authorization server share; tests step it through intervals and expiries. */
let now: number;

async function setUp(opts: OAuthServerOptions = {}) {
  now = Date.parse('2026-11-23T00:00:00Z');
  auth = await startOAuthServer({ now: () => now, ...opts });
  home.defer(() => auth.close());
  await writeFile(home.paths.config, oauthConfigYaml(auth));
  t = await makeTestApp(home, { clock: () => now, env: {} });
}

beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const start = (provider: string, headers: Record<string, string> = ann) =>
  t.app.inject({ method: 'POST', url: `/api/auth/providers/${provider}/oauth/start`, headers });
const poll = (provider: string, body: Record<string, unknown>, headers: Record<string, string> = ann) =>
  t.app.inject({ method: 'POST', url: `/api/auth/providers/${provider}/oauth/poll`, headers, payload: body });

/** What the browser does: open the URL, consent (implied by the server), land on the redirect. */
async function authorize(url: string): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe('manual subscription login (PKCE, pasted code)', () => {
  it('connects with the pasted code#state, verifying PKCE, and stores the tokens sealed', async () => {
    await setUp();
    const started = await start('anthropic');
    expect(started.statusCode).toBe(200);
    const body = started.json();
    expect(body).toMatchObject({ mode: 'manual', expiresIn: 600 });
    expect(typeof body.sessionId).toBe('string');
    const url = new URL(body.url);
    expect(url.origin + url.pathname).toBe(`${auth.url}/authorize`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('client_id')).toBe('cairn-test-client');

    expect((await poll('anthropic', { sessionId: body.sessionId })).json()).toMatchObject({ status: 'pending' });
    const landed = await authorize(body.url);
    const pasted = `${landed.searchParams.get('code')}#${landed.searchParams.get('state')}`;
    const done = await poll('anthropic', { sessionId: body.sessionId, code: pasted });
    expect(done.json()).toEqual({ status: 'connected' });
    // Anthropic's token endpoint takes JSON.
    expect(auth.tokenRequests.map((r) => [r.grant_type, r.contentType])).toEqual([['authorization_code', 'application/json']]);

    const list = (await t.app.inject({ url: '/api/auth/providers', headers: ann })).json();
    expect(list.connections).toEqual([{ provider: 'anthropic', kind: 'oauth', label: 'Anthropic subscription' }]);
    const stored = await t.store.getCredential('ann', 'anthropic');
    expect(stored).toMatchObject({ kind: 'oauth', expires_at: new Date(now + 3600_000).toISOString() });
    expect(stored!.sealed_secret).not.toContain(auth.issued[0]!);
    expect(stored!.sealed_refresh).toMatch(/^cairn:v1:/);
    expect(JSON.stringify(list) + done.body).not.toContain(auth.issued[0]!);
  });

  it('takes the whole redirect URL, sends the code once, and answers later polls with the outcome', async () => {
    await setUp();
    const { sessionId, url } = (await start('openai')).json();
    const landed = await authorize(url);
    expect((await poll('openai', { sessionId, code: landed.toString() })).json()).toEqual({ status: 'connected' });
    expect((await poll('openai', { sessionId, code: 'another' })).json()).toEqual({ status: 'connected' });
    expect(auth.tokenRequests).toHaveLength(1);
    expect(auth.tokenRequests[0]!.contentType).toBe('application/x-www-form-urlencoded');
  });

  it('ends in error for a code the server refuses or a state of another login, without a second exchange', async () => {
    await setUp();
    const first = (await start('anthropic')).json();
    const refused = await poll('anthropic', { sessionId: first.sessionId, code: 'not-a-code' });
    expect(refused.json()).toMatchObject({ status: 'error', detail: expect.stringMatching(/invalid_grant/) });
    const again = await poll('anthropic', { sessionId: first.sessionId, code: 'not-a-code' });
    expect(again.json()).toMatchObject({ status: 'error' });
    expect(auth.tokenRequests).toHaveLength(1);

    const second = (await start('anthropic')).json();
    const landed = await authorize(second.url);
    const wrongState = await poll('anthropic', { sessionId: second.sessionId, code: `${landed.searchParams.get('code')}#forged` });
    expect(wrongState.json()).toMatchObject({ status: 'error', detail: expect.stringMatching(/state does not match/) });
    expect(auth.tokenRequests).toHaveLength(1);
    expect(await t.store.listCredentials('ann')).toEqual([]);
  });

  it('expires a login whose code never came', async () => {
    await setUp();
    const { sessionId } = (await start('anthropic')).json();
    now += 601_000;
    expect((await poll('anthropic', { sessionId, code: 'late' })).json()).toMatchObject({ status: 'error', detail: expect.stringMatching(/expired/) });
    expect(auth.tokenRequests).toEqual([]);
  });
});

describe('device subscription login (RFC 8628)', () => {
  it('polls through authorization_pending and slow_down, honouring the interval, until connected', async () => {
    // The server advertises 5 s but enforces 10 s: the first poll at 5 s gets slow_down.
    await setUp({ deviceInterval: 5, enforcedInterval: 10 });
    const started = await start('copilot'); // the legacy id of github-copilot
    expect(started.statusCode).toBe(200);
    const body = started.json();
    expect(body).toMatchObject({ mode: 'device', verificationUri: `${auth.url}/device`, interval: 5, expiresIn: 900 });
    expect(body.userCode).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
    const p = () => poll('github-copilot', { sessionId: body.sessionId }).then((r) => r.json());

    expect(await p()).toMatchObject({ status: 'pending' }); // before the interval: not sent
    expect(auth.tokenRequests).toHaveLength(0);
    now += 5_000;
    expect(await p()).toMatchObject({ status: 'pending' }); // authorization_pending
    now += 5_000;
    expect(await p()).toMatchObject({ status: 'pending' }); // slow_down: 5 s after the last poll, 10 s enforced
    expect(auth.tokenRequests).toHaveLength(2);
    now += 5_000;
    expect(await p()).toMatchObject({ status: 'pending' }); // the interval is now 10 s: not sent
    expect(auth.tokenRequests).toHaveLength(2);
    auth.approveDevice(body.userCode);
    now += 10_000; // 15 s after the slow_down: the server's interval grew to 15 s too
    expect(await p()).toEqual({ status: 'connected' });
    expect(auth.tokenRequests.map((r) => r.grant_type)).toEqual(Array(3).fill('urn:ietf:params:oauth:grant-type:device_code'));
    expect((await t.app.inject({ url: '/api/auth/providers', headers: ann })).json().connections).toEqual([
      { provider: 'github-copilot', kind: 'oauth', label: 'GitHub Copilot subscription' },
    ]);
  });

  it('keeps a device login pending while the authorization server is unreachable', async () => {
    await setUp({ deviceInterval: 5 });
    const { sessionId } = (await start('github-copilot')).json();
    await auth.close();
    now += 5_000;
    const res = await poll('github-copilot', { sessionId });
    expect(res.json()).toMatchObject({ status: 'pending', detail: expect.stringMatching(/cannot be reached/) });
  });

  it('reports an expired device code as an error', async () => {
    await setUp({ deviceInterval: 5, deviceTtl: 20, advertisedDeviceTtl: 900 });
    const { sessionId } = (await start('github-copilot')).json();
    now += 25_000;
    const res = await poll('github-copilot', { sessionId });
    expect(res.json()).toMatchObject({ status: 'error', detail: expect.stringMatching(/expired/) });
    expect(await t.store.listCredentials('ann')).toEqual([]);
  });
});

describe('refusals', () => {
  it('refuses start for a vendor without subscription login (400), and polls of unknown or other users’ logins (404)', async () => {
    await setUp();
    const google = await start('google');
    expect(google.statusCode).toBe(400);
    expect(google.json().error).toBe('Provider "google" does not support subscription login. Subscription providers: anthropic, github-copilot, openai.');
    expect((await start('..%2F..')).statusCode).toBe(400);
    const { sessionId } = (await start('anthropic')).json();
    expect((await poll('anthropic', { sessionId }, { 'x-service-user': 'bob' })).statusCode).toBe(404);
    expect((await poll('openai', { sessionId })).statusCode).toBe(404);
    expect((await poll('anthropic', { sessionId: 'nope' })).statusCode).toBe(404);
    expect((await poll('anthropic', { sessionId, code: 'a\u0000b' })).statusCode).toBe(400);
    expect((await poll('anthropic', { sessionId, code: 'x'.repeat(5000) })).statusCode).toBe(400);
  });

  it('answers 502 when the device authorization server cannot be reached', async () => {
    await setUp();
    await auth.close();
    const res = await start('github-copilot');
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatch(/github-copilot's authorization server cannot be reached/);
  });
});

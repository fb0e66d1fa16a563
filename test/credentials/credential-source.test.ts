import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createCredentialSource } from '../../src/credentials/credential-source.js';
import { sealCredential } from '../../src/credentials/credential-seal.js';
import { exchangeCode } from '../../src/credentials/oauth/oauth-client.js';
import { loadOAuthEndpoints } from '../../src/credentials/oauth/oauth-endpoints.js';
import { newPkcePair } from '../../src/credentials/oauth/pkce.js';
import { loadSettings } from '../../src/shared/config.js';
import { silentLogger } from '../../src/shared/log.js';
import type { Store } from '../../src/store/store.js';
import { oauthConfigYaml, startOAuthServer, type OAuthServer } from '../helpers/oauth-server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
let auth: OAuthServer;
let store: Store;
let now: number;
const settings = () => loadSettings({ CAIRN_HOME: home.home });

beforeEach(async () => {
  home = await makeTempHome();
  now = Date.parse('2026-11-23T00:00:00Z');
  // Access tokens live 10 minutes; Cairn refreshes one with less than 5 minutes left.
  auth = await startOAuthServer({ now: () => now, accessTokenTtl: 600 });
  home.defer(() => auth.close());
  await writeFile(home.paths.config, oauthConfigYaml(auth));
  store = home.openStore();
});
afterEach(async () => {
  await home.close();
});

/** A real login: the authorization code grant with PKCE against the local server, stored sealed. */
async function connectSubscription(user: string): Promise<void> {
  const endpoints = loadOAuthEndpoints(home.paths.config, {}).anthropic;
  const { verifier, challenge } = newPkcePair();
  const authorize = new URL(endpoints.authorizeUrl!);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: endpoints.clientId, redirect_uri: endpoints.redirectUri!, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })) {
    authorize.searchParams.set(k, v);
  }
  const landed = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
  const tokens = await exchangeCode(endpoints, { code: landed.searchParams.get('code')!, verifier, state: 's' }, () => now);
  await store.putCredential(sealCredential(settings().installKey(), user, {
    vendor: 'anthropic', kind: 'oauth', label: 'sub', secret: tokens.accessToken, refreshToken: tokens.refreshToken!, expiresAt: tokens.expiresAt!,
  }));
}

const source = () =>
  createCredentialSource({
    store, installKey: settings().installKey, endpoints: () => loadOAuthEndpoints(home.paths.config, {}), now: () => now, log: silentLogger(),
  });

it('uses a token with time left as is, and refreshes one about to expire before it is used', async () => {
  await connectSubscription('ann');
  expect((await source()('ann', 'anthropic'))?.secret).toBe(auth.issued[0]);
  expect(auth.tokenRequests.map((r) => r.grant_type)).toEqual(['authorization_code']);

  now += 6 * 60_000; // 4 minutes left
  const refreshed = await source()('ann', 'anthropic');
  expect(refreshed?.secret).toBe(auth.issued[1]);
  expect(auth.tokenRequests.map((r) => r.grant_type)).toEqual(['authorization_code', 'refresh_token']);
  const stored = await store.getCredential('ann', 'anthropic');
  expect(stored?.expires_at).toBe(new Date(now + 600_000).toISOString());
  expect(stored?.sealed_secret).not.toContain(auth.issued[1]!);
  // The rotated refresh token was stored: the next refresh works with it.
  now += 6 * 60_000;
  expect((await source()('ann', 'anthropic'))?.secret).toBe(auth.issued[2]);
});

it('keeps using a token whose refresh is refused until it expires, then says to reconnect', async () => {
  await connectSubscription('ann');
  auth.revokeRefreshTokens();
  now += 6 * 60_000;
  expect((await source()('ann', 'anthropic'))?.secret).toBe(auth.issued[0]);
  now += 5 * 60_000;
  await expect(source()('ann', 'anthropic')).rejects.toThrow(/anthropic subscription login has expired and its refresh failed.*connect it again/);
});

it('answers nothing for a user without a credential, and an API key as stored', async () => {
  expect(await source()('ann', 'anthropic')).toBeUndefined();
  await store.putCredential(sealCredential(settings().installKey(), 'ann', { vendor: 'openai', kind: 'api_key', label: 'k', secret: 'sk-1' }));
  expect(await source()('ann', 'openai')).toMatchObject({ kind: 'api_key', secret: 'sk-1' });
  expect(await source()('bob', 'openai')).toBeUndefined();
});

it('refuses an OAuth endpoint override that is not an http(s) URL, naming it', async () => {
  await writeFile(home.paths.config, 'oauth:\n  anthropic:\n    tokenUrl: "file:///etc/passwd"\n');
  expect(() => loadOAuthEndpoints(home.paths.config, {})).toThrow(/oauth\.anthropic\.tokenUrl/);
  expect(() => loadOAuthEndpoints('/nonexistent', { CAIRN_OAUTH_GITHUB_COPILOT_DEVICE_CODE_URL: 'javascript:x' })).toThrow(/CAIRN_OAUTH_GITHUB_COPILOT_DEVICE_CODE_URL/);
  expect(loadOAuthEndpoints('/nonexistent', { CAIRN_OAUTH_OPENAI_TOKEN_URL: 'http://127.0.0.1:9/token' }).openai.tokenUrl).toBe('http://127.0.0.1:9/token');
});

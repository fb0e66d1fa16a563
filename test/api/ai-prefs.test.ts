import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const as = (user: string | undefined, method: 'GET' | 'PATCH', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url,
    ...(user !== undefined ? { headers: { 'x-service-user': user } } : {}),
    ...(payload !== undefined ? { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json', ...(user !== undefined ? { 'x-service-user': user } : {}) } } : {}),
  });

describe('per-user AI preferences', () => {
  it.each([
    ['GET', '/api/auth/me/ai-prefs', undefined],
    ['PATCH', '/api/auth/me/ai-prefs/tiers', { tiers: { small: { provider: 'claude', model: 'haiku' } } }],
    ['PATCH', '/api/auth/me/ai-prefs/aliases', { aliases: { bad: 1 } }],
    ['PATCH', '/api/auth/me/ai-prefs/default', null],
  ] as const)('%s %s without an identity (or a blank one) is 401', async (method, url, body) => {
    for (const user of [undefined, '   ']) {
      const res = await as(user, method, url, body);
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('IDENTITY_REQUIRED');
    }
  });

  it('merges tiers and aliases per key, null unsets, and keeps each user’s prefs apart', async () => {
    expect((await as('alice', 'GET', '/api/auth/me/ai-prefs')).json()).toEqual({});
    await as('alice', 'PATCH', '/api/auth/me/ai-prefs/tiers', { tiers: { small: { provider: 'claude', model: 'haiku' }, large: { provider: 'codex', model: 'gpt-5.5', effort: 'xhigh' } } });
    const merged = await as('alice', 'PATCH', '/api/auth/me/ai-prefs/tiers', { tiers: { small: null, medium: { provider: 'claude', model: 'sonnet' } } });
    expect(merged.statusCode).toBe(200);
    expect(merged.json()).toEqual({ tiers: { large: { provider: 'codex', model: 'gpt-5.5', effort: 'xhigh' }, medium: { provider: 'claude', model: 'sonnet' } } });
    await as('bob', 'PATCH', '/api/auth/me/ai-prefs/aliases', { aliases: { '@fast': { provider: 'claude', model: 'haiku' } } });
    expect((await as('bob', 'GET', '/api/auth/me/ai-prefs')).json()).toEqual({ aliases: { '@fast': { provider: 'claude', model: 'haiku' } } });
    expect((await as('alice', 'GET', '/api/auth/me/ai-prefs')).json()).not.toHaveProperty('aliases');
    // Trimmed: ' bob ' is bob.
    expect((await as(' bob ', 'PATCH', '/api/auth/me/ai-prefs/aliases', { aliases: { '@fast': null } })).json()).toEqual({});
  });

  it('sets the default provider and model; an omitted model clears the pin; null clears both', async () => {
    const url = '/api/auth/me/ai-prefs/default';
    expect((await as('carol', 'PATCH', url, { provider: 'codex', model: 'gpt-5' })).json()).toEqual({ defaultProvider: 'codex', defaultModel: 'gpt-5' });
    expect((await as('carol', 'PATCH', url, { provider: 'claude' })).json()).toEqual({ defaultProvider: 'claude' });
    await as('carol', 'PATCH', url, { provider: 'codex', model: 'gpt-5' });
    expect((await as('carol', 'PATCH', url, { provider: null })).json()).toEqual({});
    await as('carol', 'PATCH', url, { provider: 'codex' });
    expect((await as('carol', 'PATCH', url, null)).json()).toEqual({});
  });

  it.each([
    ['/api/auth/me/ai-prefs/default', { model: 'gpt-5' }, 'model needs a provider'],
    ['/api/auth/me/ai-prefs/default', { provider: null, model: 'gpt-5' }, 'model needs a provider'],
    ['/api/auth/me/ai-prefs/default', {}, 'provider is required'],
    ['/api/auth/me/ai-prefs/default', { provider: 'nope' }, "provider: Unknown provider 'nope'"],
    ['/api/auth/me/ai-prefs/tiers', { tiers: { small: { provider: 'claude', model: 'haiku', effort: 'minimal' } } }, "tiers.small.effort: 'minimal' is not an effort of provider 'claude'"],
    ['/api/auth/me/ai-prefs/aliases', { aliases: { '@small': { provider: 'claude', model: 'haiku' } } }, 'is reserved'],
    ['/api/auth/me/ai-prefs/aliases', { aliases: { 'x"\u0000': { provider: 'claude', model: 'haiku' } } }, 'must start with'],
  ])('%s refuses case %# with a 400 naming the field (%2$s), changing nothing', async (url, body, text) => {
    await as('dave', 'PATCH', '/api/auth/me/ai-prefs/default', { provider: 'codex', model: 'kept' });
    const res = await as('dave', 'PATCH', url, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toContain(text);
    expect((await as('dave', 'GET', '/api/auth/me/ai-prefs')).json()).toEqual({ defaultProvider: 'codex', defaultModel: 'kept' });
  });

  it('keeps hostile user ids as data: quotes, path tricks and long ids are just other users', async () => {
    const users = ["o'brien\"; DROP TABLE user_ai_prefs; --", '../../etc/passwd', 'u'.repeat(256)];
    for (const [i, user] of users.entries()) {
      await as(user, 'PATCH', '/api/auth/me/ai-prefs/default', { provider: 'codex', model: `m${i}` });
    }
    for (const [i, user] of users.entries()) {
      expect((await as(user, 'GET', '/api/auth/me/ai-prefs')).json()).toEqual({ defaultProvider: 'codex', defaultModel: `m${i}` });
    }
    const tooLong = await as('u'.repeat(257), 'GET', '/api/auth/me/ai-prefs');
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error).toContain('X-Service-User is longer than 256 characters');
  });
});

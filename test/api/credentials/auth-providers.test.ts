import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

const KEY = 'sk-ant-test-RECOGNISABLE-0123456789abcdef';
const ann = { 'x-service-user': 'ann' };

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home, { env: { HOME: join(home.home, 'user-home') } });
});
afterEach(async () => {
  await home.close();
});

const put = (provider: string, body: unknown, headers: Record<string, string> = ann) =>
  t.app.inject({ method: 'PUT', url: `/api/auth/providers/${provider}`, headers, payload: body as object });
const list = (headers: Record<string, string> = ann) => t.app.inject({ url: '/api/auth/providers', headers });

describe('provider credentials', () => {
  it('needs an identity on every route (401), and a blank header is none', async () => {
    const answers = await Promise.all([
      list({}),
      list({ 'x-service-user': '   ' }),
      put('anthropic', { apiKey: KEY }, {}),
      t.app.inject({ method: 'DELETE', url: '/api/auth/providers/anthropic' }),
      t.app.inject({ method: 'POST', url: '/api/auth/providers/anthropic/oauth/start' }),
      t.app.inject({ method: 'POST', url: '/api/auth/providers/anthropic/oauth/poll', payload: { sessionId: 'x' } }),
    ]);
    for (const res of answers) {
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('IDENTITY_REQUIRED');
    }
    expect(await t.store.listCredentials('ann')).toEqual([]);
  });

  it('connects a key (sealed at rest), lists it as metadata only, and keeps users apart', async () => {
    const res = await put('anthropic', { apiKey: `  ${KEY}  `, label: 'work' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, provider: 'anthropic', kind: 'api_key', label: 'work' });
    const mine = await list();
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toMatchObject({
      enabled: true,
      connections: [{ provider: 'anthropic', kind: 'api_key', label: 'work' }],
      subscriptionAvailable: ['anthropic', 'github-copilot', 'openai'],
    });
    expect(mine.json().available).toEqual(expect.arrayContaining(['anthropic', 'openai', 'github-copilot', 'google']));
    expect(mine.body).not.toContain(KEY);
    expect((await list({ 'x-service-user': 'bob' })).json().connections).toEqual([]);
    const stored = await t.store.getCredential('ann', 'anthropic');
    expect(stored?.sealed_secret).toMatch(/^cairn:v1:/);
    expect(stored?.sealed_secret).not.toContain(KEY);
    const db = await readFile(home.paths.database);
    const wal = await readFile(`${home.paths.database}-wal`).catch(() => Buffer.alloc(0));
    expect(db.includes(KEY)).toBe(false);
    expect(wal.includes(KEY)).toBe(false);
  });

  it('normalises legacy assistant ids and gives a default label; a reconnect replaces the key', async () => {
    expect((await put('claude', { apiKey: 'k1' })).json()).toEqual({ success: true, provider: 'anthropic', kind: 'api_key', label: 'Anthropic API key' });
    expect((await put('codex', { apiKey: 'k2' })).json().provider).toBe('openai');
    expect((await put('copilot', { apiKey: 'k3' })).json().provider).toBe('github-copilot');
    await put('anthropic', { apiKey: 'k4', label: 'second' });
    expect((await list()).json().connections).toEqual([
      { provider: 'anthropic', kind: 'api_key', label: 'second' },
      { provider: 'github-copilot', kind: 'api_key', label: 'GitHub Copilot API key' },
      { provider: 'openai', kind: 'api_key', label: 'OpenAI API key' },
    ]);
  });

  it('refuses an unknown vendor or a blank, multi-line or oversized key with a 400 naming it, storing nothing', async () => {
    const unknown = await put('nope', { apiKey: KEY });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatch(/Unknown credential vendor "nope"\. Known: anthropic, github-copilot/);
    for (const [body, text] of [
      [{ apiKey: '' }, /apiKey is blank/],
      [{ apiKey: '   ' }, /apiKey is blank/],
      [{}, /apiKey/],
      [{ apiKey: 'a\u0000b' }, /apiKey holds control characters/],
      [{ apiKey: 'line1\nline2' }, /apiKey holds control characters/],
      [{ apiKey: 'x'.repeat(9000) }, /apiKey is longer than 8192/],
      [{ apiKey: KEY, label: 'l\u0000' }, /label holds control characters/],
      [{ apiKey: KEY, extra: 1 }, /extra/],
    ] as const) {
      const res = await put('anthropic', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 40)).toBe(400);
      expect(res.json().error).toMatch(text);
      expect(res.body).not.toContain(KEY);
    }
    expect(await t.store.listCredentials('ann')).toEqual([]);
  });

  it('answers hostile provider ids with a 400 that quotes them as one token', async () => {
    for (const id of ['..%2F..%2Fetc', '%22%3B%20DROP%20TABLE', 'a'.repeat(300), '%00']) {
      const res = await put(id, { apiKey: KEY });
      expect(res.statusCode, id.slice(0, 20)).toBe(400);
      expect(res.body).not.toContain(KEY);
    }
    const quoted = await put('%22quoted%22', { apiKey: KEY });
    expect(quoted.json().error).toContain('"\\"quoted\\""');
    expect(await t.store.listCredentials('ann')).toEqual([]);
  });

  it('keeps hostile user ids apart as plain ids (quotes, path tricks, SQL)', async () => {
    const users = ['../../etc/passwd', `o'brien"; DROP TABLE provider_credentials; --`, 'ann:openai', 'x'.repeat(256)];
    for (const [i, id] of users.entries()) {
      expect((await put('openai', { apiKey: `key-${i}` }, { 'x-service-user': id })).statusCode).toBe(200);
    }
    for (const id of users) {
      const stored = (await t.store.listCredentials(id)).map((c) => c.vendor);
      expect(stored, id.slice(0, 20)).toEqual(['openai']);
      expect((await list({ 'x-service-user': id })).json().connections).toHaveLength(1);
    }
    expect(await t.store.listCredentials('ann')).toEqual([]);
    expect((await list({ 'x-service-user': 'x'.repeat(257) })).statusCode).toBe(400);
  });

  it('disconnects idempotently, only for that user', async () => {
    await put('openai', { apiKey: KEY });
    await put('openai', { apiKey: KEY }, { 'x-service-user': 'bob' });
    const del = () => t.app.inject({ method: 'DELETE', url: '/api/auth/providers/codex', headers: ann });
    expect((await del()).json()).toEqual({ success: true });
    expect((await del()).json()).toEqual({ success: true });
    expect((await t.app.inject({ method: 'DELETE', url: '/api/auth/providers/google', headers: ann })).json()).toEqual({ success: true });
    expect((await list()).json().connections).toEqual([]);
    expect((await list({ 'x-service-user': 'bob' })).json().connections).toHaveLength(1);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/auth/providers/nope', headers: ann })).statusCode).toBe(400);
  });
});

describe('the agents matrix', () => {
  it('reports the server environment, the CLIs’ own logins and the user’s connections, never a value', async () => {
    const userHome = join(home.home, 'user-home');
    await mkdir(join(userHome, '.codex'), { recursive: true });
    await writeFile(join(userHome, '.codex', 'auth.json'), '{"token":"AMBIENT-SECRET-VALUE"}');
    const withEnv = await makeTestApp(home, { env: { HOME: userHome, ANTHROPIC_API_KEY: 'ENV-SECRET-VALUE' } });
    await withEnv.app.inject({ method: 'PUT', url: '/api/auth/providers/google', headers: ann, payload: { apiKey: KEY } });
    const res = await withEnv.app.inject({ url: '/api/auth/providers', headers: ann });
    expect(res.body).not.toMatch(/ENV-SECRET-VALUE|AMBIENT-SECRET-VALUE|sk-ant|\.codex/);
    const agents = new Map<string, any>(res.json().agents.map((a: any) => [a.id, a]));
    expect([...agents.keys()]).toEqual(['claude', 'codex', 'opencode', 'pi', 'copilot', 'gemini', 'anthropic', 'openai-compatible']);
    expect(agents.get('claude')).toMatchObject({
      displayName: 'Claude Code', catalog: 'static', ready: true,
      credentials: [{ vendor: 'anthropic', kinds: ['api_key', 'oauth'], connected: false, subscriptionAvailable: true, installEnv: true, ambientConfigured: false }],
    });
    expect(agents.get('codex')).toMatchObject({
      ready: true, credentials: [{ vendor: 'openai', connected: false, installEnv: false, ambientConfigured: true }],
    });
    expect(agents.get('gemini')).toMatchObject({
      ready: true, credentials: [{ vendor: 'google', kinds: ['api_key'], connected: true, subscriptionAvailable: false, installEnv: false }],
    });
    expect(agents.get('copilot')).toMatchObject({ ready: false, credentials: [{ vendor: 'github-copilot', connected: false, installEnv: false }] });
    // An API provider has no CLI login of its own.
    expect(agents.get('anthropic').credentials[0]).not.toHaveProperty('ambientConfigured');
    expect(agents.get('opencode').catalog).toBe('dynamic');
  });
});

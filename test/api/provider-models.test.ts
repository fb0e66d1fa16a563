import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/api/server.js';
import { loadSettings } from '../../src/shared/config.js';
import { startAnthropicServer } from '../helpers/anthropic-server.js';
import { startOpenAiServer } from '../helpers/openai-server.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

async function appWith(env: Record<string, string>) {
  const store = home.openStore();
  const app = await buildServer({ store, settings: loadSettings({ CAIRN_HOME: home.home, ...env }) });
  home.defer(() => app.close());
  return app;
}

describe('GET /api/providers/{vendor}/models', () => {
  it('answers the bundled catalog, with cost and reasoning, when no connection is configured', async () => {
    const app = await appWith({});
    const res = await app.inject({ url: '/api/providers/anthropic/models' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toContainEqual({
      id: 'claude-sonnet-4-6', displayName: 'Claude Sonnet 4.6', vendor: 'anthropic', reasoning: true,
      contextWindow: 200_000, inputUsdPerMTok: 3, outputUsdPerMTok: 15, source: 'bundled',
    });
    // A provider id stands for its vendor.
    expect((await app.inject({ url: '/api/providers/codex/models' })).json().map((m: { id: string }) => m.id)).toContain('gpt-5-mini');
  });

  it('asks the provider when it is configured, sending its key, and adds the bundled facts', async () => {
    const seen: string[] = [];
    const anthropic = await startAnthropicServer(() => ({ kind: 'empty' }), {
      models: ['claude-haiku-4-5', 'claude-new-9'],
      onModels: (headers) => seen.push(String(headers['x-api-key'])),
    });
    const openai = await startOpenAiServer(() => ({ kind: 'empty' }), { models: ['local-llama'] });
    home.defer(() => anthropic.close());
    home.defer(() => openai.close());
    const app = await appWith({ ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'sk-ant-models', OPENAI_BASE_URL: openai.url });
    const listed = (await app.inject({ url: '/api/providers/anthropic/models' })).json();
    expect(listed).toEqual([
      { id: 'claude-haiku-4-5', displayName: 'Claude Haiku 4.5', vendor: 'anthropic', reasoning: true, contextWindow: 200_000, inputUsdPerMTok: 1, outputUsdPerMTok: 5, source: 'provider' },
      { id: 'claude-new-9', displayName: 'claude-new-9', vendor: 'anthropic', reasoning: false, source: 'provider' },
    ]);
    expect(seen).toEqual(['sk-ant-models']);
    expect((await app.inject({ url: '/api/providers/openai-compatible/models' })).json()).toEqual([
      { id: 'local-llama', displayName: 'local-llama', vendor: 'openai', reasoning: false, source: 'provider' },
    ]);
  });

  it('falls back to the bundled catalog when the provider fails, and answers [] for unknown or hostile vendors', async () => {
    const broken = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{not json');
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    home.defer(() => new Promise<void>((resolve) => broken.close(() => resolve())));
    const app = await appWith({ OPENAI_BASE_URL: `http://127.0.0.1:${(broken.address() as AddressInfo).port}/v1` });
    const res = await app.inject({ url: '/api/providers/openai/models' });
    expect(res.statusCode).toBe(200);
    expect(res.json().every((m: { source: string }) => m.source === 'bundled')).toBe(true);
    expect(res.json().length).toBeGreaterThan(0);
    for (const vendor of ['nope', '..%2F..%2Fetc', '%22%27%00', 'x'.repeat(900), 'opencode']) {
      const answer = await app.inject({ url: `/api/providers/${vendor}/models` });
      expect(answer.statusCode, vendor).toBe(200);
      expect(answer.json()).toEqual([]);
    }
  });
});

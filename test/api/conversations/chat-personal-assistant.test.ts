import { afterEach, beforeEach, expect, it } from 'vitest';
import { startAnthropicServer, type AnthropicServer } from '../../helpers/anthropic-server.js';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { startOpenAiServer, type OpenAiServer } from '../../helpers/openai-server.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * Chat turns answer with the asking user's personal default assistant (provider and chat model
 * from their AI preferences) and their connected credential; a turn without a user, or of a user
 * without preferences, gets the install's default. Real API and supervisor, local servers.
 */

const INSTALL_KEY = 'sk-ant-install-0123456789';
const ANN_KEY = 'sk-ann-personal-0123456789';

let home: TempHome;
let t: TestApp;
let url: string;
let anthropic: AnthropicServer;
let openai: OpenAiServer;

beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
  anthropic = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'from the install default' }] }));
  openai = await startOpenAiServer(() => ({ kind: 'stream', deltas: ['from ', "ann's assistant"] }));
  home.defer(() => anthropic.close());
  home.defer(() => openai.close());
  // The install's default is anthropic; openai-compatible has a server but no key of the install's.
  await startSupervisor(home, {
    env: { CAIRN_DEFAULT_ASSISTANT: 'anthropic', ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: INSTALL_KEY, OPENAI_BASE_URL: `${openai.url}/v1` },
  });
});
afterEach(async () => {
  await home.close();
});

const send = (path: string, method: string, body: unknown, user?: string) =>
  fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(user !== undefined ? { 'x-service-user': user } : {}) },
    body: JSON.stringify(body),
  });

async function answerTo(message: string, user?: string): Promise<string> {
  const id = ((await (await send('/api/conversations', 'POST', {}, user)).json()) as { conversationId: string }).conversationId;
  expect((await send(`/api/conversations/${id}/message`, 'POST', { message }, user)).status).toBe(200);
  return waitFor(async () => {
    const conversation = await t.store.getConversation(id);
    const reply = (await t.store.listMessages(conversation!.id, 50)).find((m) => m.role === 'assistant');
    return reply?.content;
  }, { what: `the answer to ${message}` });
}

it("answers a user's turn with their personal default and credential, and everyone else's with the install's", async () => {
  expect((await send('/api/auth/me/ai-prefs/default', 'PATCH', { provider: 'openai-compatible', model: 'ann-chat-model' }, 'ann')).status).toBe(200);
  expect((await send('/api/auth/providers/openai', 'PUT', { apiKey: ANN_KEY, label: 'ann' }, 'ann')).status).toBe(200);

  expect(await answerTo('hello from ann', 'ann')).toBe("from ann's assistant");
  expect(openai.requests).toHaveLength(1);
  expect(openai.requests[0]!.body.model).toBe('ann-chat-model');
  expect(openai.requests[0]!.headers.authorization).toBe(`Bearer ${ANN_KEY}`);

  expect(await answerTo('hello from bob', 'bob')).toBe('from the install default');
  expect(await answerTo('hello from nobody')).toBe('from the install default');
  expect(anthropic.requests.map((r) => r.headers['x-api-key'])).toEqual([INSTALL_KEY, INSTALL_KEY]);
  expect(openai.requests).toHaveLength(1);
});

import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HELP_TEXT, staleCwdText } from '../../../src/conversations/chat/answer-turn.js';
import { PROVIDER_SETUP_TEXT } from '../../../src/conversations/chat/provider-setup.js';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { startAnthropicServer } from '../../helpers/anthropic-server.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { waitFor } from '../../helpers/wait-for.js';

/** Every example of docs/conversations.md, run against a real server (or compared with the code's text). */

const doc = readFileSync(new URL('../../../docs/conversations.md', import.meta.url), 'utf8');

function block(tag: string): string {
  const match = new RegExp('```' + tag + '\\n([\\s\\S]*?)\\n```').exec(doc);
  if (!match) throw new Error(`docs/conversations.md has no ${tag} block`);
  return match[1]!;
}

/** Ids and timestamps are generated: matched by type. Other primitives must be equal; objects by keys, arrays by length. */
function expectShape(actual: unknown, example: unknown, path = 'body'): void {
  if (Array.isArray(example)) {
    expect(Array.isArray(actual), path).toBe(true);
    expect((actual as unknown[]).length, path).toBe(example.length);
    return;
  }
  if (example !== null && typeof example === 'object') {
    expect(actual, path).toBeTypeOf('object');
    const keys = Object.keys(example);
    if (keys.length === 0) return; // `{}` stands for any object
    expect(Object.keys(actual as object).sort(), path).toEqual(keys.sort());
    for (const key of keys) expectShape((actual as Record<string, unknown>)[key], (example as Record<string, unknown>)[key], `${path}.${key}`);
    return;
  }
  const generated = ['body.conversationId', 'body.id', 'body.platform_conversation_id', 'body.created_at', 'body.updated_at', 'body.last_activity_at'];
  if (generated.includes(path)) expect(typeof actual, path).toBe(typeof example);
  else expect(actual, path).toEqual(example);
}

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

describe('docs/conversations.md', () => {
  it('each request example gets the answer shown', async () => {
    const lines = block('http-example').split('\n');
    let id: string | undefined;
    for (let i = 0; i < lines.length; i += 2) {
      const request = /^> (GET|POST|PATCH|DELETE) (\S+)(?: (.*))?$/.exec(lines[i]!);
      const response = /^< (\d{3}) (.*)$/.exec(lines[i + 1] ?? '');
      expect(request, lines[i]).not.toBeNull();
      expect(response, lines[i + 1]).not.toBeNull();
      const [, method, rawUrl, body] = request!;
      const url = rawUrl!.replace('{id}', id ?? '{id}');
      const res = await t.app.inject({ method: method as 'GET', url, ...(body ? { payload: JSON.parse(body) as object } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(Number(response![1]));
      expectShape(res.json(), JSON.parse(response![2]!));
      id ??= res.json().conversationId;
    }
  });

  it('lists the slash commands exactly as /help answers them, and the refusal as the code words it', () => {
    expect(block('chat-help')).toBe(HELP_TEXT);
    expect(block('chat-refusal')).toBe(staleCwdText('<path>'));
  });

  it('names the provider settings the plain-message answer names', () => {
    for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'docs/conversations.md']) {
      expect(PROVIDER_SETUP_TEXT).toContain(name);
    }
    expect(doc).toContain('## Plain messages and AI providers');
    expect(PROVIDER_SETUP_TEXT).toContain('"Plain messages and AI providers"');
    expect(block('chat-setup')).toBe(PROVIDER_SETUP_TEXT);
  });

  it('the chat-config example makes the default assistant answer plain messages with its model and key', async () => {
    const server = await startAnthropicServer(() => ({ kind: 'stream', blocks: [{ type: 'text', text: 'Configured.' }] }));
    home.defer(() => server.close());
    await writeFile(home.paths.config, `${block('yaml chat-config')}\n`);
    // Only the server's address is added (a local server speaking the Messages API).
    await startSupervisor(home, { env: { ANTHROPIC_BASE_URL: server.url } });
    const created = await t.app.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'hello' } });
    const conversation = (await t.store.getConversation(created.json().conversationId))!;
    const reply = await waitFor(async () => (await t.store.listMessages(conversation.id, 10)).find((m) => m.role === 'assistant'));
    expect(reply.content).toBe('Configured.');
    expect(server.requests[0]!.body.model).toBe('claude-sonnet-4-5');
    expect(server.requests[0]!.headers['x-api-key']).toBe('sk-ant-your-key');
  });
});

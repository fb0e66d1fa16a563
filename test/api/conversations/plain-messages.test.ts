import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/shared/log.js';
import { startAnthropicServer, type AnthropicServer, type MessagesReply } from '../../helpers/anthropic-server.js';
import { listen, makeTestApp, type TestApp } from '../../helpers/app.js';
import { startOpenAiServer, type ChatReply } from '../../helpers/openai-server.js';
import { openSse, type SseClient, type SseFrame } from '../../helpers/sse.js';
import { startSupervisor } from '../../helpers/supervisor.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/**
 * Plain messages answered by the default assistant: the real API, a real supervisor (its worker
 * threads run the real adapters) and local servers speaking the vendors' wire formats.
 */

const SECRET = 'sk-ant-chat-SECRET-0123456789';

let home: TempHome;
let t: TestApp;
let url: string;
let logText: string;
let projectDir: string;

beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  url = await listen(t.app);
  logText = '';
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: Echoes the greeting\nnodes:\n  - id: a\n    bash: echo hi\n');
  projectDir = await mkdtemp(join(tmpdir(), 'cairn-chat-plain-'));
  home.defer(() => rm(projectDir, { recursive: true, force: true }));
  await t.store.registerCodebase({
    id: 'acme/app', name: 'acme/app', repository_url: null, default_cwd: projectDir, default_branch: null, kind: 'folder', managed: false,
    env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
  });
});
afterEach(async () => {
  await home.close();
});

/** A supervisor whose default assistant is the local Anthropic server; its log is kept in `logText`. */
async function startWithAnthropic(reply: (index: number) => MessagesReply, env: Record<string, string> = {}): Promise<AnthropicServer> {
  const server = await startAnthropicServer((_req, index) => reply(index));
  home.defer(() => server.close());
  const log = createLogger({ name: 'test', level: 'debug', destination: { write: (line: string) => void (logText += line) } });
  await startSupervisor(home, {
    log,
    env: { CAIRN_DEFAULT_ASSISTANT: 'anthropic', ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: SECRET, ...env },
  });
  return server;
}

const post = (path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function newConversation(): Promise<{ id: string; sse: SseClient }> {
  const id = ((await (await post('/api/conversations', {})).json()) as { conversationId: string }).conversationId;
  const sse = await openSse(`${url}/api/stream/${id}?lastEventId=0`);
  home.defer(() => sse.close());
  return { id, sse };
}

async function assistantMessages(id: string) {
  const messages = await t.store.listMessages((await t.store.getConversation(id))!.id, 500);
  return messages.filter((m) => m.role === 'assistant');
}

/** Sends a message and waits for its turn to end; answers the new assistant messages and the turn's frames. */
async function ask(id: string, sse: SseClient, message: string): Promise<{ replies: string[]; frames: SseFrame[] }> {
  const before = (await assistantMessages(id)).length;
  const unlocksBefore = sse.frames.filter((f) => f.data.type === 'conversation_lock' && f.data.locked === false).length;
  const from = sse.frames.length;
  expect((await post(`/api/conversations/${id}/message`, { message })).status).toBe(200);
  await sse.until((frames) => frames.filter((f) => f.data.type === 'conversation_lock' && f.data.locked === false).length > unlocksBefore);
  const replies = await waitFor(async () => {
    const all = await assistantMessages(id);
    return all.length > before ? all.slice(before).map((m) => m.content) : undefined;
  });
  const start = sse.frames.findIndex((f, i) => i >= from && f.data.type === 'conversation_lock' && f.data.locked === true);
  const end = sse.frames.findIndex((f, i) => i > start && f.data.type === 'conversation_lock' && f.data.locked === false);
  return { replies, frames: sse.frames.slice(start, end + 1) };
}

const types = (frames: SseFrame[]) => frames.map((f) => f.data.type as string);

describe('plain messages and the default assistant', () => {
  it('streams the answer as batched text frames between the locks, stores it as one message, and sends projects, workflows and history', async () => {
    const long = 'x'.repeat(1500);
    const server = await startWithAnthropic((index) =>
      index === 0
        ? { kind: 'stream', blocks: [{ type: 'text', text: 'First answer.' }] }
        : { kind: 'stream', blocks: [{ type: 'text', text: `Part one ${long}` }, { type: 'text', text: ' part two' }, { type: 'text', text: ' and the end.' }] },
    );
    const { id, sse } = await newConversation();
    const first = await ask(id, sse, 'What can you do for me?');
    expect(first.replies).toEqual(['First answer.']);
    expect(types(first.frames)).toEqual(['conversation_lock', 'text', 'conversation_lock']);

    const second = await ask(id, sse, 'And then?');
    const expected = `Part one ${long} part two and the end.`;
    expect(second.replies).toEqual([expected]);
    const kinds = types(second.frames);
    expect(kinds[0]).toBe('conversation_lock');
    expect(kinds.at(-1)).toBe('conversation_lock');
    expect(second.frames[0]!.data.locked).toBe(true);
    const texts = second.frames.filter((f) => f.data.type === 'text');
    // The answer is more than one batch: at least one frame while it streams, then the closing one.
    expect(texts.length).toBeGreaterThanOrEqual(2);
    expect(texts.length).toBeLessThan(10);
    expect(texts.at(-1)!.data.isComplete).toBe(true);
    expect(texts.slice(0, -1).every((f) => f.data.isComplete === false)).toBe(true);
    expect(texts.map((f) => f.data.content).join('')).toBe(expected);

    // What the provider was sent: the orchestrator's system prompt and the history with the message.
    expect(server.requests).toHaveLength(2);
    const body = server.requests[1]!.body;
    expect(body.system).toContain('acme/app');
    expect(body.system).toContain('- plain: Echoes the greeting');
    expect(body.system).toContain('/invoke-workflow <workflow name> --project <project id>');
    const prompt = body.messages[0].content as string;
    expect(prompt).toContain('[user]: What can you do for me?');
    expect(prompt).toContain('[assistant]: First answer.');
    expect(prompt.trim().endsWith('And then?')).toBe(true);
    expect(prompt.match(/And then\?/g)).toHaveLength(1);
    expect(server.requests[1]!.headers['x-api-key']).toBe(SECRET);
    expect((await t.store.getConversation(id))!.title).toBe('What can you do for me?');
  });

  it('answers a 401 with the failure class and what to do, unlocks, and never shows the key', async () => {
    await startWithAnthropic(() => ({ kind: 'error', status: 401, type: 'authentication_error', message: `invalid x-api-key ${SECRET}` }));
    const { id, sse } = await newConversation();
    const { replies, frames } = await ask(id, sse, 'hello there');
    expect(replies).toHaveLength(1);
    expect(replies[0]).toContain('The assistant (anthropic) could not answer: authentication failed (auth).');
    expect(replies[0]).toContain('What to do: Check the API key');
    expect(replies[0]).toContain('[redacted]');
    expect(types(frames)).toEqual(['conversation_lock', 'text', 'conversation_lock']);
    const all = JSON.stringify(sse.frames) + JSON.stringify(await t.store.listMessages((await t.store.getConversation(id))!.id, 500));
    expect(all).not.toContain(SECRET);
    expect(logText).toContain('chat.assistant_failed');
    expect(logText).not.toContain(SECRET);
  });

  it('answers a provider that never sends an event with a timeout, from the first-event watchdog', async () => {
    await startWithAnthropic(() => ({ kind: 'hang' }), { CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS: '300' });
    const { id, sse } = await newConversation();
    const { replies } = await ask(id, sse, 'are you there?');
    expect(replies[0]).toContain('could not answer: timed out (timeout)');
    expect(replies[0]).toContain('CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS');
  });

  it('a turn waiting on its provider holds up neither the claim loop nor other conversations', async () => {
    const server = await startWithAnthropic(() => ({ kind: 'hang' }), { CAIRN_PROVIDER_FIRST_EVENT_TIMEOUT_MS: '600000' });
    const a = await newConversation();
    expect((await post(`/api/conversations/${a.id}/message`, { message: 'think hard' })).status).toBe(200);
    await waitFor(async () => (server.requests.length === 1 ? true : undefined));
    const b = await newConversation();
    const { replies } = await ask(b.id, b.sse, '/help');
    expect(replies[0]).toContain('Commands:');
    // The first turn is still waiting on its provider meanwhile.
    expect(await assistantMessages(a.id)).toEqual([]);
    expect(types(a.sse.frames).filter((type) => type !== 'heartbeat')).toEqual(['conversation_lock']);
    // The provider goes away: the turn ends with an answer and the conversation unlocks.
    await server.close();
    await a.sse.until((frames) => frames.some((f) => f.data.type === 'conversation_lock' && f.data.locked === false));
    expect((await assistantMessages(a.id))[0]!.content).toContain('The assistant (anthropic) could not answer');
  });

  it('/invoke-workflow in the answer retracts the text and dispatches the workflow with the original message', async () => {
    await startWithAnthropic(() => ({
      kind: 'stream',
      blocks: [{ type: 'text', text: 'I will start it.\n/invoke-workflow plain --project acme/app\n' }],
    }));
    const { id, sse } = await newConversation();
    const { replies, frames } = await ask(id, sse, 'please greet everyone');
    expect(replies[0]).toBe('🚀 Dispatching workflow: **plain** (background)');
    const kinds = types(frames);
    expect(kinds).toContain('retract');
    expect(kinds.indexOf('retract')).toBeLessThan(kinds.indexOf('workflow_dispatch'));
    const dispatch = frames.find((f) => f.data.type === 'workflow_dispatch')!.data;
    expect(dispatch).toMatchObject({ workflowName: 'plain' });
    expect(dispatch.workerConversationId).toMatch(/^web-worker-\d+-[a-z0-9]{6}$/);
    const byWorker = (await (await fetch(`${url}/api/workflows/runs/by-worker/${dispatch.workerConversationId}`)).json()) as {
      run: { id: string; user_message: string; codebase_id: string; metadata: Record<string, unknown> };
    };
    expect(byWorker.run).toMatchObject({ user_message: 'please greet everyone', codebase_id: 'acme/app', metadata: { parent_conversation_id: id } });
    await sse.until((all) => all.some((f) => f.data.type === 'text' && f.data.category === 'workflow_result'));
  });

  it('a hostile or unknown workflow name or project dispatches nothing', async () => {
    const lines = [
      '/invoke-workflow ../../x --project acme/app',
      '/invoke-workflow $(id) --project acme/app',
      '/invoke-workflow nope --project acme/app',
      '/invoke-workflow plain --project ../../etc',
      '/invoke-workflow plain --project other/unknown',
      '/invoke-workflow plain --project acme/app; rm -rf /',
    ];
    await startWithAnthropic((index) => ({ kind: 'stream', blocks: [{ type: 'text', text: `Starting.\n${lines[index]}` }] }));
    const { id, sse } = await newConversation();
    for (const line of lines) {
      const { replies, frames } = await ask(id, sse, `try ${line.length}`);
      expect(replies[0], line).toContain('Nothing was started.');
      expect(types(frames), line).toContain('retract');
      expect(types(frames), line).not.toContain('workflow_dispatch');
    }
    expect(await t.store.listRuns({ limit: 50 })).toEqual([]);
    const answers = (await assistantMessages(id)).map((m) => m.content);
    expect(answers[0]).toContain("workflow named '../../x', which is not a valid workflow name");
    expect(answers[2]).toContain("no workflow of that name is discovered for project acme/app");
    expect(answers[4]).toContain("project 'other/unknown', which is not a registered project. Registered: acme/app.");
  });

  it('/register-project lines are not carried out: the answer shows the command to run', async () => {
    await startWithAnthropic((index) => ({
      kind: 'stream',
      blocks: [{ type: 'text', text: index === 0 ? 'Register it.\n/register-project site /srv/projects/site' : 'Here.\n/register-project x $(rm -rf ~)' }],
    }));
    const { id, sse } = await newConversation();
    const first = await ask(id, sse, 'add my site');
    expect(first.replies[0]).toContain('- `cairn codebase add /srv/projects/site`');
    const texts = first.frames.filter((f) => f.data.type === 'text').map((f) => f.data.content).join('');
    expect(texts).toBe(first.replies[0]);
    const second = await ask(id, sse, 'add another');
    expect(second.replies[0]).toContain('- `cairn codebase add <path>`');
    expect(second.replies[0]).not.toContain('cairn codebase add $(');
    expect((await t.store.listCodebases()).map((c) => c.id)).toEqual(['acme/app']);
  });

  it('a default assistant that cannot run (an unknown provider) answers that it cannot, and how to choose another', async () => {
    await startSupervisor(home, { env: { CAIRN_DEFAULT_ASSISTANT: 'gpt' } });
    const { id, sse } = await newConversation();
    const { replies } = await ask(id, sse, 'hello');
    expect(replies[0]).toContain("The default assistant 'gpt' cannot answer messages");
    expect(replies[0]).toContain('CAIRN_DEFAULT_ASSISTANT');
  });

  it('answers through an OpenAI-compatible server configured in config.yaml, from the message after the edit on, without a restart', async () => {
    const server = await startOpenAiServer(() => ({ kind: 'stream', deltas: ['Hello', ' from', ' a local model.'] }) satisfies ChatReply);
    home.defer(() => server.close());
    await startSupervisor(home);
    const { id, sse } = await newConversation();
    const before = await ask(id, sse, 'hi');
    expect(before.replies[0]).toContain('No AI provider is configured');
    await writeFile(
      home.paths.config,
      `defaultAssistant: openai-compatible\nassistants:\n  openai-compatible:\n    baseUrl: ${server.url}\n    model: local-model\n`,
    );
    const { replies } = await ask(id, sse, 'hi');
    expect(replies).toEqual(['Hello from a local model.']);
    expect(server.requests[0]!.body.model).toBe('local-model');
    expect(server.requests[0]!.body.messages[0]).toMatchObject({ role: 'system' });
    expect(server.requests[0]!.body.messages[0].content).toContain('acme/app');
  });

  it('titles an untitled conversation with the first 60 characters of its first message and ...', async () => {
    const { id } = await newConversation();
    const message = 'Please summarise the release notes of the last three versions in one short list';
    await post(`/api/conversations/${id}/message`, { message });
    expect((await t.store.getConversation(id))!.title).toBe(`${message.slice(0, 60)}...`);
  });
});

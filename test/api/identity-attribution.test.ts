import { afterEach, beforeEach, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { startSupervisor } from '../helpers/supervisor.js';
import { waitFor } from '../helpers/wait-for.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';

/** Runs, conversations and messages record the X-Service-User of the request that created them. */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const json = { 'content-type': 'application/json' };

it('records the trimmed user on a new conversation and its first message, and null without one', async () => {
  const mine = await t.app.inject({ method: 'POST', url: '/api/conversations', headers: { ...json, 'x-service-user': '  alice  ' }, payload: { message: 'hi' } });
  const conversation = await t.store.getConversation(mine.json().conversationId);
  expect(conversation?.user_id).toBe('alice');
  expect((await t.store.listMessages(conversation!.id, 10)).map((m) => m.user_id)).toEqual(['alice']);
  const anonymous = await t.app.inject({ method: 'POST', url: '/api/conversations', headers: { ...json, 'x-service-user': '   ' }, payload: {} });
  expect((await t.store.getConversation(anonymous.json().conversationId))?.user_id).toBeNull();
});

it('records the user on a posted message, and on a conversation created by it', async () => {
  const headers = { ...json, 'x-service-user': 'bob "the builder"' };
  const res = await t.app.inject({ method: 'POST', url: '/api/conversations/web-new-1/message', headers, payload: { message: 'hello' } });
  expect(res.statusCode).toBe(200);
  const conversation = await t.store.getConversation('web-new-1');
  expect(conversation?.user_id).toBe('bob "the builder"');
  expect((await t.store.listMessages(conversation!.id, 10))[0]?.user_id).toBe('bob "the builder"');
});

it('records the user on a run and its conversation; an over-long header is refused before anything is written', async () => {
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n');
  const started = await t.app.inject({ method: 'POST', url: '/api/workflows/plain/run', headers: { ...json, 'x-service-user': 'carol' }, payload: {} });
  const run = await t.store.getRun(started.json().runId);
  expect(run?.user_id).toBe('carol');
  expect((await t.store.getConversation(run!.conversation_id))?.user_id).toBe('carol');
  const refused = await t.app.inject({ method: 'POST', url: '/api/workflows/plain/run', headers: { ...json, 'x-service-user': 'x'.repeat(300) }, payload: {} });
  expect(refused.statusCode).toBe(400);
  expect(await t.store.listRuns({ limit: 10 })).toHaveLength(1);
});

it('records the user of a chat message on the run its /workflow run dispatches', async () => {
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: p\nnodes:\n  - id: a\n    bash: "true"\n');
  await startSupervisor(home);
  const headers = { ...json, 'x-service-user': 'dana' };
  const created = await t.app.inject({ method: 'POST', url: '/api/conversations', headers, payload: {} });
  const id = created.json().conversationId as string;
  expect((await t.app.inject({ method: 'POST', url: `/api/conversations/${id}/message`, headers, payload: { message: '/workflow run plain go' } })).statusCode).toBe(200);
  const run = await waitFor(async () => (await t.store.listRuns({ workflowName: 'plain', limit: 5 }))[0]);
  expect(run.user_id).toBe('dana');
  expect(run.metadata.parent_conversation_id).toBe(id);
});

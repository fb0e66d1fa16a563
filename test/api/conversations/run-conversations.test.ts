import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { writeHomeWorkflow } from '../../helpers/workflows.js';

/** Runs belong to conversations: a hidden worker conversation, or the one named, created on the fly. */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'plain', 'name: plain\ndescription: No inputs\nnodes:\n  - id: a\n    bash: "true"\n');
});
afterEach(async () => {
  await home.close();
});

const inject = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url, ...(payload ? { payload } : {}) });

describe('runs and their conversations', () => {
  it('a run started without conversationId gets a hidden worker conversation, found by worker id', async () => {
    const started = (await inject('POST', '/api/workflows/plain/run', { message: 'go' })).json();
    const worker = await t.store.getConversation(started.conversationId);
    expect(worker).toMatchObject({ platform_type: 'web', hidden: true, platform_conversation_id: started.conversationId });
    // Hidden: never listed, even with include_deleted.
    expect((await inject('GET', '/api/conversations?include_deleted=true')).json()).toEqual([]);

    const byWorker = await inject('GET', `/api/workflows/runs/by-worker/${started.conversationId}`);
    expect(byWorker.statusCode).toBe(200);
    expect(byWorker.json().run).toMatchObject({ id: started.runId, conversation_id: started.conversationId, workflow_name: 'plain' });
  });

  it('a conversationId naming no conversation creates it as web (not hidden); a known one is reused', async () => {
    const first = (await inject('POST', '/api/workflows/plain/run', { conversationId: 'chat-1' })).json();
    expect(first.conversationId).toBe('chat-1');
    const conversation = await t.store.getConversation('chat-1');
    expect(conversation).toMatchObject({ platform_type: 'web', hidden: false });
    await inject('POST', '/api/workflows/plain/run', { conversationId: 'chat-1' });
    expect(await t.store.getConversation('chat-1')).toEqual(conversation);
    expect((await t.store.listRuns({ conversationId: 'chat-1', limit: 10 })).length).toBe(2);
  });

  it('a refused run request writes no conversation', async () => {
    const res = await inject('POST', '/api/workflows/plain/run', { conversationId: 'refused-1', inputs: { nope: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(await t.store.getConversation('refused-1')).toBeUndefined();
  });

  it('answers 404 No workflow run found for this worker, whatever the id holds', async () => {
    for (const id of ['web-1-abcdef', encodeURIComponent("x' OR '1'='1"), '%25_', 'by-worker']) {
      const res = await inject('GET', `/api/workflows/runs/by-worker/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toMatchObject({ error: 'No workflow run found for this worker' });
    }
    // The run detail route is not shadowed.
    expect((await inject('GET', '/api/workflows/runs/by-worker')).json()).toMatchObject({ error: 'Workflow run not found' });
  });
});

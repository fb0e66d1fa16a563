import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listen, makeTestApp, type TestApp } from '../helpers/app.js';
import { multipartForm } from '../helpers/multipart-form.js';
import { makeTempHome, type TempHome } from '../helpers/temp-home.js';
import { writeHomeWorkflow } from '../helpers/workflows.js';
import { seedRun } from './fixtures.js';

/**
 * A lone UTF-16 surrogate (JSON `"\ud83d"`) is not text: stored in SQLite it becomes bytes that
 * are not UTF-8, which other SQLite clients cannot read. Every route that stores what a user
 * wrote refuses it with a 400 naming the field, and stores nothing.
 */

let home: TempHome;
let t: TestApp;
beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
  await writeHomeWorkflow(home, 'greet', 'name: greet\ndescription: Greets\ninputs:\n  who: { default: world }\nnodes:\n  - id: a\n    bash: echo "$INPUTS_WHO"\n');
});
afterEach(async () => {
  await home.close();
});

const lone = '\ud83d';
const refusal = (field: string, unit: string, at: number) =>
  `${field} holds a lone UTF-16 surrogate (\\u${unit} at character ${at}), which is not text: ` +
  'send well-formed Unicode (a surrogate escape must be half of a pair, as in \\ud83d\\ude00)';

async function send(method: 'POST' | 'PUT' | 'PATCH', url: string, payload: unknown, headers: Record<string, string> = {}) {
  // inject sends JSON.stringify(payload): a lone surrogate goes out as the escape `\ud83d`, as clients send it.
  const res = await t.app.inject({ method, url, payload: payload as object, headers });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

const runCount = async () => (await t.app.inject({ url: '/api/workflows/runs' })).json().runs.length as number;

describe('a lone surrogate in a request body', () => {
  it('is refused in a conversation title, and the title stays as it was', async () => {
    const { body: created } = await send('POST', '/api/conversations', {});
    const id = created.conversationId as string;
    expect(await send('PATCH', `/api/conversations/${id}`, { title: `plan ${lone}` })).toEqual({
      status: 400, body: { code: 'VALIDATION_FAILED', error: refusal('title', 'd83d', 5) },
    });
    const title = async () => (await t.app.inject({ url: `/api/conversations/${id}` })).json().title as unknown;
    const before = await title();
    // A whole pair is text like any other.
    expect((await send('PATCH', `/api/conversations/${id}`, { title: 'plan \ud83d\ude00' })).status).toBe(200);
    expect(before).toBeNull();
    expect(await title()).toBe('plan 😀');
  });

  it('is refused in a chat message, sent to a conversation or with its creation, and no message is stored', async () => {
    expect(await send('POST', '/api/conversations/web-1-abc/message', { message: `hi \udc00 there` })).toEqual({
      status: 400, body: { code: 'VALIDATION_FAILED', error: refusal('message', 'dc00', 3) },
    });
    expect(await t.store.getConversation('web-1-abc')).toBeUndefined();
    expect((await send('POST', '/api/conversations', { message: lone })).body.error).toBe(refusal('message', 'd83d', 0));
    expect((await t.app.inject({ url: '/api/conversations?include_deleted=true' })).json()).toEqual([]);
  });

  it('is refused in a run request: its message, an input, a key; no run is queued', async () => {
    expect((await send('POST', '/api/workflows/greet/run', { message: `fix ${lone}` })).body).toEqual({
      code: 'VALIDATION_FAILED', error: refusal('message', 'd83d', 4),
    });
    expect((await send('POST', '/api/workflows/greet/run', { inputs: { who: lone } })).body.error).toBe(refusal('inputs.who', 'd83d', 0));
    expect((await send('POST', '/api/workflows/greet/run', { inputs: { [`w${lone}`]: 'x' } })).body.error).toBe(
      refusal('A key of inputs', 'd83d', 1),
    );
    expect(await runCount()).toBe(0);
  });

  it('is refused in a JSON field of a multipart run request, and the upload is removed', async () => {
    const url = await listen(t.app);
    const res = await fetch(`${url}/api/workflows/greet/run`, {
      method: 'POST',
      body: multipartForm({ message: 'with a file', inputs: '{"who":"\\ud83d"}' }, [{ name: 'notes.md', bytes: 'notes' }]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe(refusal('inputs.who', 'd83d', 0));
    expect(await runCount()).toBe(0);
    const uploads = join(home.home, 'tmp', 'uploads');
    expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual([]);
  });

  it('is refused in a workflow saved, naming where in the definition, and no file is written', async () => {
    const definition = { name: 'saved', description: 'd', nodes: [{ id: 'a', bash: `echo ${lone}` }] };
    expect((await send('PUT', '/api/workflows/saved?source=global', { definition })).body).toEqual({
      code: 'VALIDATION_FAILED', error: refusal('definition.nodes[0].bash', 'd83d', 5),
    });
    expect(existsSync(join(home.paths.workflows, 'saved.yaml'))).toBe(false);
    expect((await send('POST', '/api/workflows/validate', { definition })).status).toBe(400);
  });

  it('is refused in the comment of an approve and the reason of a reject', async () => {
    const run = await seedRun(t.store);
    expect((await send('POST', `/api/workflows/runs/${run.id}/approve`, { comment: lone })).body).toEqual({
      code: 'VALIDATION_FAILED', error: refusal('comment', 'd83d', 0),
    });
    expect((await send('POST', `/api/workflows/runs/${run.id}/reject`, { reason: `no${lone}` })).body.error).toBe(refusal('reason', 'd83d', 2));
  });

  it('is refused in a credential label and a preference', async () => {
    const ann = { 'x-service-user': 'ann' };
    expect((await send('PUT', '/api/auth/providers/anthropic', { apiKey: 'sk-ant-123456789', label: `work ${lone}` }, ann)).body.error).toBe(
      refusal('label', 'd83d', 5),
    );
    expect((await t.app.inject({ url: '/api/auth/providers', headers: ann })).json().connections).toEqual([]);
    expect((await send('PATCH', '/api/auth/me/ai-prefs/aliases', { aliases: { '@fast': { provider: 'anthropic', model: lone } } }, ann)).body.error).toBe(
      refusal("aliases.@fast.model", 'd83d', 0),
    );
  });
});

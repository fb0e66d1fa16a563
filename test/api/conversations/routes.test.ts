import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../../helpers/app.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';

let home: TempHome;
let t: TestApp;

beforeEach(async () => {
  home = await makeTempHome();
  t = await makeTestApp(home);
});
afterEach(async () => {
  await home.close();
});

const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
  t.app.inject({ method, url, ...(payload !== undefined ? { payload: payload as object } : {}) });

async function create(body: unknown = {}): Promise<string> {
  const res = await inject('POST', '/api/conversations', body);
  expect(res.statusCode).toBe(200);
  return res.json().conversationId as string;
}

describe('POST /api/conversations', () => {
  it('answers {} with the created conversation, platform_conversation_id included; listing finds it at once', async () => {
    const res = await inject('POST', '/api/conversations', {});
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.platform_conversation_id).toMatch(/^web-\d+-[a-z0-9]{1,6}$/);
    expect(body.conversationId).toBe(body.platform_conversation_id); // the upstream client's spelling
    expect(body).toMatchObject({ platform_type: 'web', hidden: false, title: null, codebase_id: null, deleted_at: null });
    expect((await inject('GET', `/api/conversations/${body.platform_conversation_id}`)).json()).toEqual(
      Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'conversationId')),
    );
    // Just created, no message yet: listed. Deleted: listed only with include_deleted.
    const listed = () => inject('GET', '/api/conversations').then((r) => r.json().map((c: { platform_conversation_id: string }) => c.platform_conversation_id));
    expect(await listed()).toEqual([body.platform_conversation_id]);
    expect((await inject('DELETE', `/api/conversations/${body.platform_conversation_id}`)).statusCode).toBe(200);
    expect(await listed()).toEqual([]);
    const withDeleted = (await inject('GET', '/api/conversations?include_deleted=true')).json();
    expect(withDeleted.map((c: { platform_conversation_id: string }) => c.platform_conversation_id)).toEqual([body.platform_conversation_id]);
  });

  it('accepts no body at all', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/conversations' });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('refuses an unknown codebase with 400 Codebase not found, writing nothing', async () => {
    for (const body of [{ codebase_id: 'no/such' }, { codebaseId: "x'; DROP TABLE conversations; --" }]) {
      const res = await inject('POST', '/api/conversations', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'Codebase not found' });
      expect(res.json().detail).toContain('No codebase with id');
    }
    expect(await t.store.listConversations({ includeDeleted: true, limit: 50 })).toEqual([]);
  });

  it('refuses bodies of the wrong shape naming the problem', async () => {
    const cases: [unknown, string][] = [
      [{ codebase_id: 5 }, 'codebase_id must be a string'],
      [{ codebase_id: '' }, 'codebase_id must be a non-empty string'],
      [{ message: '   ' }, 'message must be a non-empty string'],
      [[1, 2], 'The body must be a JSON object'],
    ];
    for (const [body, text] of cases) {
      const res = await inject('POST', '/api/conversations', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toContain(text);
    }
    const bad = await t.app.inject({ method: 'POST', url: '/api/conversations', payload: '{nope', headers: { 'content-type': 'application/json' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('Invalid JSON in request body');
  });

  it('with a message, creates, stores the message and queues the turn', async () => {
    const res = await inject('POST', '/api/conversations', { message: 'hello there' });
    expect(res.json()).toMatchObject({ dispatched: true, accepted: true, status: 'started' });
    const messages = (await inject('GET', `/api/conversations/${res.json().conversationId}/messages`)).json();
    expect(messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([['user', 'hello there']]);
    expect((await inject('GET', '/api/conversations')).json()[0].title).toBe('hello there');
  });
});

describe('GET /api/conversations', () => {
  it('lists newest activity first, filters by codebase, hides deleted unless include_deleted', async () => {
    await t.store.registerCodebase({
      id: 'acme/app', name: 'acme/app', repository_url: null, default_cwd: home.home, default_branch: null, kind: 'folder',
      managed: false, env_scan: { status: 'clean', files: [], keys: [], scanned_at: new Date().toISOString() },
    });
    const a = await create({ codebase_id: 'acme/app' });
    const b = await create();
    await inject('PATCH', `/api/conversations/${a}`, { title: 'first' });
    await inject('PATCH', `/api/conversations/${b}`, { title: 'second' });
    await inject('POST', `/api/conversations/${a}/message`, { message: 'bump a' });
    const ids = async (query = '') => (await inject('GET', `/api/conversations${query}`)).json().map((c: { platform_conversation_id: string }) => c.platform_conversation_id);
    expect(await ids()).toEqual([a, b]);
    expect(await ids('?codebase_id=acme%2Fapp')).toEqual([a]);
    expect(await ids('?codebaseId=acme%2Fapp')).toEqual([a]);
    expect(await ids("?codebase_id=%25'%20OR%201%3D1%20--")).toEqual([]);
    expect((await inject('DELETE', `/api/conversations/${a}`)).json()).toEqual({ success: true });
    expect(await ids()).toEqual([b]);
    expect(await ids('?include_deleted=true')).toEqual([a, b]);
    expect(await ids('?include_deleted=false')).toEqual([b]);
    const bad = await inject('GET', '/api/conversations?include_deleted=maybe');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toContain('include_deleted must be true or false');
  });
});

describe('one conversation', () => {
  it('answers 404 Conversation not found for unknown ids on every route that reads one', async () => {
    for (const [method, url, body] of [
      ['GET', '/api/conversations/nope', undefined],
      ['PATCH', '/api/conversations/nope', { title: 't' }],
      ['DELETE', '/api/conversations/nope', undefined],
      ['GET', '/api/conversations/nope/messages', undefined],
    ] as const) {
      const res = await inject(method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toMatchObject({ error: 'Conversation not found' });
    }
  });

  it('answers 400 Invalid conversation ID for ids outside [A-Za-z0-9_-]', async () => {
    for (const id of ['a.b', "a'b", 'a%25b', 'a%00b', '%20', 'x'.repeat(201)]) {
      for (const [method, url, body] of [
        ['GET', `/api/conversations/${id}`, undefined],
        ['POST', `/api/conversations/${id}/message`, { message: 'hi' }],
        ['GET', `/api/conversations/${id}/messages`, undefined],
      ] as const) {
        const res = await inject(method, url, body);
        expect(res.statusCode, `${method} ${url}`).toBe(400);
        expect(res.json().error).toContain('Invalid conversation ID');
      }
    }
  });

  it('answers 400 for __dashboard__, the key of the dashboard stream, and never creates it', async () => {
    const res = await inject('POST', '/api/conversations/__dashboard__/message', { message: '/help' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(
      "Invalid conversation ID: '__dashboard__' is reserved for the dashboard stream (GET /api/stream/__dashboard__); use another id",
    );
    const conv = await inject('GET', '/api/conversations/__dashboard__');
    expect(conv.statusCode).not.toBe(200);
    expect(await t.store.getConversation('__dashboard__')).toBeUndefined();
  });

  it('renames (cut to 255 characters, hostile text kept as text) and answers success with the conversation', async () => {
    const id = await create();
    const hostile = `'; DROP TABLE conversations; -- %_ " ${'é'.repeat(300)}`;
    const res = await inject('PATCH', `/api/conversations/${id}`, { title: hostile });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, conversation: { title: [...hostile].slice(0, 255).join('') } });
    expect((await inject('GET', `/api/conversations/${id}`)).json().title).toHaveLength(255);
    for (const [body, text] of [[{}, 'title must be a string'], [{ title: ' ' }, 'title must be a non-empty string'], [{ title: 3 }, 'title must be a string']] as const) {
      const bad = await inject('PATCH', `/api/conversations/${id}`, body);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toContain(text);
    }
  });

  it('refuses a title holding a NUL byte with a 400 naming title, and keeps the old title', async () => {
    const id = await create();
    expect((await inject('PATCH', `/api/conversations/${id}`, { title: 'Release prep' })).statusCode).toBe(200);
    for (const title of ['a\u0000b', '\u0000']) {
      const bad = await inject('PATCH', `/api/conversations/${id}`, { title });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({ error: 'title must not contain a NUL byte (\\u0000)', code: 'VALIDATION_FAILED' });
    }
    expect((await inject('GET', `/api/conversations/${id}`)).json().title).toBe('Release prep');
  });

  it('soft-deletes: still readable by id with deleted_at set', async () => {
    const id = await create();
    await inject('DELETE', `/api/conversations/${id}`);
    const res = await inject('GET', `/api/conversations/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().deleted_at).not.toBeNull();
  });
});

describe('POST /api/conversations/{id}/message', () => {
  it('refuses a missing or empty message with the upstream text', async () => {
    const id = await create();
    for (const body of [{}, { message: '' }, { message: '  ' }, { message: 5 }, { message: null }]) {
      const res = await inject('POST', `/api/conversations/${id}/message`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error).toBe('message must be a non-empty string');
    }
    const none = await t.app.inject({ method: 'POST', url: `/api/conversations/${id}/message` });
    expect(none.statusCode).toBe(400);
    expect(none.json().error).toBe('message must be a non-empty string');
    const bad = await t.app.inject({ method: 'POST', url: `/api/conversations/${id}/message`, payload: '{"message":', headers: { 'content-type': 'application/json' } });
    expect(bad.json()).toMatchObject({ error: 'Invalid JSON in request body' });
    expect((await inject('GET', `/api/conversations/${id}/messages`)).json()).toEqual([]);
  });

  it('answers started, then queued-conversation while a turn of the conversation is open', async () => {
    const id = await create();
    const first = await inject('POST', `/api/conversations/${id}/message`, { message: 'one' });
    expect(first.json()).toEqual({ accepted: true, status: 'started' });
    expect((await inject('POST', `/api/conversations/${id}/message`, { message: 'two' })).json()).toEqual({ accepted: true, status: 'queued-conversation' });
    expect((await t.store.getChatTurnQueue()).queuedByConversation).toEqual({ [id]: 2 });
  });

  it('creates an unknown conversation on the fly as web', async () => {
    const res = await inject('POST', '/api/conversations/fresh-id_1/message', { message: 'hi' });
    expect(res.json()).toEqual({ accepted: true, status: 'started' });
    expect((await inject('GET', '/api/conversations/fresh-id_1')).json()).toMatchObject({ platform_type: 'web', title: 'hi' });
  });

  it('stores hostile messages exactly', async () => {
    const id = await create();
    const hostile = `"; DELETE FROM messages; -- \u0000 %_ ${'z'.repeat(100_000)}`;
    expect((await inject('POST', `/api/conversations/${id}/message`, { message: hostile })).statusCode).toBe(200);
    const [stored] = (await inject('GET', `/api/conversations/${id}/messages`)).json();
    expect(stored.content).toBe(hostile);
    expect(stored.metadata).toBe('{}');
    // The title it gives the conversation drops control characters: no NUL reaches a list.
    const { title } = (await inject('GET', `/api/conversations/${id}`)).json();
    expect(title).toBe('"; DELETE FROM messages; -- %_ ' + 'z'.repeat(29) + '...');
  });
});

describe('GET /api/conversations/{id}/messages', () => {
  it('pages back with limit and before: ascending pages, no gap, no repeat', async () => {
    const id = await create();
    for (let i = 0; i < 12; i++) await inject('POST', `/api/conversations/${id}/message`, { message: `m${i}` });
    const seen: string[] = [];
    let before: number | undefined;
    for (;;) {
      const page = (await inject('GET', `/api/conversations/${id}/messages?limit=5${before ? `&before=${before}` : ''}`)).json();
      if (page.length === 0) break;
      seen.unshift(...page.map((m: { content: string }) => m.content));
      before = page[0].id;
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`));
    const all = (await inject('GET', `/api/conversations/${id}/messages?limit=9999`)).json();
    expect(all).toHaveLength(12);
    const future = (await inject('GET', `/api/conversations/${id}/messages?before=2999-01-01T00:00:00Z`)).json();
    expect(future).toHaveLength(12);
  });

  it('refuses bad limit and before values with 400 naming them', async () => {
    const id = await create();
    for (const [query, text] of [
      ['limit=0', 'limit must be a positive integer'],
      ['limit=-1', 'limit must be a positive integer'],
      ['limit=abc', 'limit must be a positive integer'],
      ['limit=1.5', 'limit must be a positive integer'],
      ['limit=99999999999999', 'limit must be a positive integer'],
      ['before=yesterday', 'before must be a message id'],
      ["before=1'%20OR%201=1", 'before must be a message id'],
      ['before=2026-13-45', 'before must be a message id'],
      ['before=2026-02-30', 'before must be a message id'],
      ['before=0', 'before must be a message id (a positive integer)'],
      ['before=000', 'before must be a message id (a positive integer)'],
    ] as const) {
      const res = await inject('GET', `/api/conversations/${id}/messages?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toContain(text);
    }
  });
});

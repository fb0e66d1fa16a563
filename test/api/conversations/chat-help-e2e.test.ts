import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer } from '../../helpers/server.js';
import { openSse } from '../../helpers/sse.js';
import { makeTempHome, type TempHome } from '../../helpers/temp-home.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * REFERENCE §12 rows 13–16 against the real `cairn serve` (API and supervisor processes): the
 * API only queues the turn; the supervisor answers on the conversation's stream.
 */

let home: TempHome;
beforeEach(async () => {
  home = await makeTempHome();
});
afterEach(async () => {
  await home.close();
});

const json = { 'content-type': 'application/json' };

describe('chat over the real server', () => {
  it('answers /help: started, then lock true, text with /workflow list, lock false; user then assistant rows', async () => {
    const server = await startServer(home);
    const created = await fetch(`${server.url}/api/conversations`, { method: 'POST', headers: json, body: '{}' });
    expect(created.status).toBe(200);
    const { conversationId, id } = (await created.json()) as { conversationId: string; id: string };
    expect(conversationId).toMatch(/^web-\d+-[a-z0-9]{1,6}$/);
    expect(typeof id).toBe('string');
    // Listed at once, before any message (the contract hides only worker and deleted conversations).
    expect(((await (await fetch(`${server.url}/api/conversations`)).json()) as { platform_conversation_id: string }[]).map((c) => c.platform_conversation_id)).toEqual([conversationId]);

    const missing = await fetch(`${server.url}/api/conversations/nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'Conversation not found' });
    const empty = await fetch(`${server.url}/api/conversations/${conversationId}/message`, { method: 'POST', headers: json, body: '{}' });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({ error: 'message must be a non-empty string' });
    const badId = await fetch(`${server.url}/api/conversations/a.b/message`, { method: 'POST', headers: json, body: '{"message":"hi"}' });
    expect(badId.status).toBe(400);
    expect(await badId.json()).toMatchObject({ error: 'Invalid conversation ID' });

    const sse = await openSse(`${server.url}/api/stream/${conversationId}`);
    home.defer(() => sse.close());
    const sent = await fetch(`${server.url}/api/conversations/${conversationId}/message`, {
      method: 'POST', headers: json, body: JSON.stringify({ message: '/help' }),
    });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toEqual({ accepted: true, status: 'started' });

    const chat = () => sse.frames.map((f) => f.data).filter((d) => d.type === 'conversation_lock' || d.type === 'text');
    await sse.until(() => chat().some((d) => d.type === 'conversation_lock' && d.locked === false));
    const [lockOn, text, lockOff] = chat();
    expect(lockOn).toMatchObject({ type: 'conversation_lock', locked: true, conversationId });
    expect(text).toMatchObject({ type: 'text', isComplete: true });
    expect(text!.content).toContain('/workflow list');
    expect(lockOff).toMatchObject({ type: 'conversation_lock', locked: false, conversationId });
    expect(chat()).toHaveLength(3);

    const messages = (await (await fetch(`${server.url}/api/conversations/${conversationId}/messages`)).json()) as { role: string; content: string; metadata: string }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[0]!.content).toBe('/help');
    expect(messages[1]!.content).toBe(text!.content);
    expect(typeof messages[1]!.metadata).toBe('string');

    // The turn is over: nothing open in the health view.
    const health = await waitFor(async () => {
      const h = (await (await fetch(`${server.url}/api/health`)).json()) as { concurrency: Record<string, unknown> };
      return (h.concurrency.activeConversationIds as string[]).length === 0 ? h : undefined;
    });
    expect(health.concurrency).toMatchObject({ maxConcurrent: 10, queuedTotal: 0, queuedByConversation: {} });
  });
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewConversation, Store } from '../../../src/store/store.js';
import { useHarness, type StoreBackend } from './backend.js';
import { newRun } from '../fixtures.js';

const conversation = (platformId: string, over: Partial<NewConversation> = {}): NewConversation => ({
  id: randomUUID().replaceAll('-', ''), platform_type: 'web', platform_conversation_id: platformId,
  codebase_id: null, hidden: false, ...over,
});

/** Every message of a conversation, paged back `limit` at a time from the newest. */
async function pageBack(store: Store, conversationId: string, limit: number): Promise<number[][]> {
  const pages: number[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await store.listMessages(conversationId, limit, before === undefined ? undefined : { beforeId: before });
    if (page.length === 0) return pages;
    pages.push(page.map((m) => m.id));
    before = page[0]!.id;
  }
}

/** ConversationStore: conversations by platform id, messages in id order, chat turns as jobs. */
export function describeConversationContract(backend: StoreBackend): void {
  describe('conversations', () => {
    const h = useHarness(backend);

    it('creates once per platform id and reads it back by platform id', async () => {
      const store = h().open();
      const first = await store.createConversation(conversation('web-1-a'));
      const again = await store.createConversation(conversation('web-1-a', { title: 'other' }));
      expect(again).toEqual(first);
      expect(first).toMatchObject({ platform_conversation_id: 'web-1-a', hidden: false, title: null, deleted_at: null, cwd: null });
      expect(await store.getConversation('web-1-a')).toEqual(first);
      expect(await store.getConversation('nope')).toBeUndefined();
    });

    it('lists newest activity first, a new empty one included, without hidden or deleted ones unless asked', async () => {
      // Each write a second after the last: two writes in one millisecond would tie.
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => (now += 1000) });
      const a = await store.createConversation(conversation('a', { title: 'A' }));
      await store.createConversation(conversation('empty'));
      await store.createConversation(conversation('worker', { hidden: true, title: 'W' }));
      const b = await store.createConversation(conversation('b'));
      await store.addMessage(b.id, { role: 'user', content: 'hi' });
      await store.createConversation(conversation('gone', { title: 'G' }));
      await store.deleteConversation('gone');
      const ids = async (includeDeleted: boolean) =>
        (await store.listConversations({ includeDeleted, limit: 50 })).map((c) => c.platform_conversation_id);
      // The contract hides only worker conversations and deleted ones: one just created, with
      // no title and no message yet, must be findable by listing.
      expect(await ids(false)).toEqual(['b', 'empty', 'a']);
      expect(await ids(true)).toEqual(['gone', 'b', 'empty', 'a']);
      expect((await store.getConversation('gone'))?.deleted_at).not.toBeNull();
      expect(a.title).toBe('A');
      expect((await store.listConversations({ includeDeleted: false, limit: 1 })).length).toBe(1);
    });

    it('stores hostile text as it is: quotes, %, _, SQL, NUL', async () => {
      const store = h().open();
      const hostile = `'; DROP TABLE messages; -- %_ "\u0000 ${'x'.repeat(10_000)}`;
      const c = await store.createConversation(conversation(`id'%_"`, { title: hostile }));
      expect(c.title).toBe(hostile);
      const m = await store.addMessage(c.id, { role: 'user', content: hostile, metadata: { hostile } });
      expect(m.content).toBe(hostile);
      expect(JSON.parse(m.metadata)).toEqual({ hostile });
      expect(await store.listConversations({ includeDeleted: false, limit: 50, codebaseId: "%' OR 1=1 --" })).toEqual([]);
      expect((await store.renameConversation(`id'%_"`, 'plain'))?.title).toBe('plain');
    });

    it('pages back through history with limit + before: no gaps, no repeats, same timestamps included', async () => {
      // A frozen clock: every message has the same created_at, so only the id orders them.
      const store = h().open({ clock: () => Date.parse('2026-01-01T00:00:00.000Z') });
      const c = await store.createConversation(conversation('paged'));
      const other = await store.createConversation(conversation('other'));
      const written: number[] = [];
      for (let i = 0; i < 23; i++) {
        written.push((await store.addMessage(c.id, { role: i % 2 ? 'assistant' : 'user', content: `m${i}` })).id);
        if (i % 5 === 0) await store.addMessage(other.id, { role: 'user', content: 'noise' });
      }
      for (const limit of [1, 5, 7, 23, 50]) {
        const pages = await pageBack(store, c.id, limit);
        expect(pages.slice().reverse().flat()).toEqual(written);
        for (const page of pages) expect(page).toEqual([...page].sort((x, y) => x - y));
      }
      const newest = await store.listMessages(c.id, 3);
      expect(newest.map((m) => m.content)).toEqual(['m20', 'm21', 'm22']);
      expect(await store.listMessages(c.id, 5, { beforeTime: '2026-01-01T00:00:00.000Z' })).toEqual([]);
      expect((await store.listMessages(c.id, 5, { beforeTime: '2026-01-02T00:00:00.000Z' })).length).toBe(5);
    });

    it('accepts chat messages as FIFO turns: one open turn per conversation at a time', async () => {
      const store = h().open();
      const first = await store.acceptChatMessage({ conversation: conversation('chat'), message: { role: 'user', content: 'one' } });
      const second = await store.acceptChatMessage({ conversation: conversation('chat'), message: { role: 'user', content: 'two' } });
      const elsewhere = await store.acceptChatMessage({ conversation: conversation('chat-2'), message: { role: 'user', content: 'x' } });
      expect([first.status, second.status, elsewhere.status]).toEqual(['started', 'queued-conversation', 'started']);
      expect(first.conversation.title).toBe('one');
      expect(second.conversation.id).toBe(first.conversation.id);
      expect(await store.getChatTurnQueue()).toEqual({ activeConversationIds: [], queuedByConversation: { chat: 2, 'chat-2': 1 } });

      const claimed1 = await store.claimJob('sup', 30_000);
      const claimed2 = await store.claimJob('sup', 30_000);
      // The second turn of `chat` waits for the first; `chat-2` goes ahead.
      expect([claimed1?.id, claimed2?.id]).toEqual([first.job.id, elsewhere.job.id]);
      expect(await store.claimJob('sup', 30_000)).toBeUndefined();
      const queue = await store.getChatTurnQueue();
      expect(queue.activeConversationIds.sort()).toEqual(['chat', 'chat-2']);
      expect(queue.queuedByConversation).toEqual({ chat: 1 });
      await store.finishJob(first.job.id, 'sup', 'answered');
      expect((await store.claimJob('sup', 30_000))?.id).toBe(second.job.id);
    });

    it('posts a chat reply as the assistant’s message with its events, and marks the conversation active', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => (now += 1000) });
      const c = await store.createConversation(conversation('replied', { title: 'R' }));
      const other = await store.createConversation(conversation('other', { title: 'O' }));
      await store.addMessage(other.id, { role: 'user', content: 'later' });
      const reply = await store.postChatReply({
        conversationId: c.id, content: 'the answer', metadata: { model: 'm' },
        events: [{ conversation_id: 'replied', event_type: 'text', data: { text: 'the answer' } }],
      });
      expect(reply).toMatchObject({ role: 'assistant', content: 'the answer' });
      expect(JSON.parse(reply.metadata)).toEqual({ model: 'm' });
      expect((await store.listMessages(c.id, 10)).map((m) => [m.role, m.content])).toEqual([['assistant', 'the answer']]);
      expect((await store.listEventsAfter(0, 10, { conversationId: 'replied' })).map((e) => e.event_type)).toEqual(['text']);
      // The reply is the newest activity: the conversation lists first again.
      expect((await store.listConversations({ includeDeleted: false, limit: 10 })).map((x) => x.platform_conversation_id)).toEqual(['replied', 'other']);
    });

    it('creates a run with its conversation in one transaction, once', async () => {
      const store = h().open();
      const run = newRun({ conversationId: 'web-worker-1-abc', conversation: conversation('web-worker-1-abc', { hidden: true }) });
      await store.createRun(run);
      await store.createRun(newRun({ conversationId: 'web-worker-1-abc', conversation: conversation('web-worker-1-abc', { hidden: true }) }));
      expect(await store.getConversation('web-worker-1-abc')).toMatchObject({ hidden: true });
      expect((await store.listRuns({ conversationId: 'web-worker-1-abc', limit: 5 })).length).toBe(2);
    });

    it('releases a conversation’s worktree: environment destroyed, binding and cwd inside it cleared', async () => {
      const store = h().open();
      const scan = { status: 'clean' as const, files: [], keys: [], scanned_at: '2026-01-01T00:00:00.000Z' };
      await store.registerCodebase({ id: 'o/r', name: 'o/r', repository_url: null, default_cwd: '/src/o/r', default_branch: null, kind: 'repo', managed: false, env_scan: scan });
      await store.createIsolationEnvironment({ id: 'e1', codebase_id: 'o/r', workflow_type: 'thread', workflow_id: 'c', provider: 'worktree', working_path: '/wt/e1', branch_name: null, created_by_platform: 'web', metadata: {} });
      await store.createConversation(conversation('c', { codebase_id: 'o/r' }));
      expect(await store.releaseConversationWorktree('c')).toBeUndefined();
      await store.updateConversation('c', { isolation_env_id: 'e1', cwd: '/wt/e1/sub' });
      const released = await store.releaseConversationWorktree('c');
      expect(released?.environment).toMatchObject({ id: 'e1', status: 'destroyed' });
      expect(released?.conversation).toMatchObject({ isolation_env_id: null, cwd: null, codebase_id: 'o/r' });
      // Deleting the codebase unbinds its conversations.
      await store.deleteCodebase('o/r');
      expect((await store.getConversation('c'))?.codebase_id).toBeNull();
    });
  });
}

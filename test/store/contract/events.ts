import { describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { newEvent, newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

async function seed(store: Store) {
  const one = await store.createRun(newRun({ conversationId: 'conv-1' }));
  const two = await store.createRun(newRun({ conversationId: 'conv-2' }));
  return { one, two };
}

/** EventStore, from one process: seq order across connections, and the tailer's filtered reads. */
export function describeEventContract(backend: StoreBackend): void {
  describe('events', () => {
    const h = useHarness(backend);

    it('assigns increasing sequence numbers across connections, in commit order', async () => {
      const a = h().open();
      const b = h().open();
      const { one } = await seed(a);
      const written = [];
      for (let i = 0; i < 20; i++) {
        const store = i % 2 ? a : b;
        written.push(...(await store.appendEvents([newEvent(one, `e${i}`)])));
      }
      const seqs = written.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect((await a.listRunEvents(one.id)).map((e) => e.event_type)).toEqual(written.map((e) => e.event_type));
      expect(await b.lastEventSeq()).toBe(seqs[seqs.length - 1]);
    });

    it('gives each of several appends made at once its own rows, in call order', async () => {
      const store = h().open();
      const { one, two } = await seed(store);
      const [first, second] = await Promise.all([
        store.appendEvents([newEvent(one, 'a'), newEvent(one, 'b')]),
        store.appendEvents([newEvent(two, 'c')]),
      ]);
      expect(first!.map((e) => e.event_type)).toEqual(['a', 'b']);
      expect(second!.map((e) => e.event_type)).toEqual(['c']);
      const seqs = [...first!, ...second!].map((e) => e.seq);
      expect(seqs).toEqual([...new Set(seqs)].sort((x, y) => x - y));
      expect((await store.listEventsAfter(0, 100)).map((e) => e.seq)).toEqual(seqs);
      expect(await store.appendEvents([])).toEqual([]);
    });

    it('reads the rows after a sequence number, filtered by conversation or run', async () => {
      const store = h().open();
      const { one, two } = await seed(store);
      await store.appendEvents([newEvent(one, 'a'), newEvent(two, 'b'), newEvent(one, 'c')]);
      const all = await store.listEventsAfter(0, 100);
      expect(all.map((e) => e.event_type)).toEqual(['a', 'b', 'c']);
      const after = await store.listEventsAfter(all[0]!.seq, 100, { conversationId: 'conv-1' });
      expect(after.map((e) => e.event_type)).toEqual(['c']);
      expect((await store.listEventsAfter(0, 100, { runId: two.id })).map((e) => e.event_type)).toEqual(['b']);
      expect(await store.listEventsAfter(0, 2)).toHaveLength(2);
    });

    it('appends a conversation’s chat events in the same seq order as run events, with no run', async () => {
      const store = h().open();
      const { one } = await seed(store);
      const [run] = await store.appendEvents([newEvent(one, 'a')]);
      const chat = await store.appendConversationEvents([
        { conversation_id: one.conversation_id, event_type: 'text', data: { text: 'hello' } },
        { conversation_id: one.conversation_id, event_type: 'conversation_lock', data: { locked: false } },
      ]);
      expect(chat.map((e) => [e.run_id, e.step_name, e.event_type])).toEqual([[null, null, 'text'], [null, null, 'conversation_lock']]);
      expect(chat.map((e) => e.seq)).toEqual([run!.seq + 1, run!.seq + 2]);
      expect(await store.appendConversationEvents([])).toEqual([]);
      // The conversation's stream has both; a run's has only its own.
      const stream = await store.listEventsAfter(0, 100, { conversationId: one.conversation_id });
      expect(stream.map((e) => e.event_type)).toEqual(['a', 'text', 'conversation_lock']);
      expect(stream[1]).toMatchObject({ data: { text: 'hello' }, run_id: null });
      expect((await store.listEventsAfter(0, 100, { runId: one.id })).map((e) => e.event_type)).toEqual(['a']);
      expect(await store.listRunEvents(one.id)).toHaveLength(1);
    });

    it('in appends made at once on one connection, an end already written (in an earlier call or earlier in the same call) is left out of its own call only', async () => {
      const store = h().open();
      const { one, two } = await seed(store);
      const end = (run: typeof one, type: string, attempt: string) => ({ ...newEvent(run, type), ends_attempt: attempt });
      const [first, second, third] = await Promise.all([
        store.appendEvents([newEvent(one, 'a'), end(one, 'end-1', 'x-1'), newEvent(two, 'b')]),
        store.appendEvents([end(one, 'end-1-again', 'x-1'), newEvent(one, 'c'), end(two, 'end-2', 'x-2'), end(two, 'end-2-again', 'x-2')]),
        store.appendEvents([end(one, 'end-1-third', 'x-1')]),
      ]);
      expect(first!.map((e) => e.event_type)).toEqual(['a', 'end-1', 'b']);
      expect(second!.map((e) => e.event_type)).toEqual(['c', 'end-2']);
      expect(third).toEqual([]);
      // What each call got back is what was stored, with the seqs it was stored under.
      const stored = [...(await store.listRunEvents(one.id)), ...(await store.listRunEvents(two.id))].sort((x, y) => x.seq - y.seq);
      expect(stored.map((e) => [e.event_type, e.seq])).toEqual([...first!, ...second!].map((e) => [e.event_type, e.seq]));
    });

    it('keeps one terminal event per attempt, whoever writes it and however the writes race', async () => {
      const a = h().open();
      const b = h().open();
      const { one } = await seed(a);
      const end = (type: string, attempt: string) => ({ ...newEvent(one, type), ends_attempt: attempt });
      // Two connections (a thread and the pool, say) close the same attempt at once.
      const [fromA, fromB] = await Promise.all([
        a.appendEvents([newEvent(one, 'node_started'), end('node_failed', 'attempt-1')]),
        b.appendEvents([end('node_completed', 'attempt-1'), end('node_completed', 'attempt-2')]),
      ]);
      const kept = (await a.listRunEvents(one.id)).map((e) => e.event_type);
      expect(kept.filter((t) => t !== 'node_started')).toHaveLength(2);
      expect([...fromA, ...fromB].map((e) => e.event_type).sort()).toEqual([...kept].sort());
      // A later third end of attempt-1 is refused too; events without ends_attempt never are.
      expect(await b.appendEvents([end('node_failed', 'attempt-1'), newEvent(one, 'note')])).toHaveLength(1);
      expect(await a.appendEvents([newEvent(one, 'note')])).toHaveLength(1);
    });
  });
}

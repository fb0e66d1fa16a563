import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** RunStore: ownership of a run under a lease, and owner-checked state changes. */
export function describeRunContract(backend: StoreBackend): void {
  describe('run ownership', () => {
    const h = useHarness(backend);

    it('lets one supervisor take a run, refuses a second, and allows take-over once the lease expires', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await store.createRun(newRun());
      const take = (ownerId: string) =>
        store.acquireRun({
          runId: run.id, ownerId, leaseMs: 5_000, fromStatuses: ['pending', 'running'], status: 'running',
          events: [{ run_id: run.id, conversation_id: run.conversation_id, event_type: 'workflow_started', step_name: null, data: { by: ownerId } }],
        });
      expect((await take('sup-a'))?.owner_id).toBe('sup-a');
      expect(await take('sup-b')).toBeUndefined();
      now += 6_000;
      expect((await take('sup-b'))?.owner_id).toBe('sup-b');
      // Only the successful acquisitions wrote their events.
      const events = await store.listRunEvents(run.id);
      expect(events.map((e) => e.data.by)).toEqual(['sup-a', 'sup-b']);
    });

    it('writes the events a run is created with in its transaction, and none when an existing child is returned', async () => {
      const store = h().open();
      const parent = await store.createRun(newRun());
      const queued = (id: string) => [{ run_id: id, conversation_id: 'conv-child', event_type: 'workflow_queued', step_name: null, data: { workflowName: 'demo' } }];
      const child = newRun({ conversationId: 'conv-child', parent: { runId: parent.id, nodeId: 'call', childIndex: 0 } });
      const created = await store.createRun({ ...child, events: queued(child.id) });
      expect((await store.listRunEvents(created.id)).map((e) => e.event_type)).toEqual(['workflow_queued']);
      // Queued again (same parent, node and index): the run there is, and no second announcement.
      const again = newRun({ conversationId: 'conv-child', parent: { runId: parent.id, nodeId: 'call', childIndex: 0 } });
      expect((await store.createRun({ ...again, events: queued(again.id) })).id).toBe(created.id);
      expect((await store.listRunEvents(created.id)).map((e) => e.event_type)).toEqual(['workflow_queued']);
      expect(await store.listRunEvents(again.id)).toEqual([]);
    });

    it('keeps a run’s typed inputs as the values they are (docs/workflows.md, "Typed inputs")', async () => {
      const store = h().open();
      const inputs = { text: '3', count: 3, ratio: 0.5, dry: false, tags: ['a', 'b'], opts: { depth: 2, on: true } };
      const run = await store.createRun(newRun({ inputs }));
      expect(run.inputs).toEqual(inputs);
      expect((await store.getRun(run.id))!.inputs).toEqual(inputs);
    });

    it('takes a run over from a named previous owner without waiting for its lease', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      await store.acquireRun({ runId: run.id, ownerId: 'dead', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      const taken = await store.acquireRun({
        runId: run.id, ownerId: 'heir', leaseMs: 60_000, fromStatuses: ['running'], status: 'running', previousOwner: 'dead', events: [],
      });
      expect(taken?.owner_id).toBe('heir');
    });

    it('refuses a state change from a supervisor that no longer owns the run, writing nothing', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await expect(
        store.transitionRun({
          runId: run.id, ownerId: 'sup-b', status: 'completed',
          events: [{ run_id: run.id, conversation_id: run.conversation_id, event_type: 'workflow_completed', step_name: null, data: {} }],
        }),
      ).rejects.toMatchObject({ code: 'RUN_INVALID_STATE' });
      expect((await store.getRun(run.id))?.status).toBe('running');
      expect(await store.listRunEvents(run.id)).toEqual([]);
    });

    it('records completion time, merges metadata and releases the run on a terminal transition', async () => {
      const store = h().open();
      const run = await store.createRun(newRun({ metadata: { keep: 1 } }));
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      const done = await store.transitionRun({
        runId: run.id, ownerId: 'sup-a', status: 'failed', error: 'boom', metadataPatch: { added: true }, release: true, events: [],
      });
      expect(done).toMatchObject({ status: 'failed', error: 'boom', owner_id: null, metadata: { keep: 1, added: true } });
      expect(done.completed_at).not.toBeNull();
      expect(await store.renewRunLeases('sup-a', [run.id], 60_000)).toBe(0);
    });

    it('brings an ended run back only by a resume, which clears its error and its cancel request', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await store.enqueueJob('cancel_run', run.id);
      await store.claimJob('sup-a', 60_000); // the start job
      const cancel = await store.claimJob('sup-a', 60_000); // the cancel: recorded on the run
      await store.finishJob(cancel!.id, 'sup-a', 'cancel failed the run');
      await store.transitionRun({ runId: run.id, ownerId: 'sup-a', status: 'failed', error: 'boom', events: [] });
      // Still its owner, but an end is not undone by a transition, nor by an acquire that is not a resume.
      await expect(store.transitionRun({ runId: run.id, ownerId: 'sup-a', status: 'running', events: [] })).rejects.toMatchObject({ code: 'RUN_INVALID_STATE' });
      const again = { runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['failed' as const], status: 'running' as const, events: [] };
      expect(await store.acquireRun(again)).toBeUndefined();
      expect(await store.getRun(run.id)).toMatchObject({ status: 'failed', error: 'boom' });
      expect(await store.getCancelRequestedAt(run.id)).not.toBeNull();
      expect(await store.acquireRun({ ...again, resume: true })).toMatchObject({ status: 'running', error: null, completed_at: null });
      expect(await store.getCancelRequestedAt(run.id)).toBeNull();
    });

    it('renews only the leases of the runs the owner names, so a run it no longer drives lapses', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const [driven, dropped] = await Promise.all([store.createRun(newRun()), store.createRun(newRun())]);
      for (const run of [driven, dropped]) {
        await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 5_000, fromStatuses: ['pending'], status: 'running', events: [] });
      }
      now += 4_000;
      expect(await store.renewRunLeases('sup-a', [driven.id], 5_000)).toBe(1);
      // Another owner's renewal of the same run changes nothing.
      expect(await store.renewRunLeases('sup-b', [dropped.id], 5_000)).toBe(0);
      now += 2_000;
      const candidates = await store.listRunsNotLeasedBy('sup-a', 'running');
      expect(candidates.map((r) => r.id)).toEqual([dropped.id]);
      const take = (runId: string) =>
        store.acquireRun({ runId, ownerId: 'sup-b', leaseMs: 5_000, fromStatuses: ['running'], status: 'running', events: [] });
      expect(await take(driven.id)).toBeUndefined();
      expect((await take(dropped.id))?.owner_id).toBe('sup-b');
    });

    it('lists as take-over candidates the runs an owner holds under a live lease for others only', async () => {
      const store = h().open();
      const [mine, theirs, unowned] = await Promise.all([1, 2, 3].map(() => store.createRun(newRun())));
      await store.acquireRun({ runId: mine!.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await store.acquireRun({ runId: theirs!.id, ownerId: 'sup-b', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await store.acquireRun({ runId: unowned!.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await store.releaseRuns('sup-a', [unowned!.id]);
      const ids = (await store.listRunsNotLeasedBy('sup-a', 'running')).map((r) => r.id);
      expect(ids.sort()).toEqual([theirs!.id, unowned!.id].sort());
    });
  });

  describe('open runs of a conversation', () => {
    const h = useHarness(backend);

    it("lists a conversation's own and dispatched runs that have not ended, however many runs are newer", async () => {
      const store = h().open();
      const own = await store.createRun(newRun({ conversationId: 'chat-1' }));
      const dispatched = await store.createRun(newRun({ conversationId: 'web-worker-1', metadata: { parent_conversation_id: 'chat-1' } }));
      const ended = await store.createRun(newRun({ conversationId: 'chat-1' }));
      await store.acquireRun({ runId: ended.id, ownerId: 'sup', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await store.transitionRun({ runId: ended.id, ownerId: 'sup', status: 'completed', release: true, events: [] });
      for (let i = 0; i < 210; i++) await store.createRun(newRun({ conversationId: `other-${i}` }));
      const ids = (await store.listOpenRunsOf('chat-1')).map((r) => r.id);
      expect(ids).toEqual([dispatched.id, own.id]);
      expect(await store.listOpenRunsOf("chat-1' OR 1=1 --")).toEqual([]);
    });
  });
}

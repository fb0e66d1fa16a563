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
      expect(await store.renewRunLeases('sup-a', 60_000)).toBe(0);
    });
  });
}

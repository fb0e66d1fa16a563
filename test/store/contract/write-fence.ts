import { describe, expect, it } from 'vitest';
import { isFenced } from '../../../src/store/rules/write-fence.js';
import { newEvent, newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/**
 * Fencing (store/rules/write-fence.ts): a store opened for a supervisor (`writer`) writes a run's
 * events only while that supervisor owns the run, decided in the transaction that inserts them.
 */
export function describeWriteFenceContract(backend: StoreBackend): void {
  describe('write fence', () => {
    const h = useHarness(backend);
    const acquire = (store: ReturnType<ReturnType<typeof h>['open']>, runId: string, ownerId: string, previousOwner?: string) =>
      store.acquireRun({
        runId, ownerId, leaseMs: 60_000, fromStatuses: ['pending', 'running'], status: 'running', events: [],
        ...(previousOwner ? { previousOwner } : {}),
      });

    it("a supervisor's events for a run it owns are written; once another took the run over, none are, and the refusal says so", async () => {
      const admin = h().open();
      const paused = h().open({ writer: 'sup-a' });
      const run = await admin.createRun(newRun());
      await acquire(admin, run.id, 'sup-a');
      expect(await paused.appendEvents([newEvent(run, 'node_started')])).toHaveLength(1);

      await acquire(admin, run.id, 'sup-b', 'sup-a');
      const refused = await paused.appendEvents([newEvent(run, 'node_completed')]).catch((err: unknown) => err);
      expect(isFenced(refused)).toBe(true);
      expect((refused as Error).message).toContain('owned by supervisor sup-b, not by sup-a');
      expect((await admin.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['node_started']);

      // The new owner's writes go through.
      const heir = h().open({ writer: 'sup-b' });
      expect(await heir.appendEvents([newEvent(run, 'node_completed')])).toHaveLength(1);
    });

    it('fences each append alone: one refused in a batch of appends made at once leaves the others written', async () => {
      const admin = h().open();
      const store = h().open({ writer: 'sup-a' });
      const kept = await admin.createRun(newRun());
      const lost = await admin.createRun(newRun());
      await acquire(admin, kept.id, 'sup-a');
      await acquire(admin, lost.id, 'sup-a');
      await acquire(admin, lost.id, 'sup-b', 'sup-a');
      const [ok, refused] = await Promise.allSettled([
        store.appendEvents([newEvent(kept, 'k')]),
        store.appendEvents([newEvent(lost, 'l')]),
      ]);
      expect(ok).toMatchObject({ status: 'fulfilled' });
      expect(refused.status === 'rejected' && isFenced(refused.reason)).toBe(true);
      expect((await admin.listRunEvents(kept.id)).map((e) => e.event_type)).toEqual(['k']);
      expect(await admin.listRunEvents(lost.id)).toEqual([]);
    });

    it("a job a supervisor queues on behalf of a run (a parent cancelling its child) is queued while it owns that run; once another took it over, it is refused and nothing is queued", async () => {
      const admin = h().open();
      const paused = h().open({ writer: 'sup-a' });
      const parent = await admin.createRun(newRun());
      const child = await admin.createRun(newRun());
      await acquire(admin, parent.id, 'sup-a');
      const jobsOf = async (runId: string) => (await admin.listRunJobs(runId)).filter((j) => j.kind !== 'start_run').map((j) => j.kind);
      await paused.enqueueJob('resume_run', child.id, {}, { onBehalfOf: parent.id });
      expect(await jobsOf(child.id)).toEqual(['resume_run']);

      await acquire(admin, parent.id, 'sup-b', 'sup-a');
      const refused = await paused.enqueueJob('cancel_run', child.id, {}, { onBehalfOf: parent.id }).catch((err: unknown) => err);
      expect(isFenced(refused)).toBe(true);
      expect((refused as Error).message).toContain('owned by supervisor sup-b, not by sup-a');
      expect(await jobsOf(child.id)).toEqual(['resume_run']);

      // The new owner may; a store for no supervisor (the API) queues as before; so does a job asked on behalf of no run.
      await h().open({ writer: 'sup-b' }).enqueueJob('cancel_run', child.id, {}, { onBehalfOf: parent.id });
      await admin.enqueueJob('cancel_run', child.id, {}, { onBehalfOf: parent.id });
      await paused.enqueueJob('cancel_run', child.id);
      expect(await jobsOf(child.id)).toEqual(['resume_run', 'cancel_run', 'cancel_run', 'cancel_run']);
    });

    it('a run nobody holds (let go, or never started) takes no events from a supervisor; a store for no supervisor writes as before', async () => {
      const admin = h().open();
      const store = h().open({ writer: 'sup-a' });
      const run = await admin.createRun(newRun());
      expect(isFenced(await store.appendEvents([newEvent(run, 'x')]).catch((err: unknown) => err))).toBe(true);
      await acquire(admin, run.id, 'sup-a');
      await admin.releaseRuns('sup-a', [run.id]);
      expect(isFenced(await store.appendEvents([newEvent(run, 'y')]).catch((err: unknown) => err))).toBe(true);
      expect(await admin.appendEvents([newEvent(run, 'z')])).toHaveLength(1);
      expect((await admin.listRunEvents(run.id)).map((e) => e.event_type)).toEqual(['z']);
    });
  });
}

import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';
import type { Store } from '../../../src/store/store.js';

/** RunStore.sleepRun and not-before jobs: a run let go until a moment, and the job that wakes it. */
export function describeSleepingRunContract(backend: StoreBackend): void {
  describe('sleeping runs and not-before jobs', () => {
    const h = useHarness(backend);

    /** A run `sup-a` drives, its start job done. */
    async function drivenRun(store: Store) {
      const run = await store.createRun(newRun());
      const start = await store.claimJob('sup-a', 60_000);
      await store.finishJob(start!.id, 'sup-a', 'started');
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      return run;
    }

    it('lets a run sleep unowned, out of take-over, with a wake job nobody claims before its moment', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await drivenRun(store);
      const wakeAt = new Date(now + 60_000).toISOString();
      expect(await store.sleepRun({ runId: run.id, ownerId: 'sup-a', wakeAt })).toBe(true);

      expect(await store.getRun(run.id)).toMatchObject({ status: 'running', owner_id: null, lease_expires_at: null });
      expect((await store.listRunsNotLeasedBy('sup-b', 'running')).map((r) => r.id)).not.toContain(run.id);
      expect(await store.claimJob('sup-b', 10_000)).toBeUndefined();
      expect(await store.msUntilNextDueJob()).toBe(60_000);

      now += 59_999;
      expect(await store.claimJob('sup-b', 10_000)).toBeUndefined();
      expect(await store.msUntilNextDueJob()).toBe(1);
      now += 1;
      const wake = await store.claimJob('sup-b', 10_000);
      expect(wake).toMatchObject({ kind: 'wake_run', run_id: run.id, not_before: wakeAt, lease_owner: 'sup-b' });
      expect(await store.msUntilNextDueJob()).toBeUndefined();
      // Claimed, not done: still asleep for take-over (the claimant, or the job's next claimant, wakes it).
      expect((await store.listRunsNotLeasedBy('sup-b', 'running')).map((r) => r.id)).not.toContain(run.id);
      await store.finishJob(wake!.id, 'sup-b', 'woken');
      expect((await store.listRunsNotLeasedBy('sup-b', 'running')).map((r) => r.id)).toContain(run.id);
    });

    it('claims an ordinary job at once while another waits for its moment, oldest first', async () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await drivenRun(store);
      await store.sleepRun({ runId: run.id, ownerId: 'sup-a', wakeAt: new Date(now + 3_600_000).toISOString() });
      const other = await store.createRun(newRun());
      expect(await store.claimJob('sup-b', 10_000)).toMatchObject({ kind: 'start_run', run_id: other.id });
    });

    it('keeps one pending wake-up per run, and none once the run ends', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await drivenRun(store);
      await store.sleepRun({ runId: run.id, ownerId: 'sup-a', wakeAt: new Date(now + 10_000).toISOString() });
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['running'], status: 'running', events: [] });
      await store.sleepRun({ runId: run.id, ownerId: 'sup-a', wakeAt: new Date(now + 20_000).toISOString() });
      const open = (await store.listRunJobs(run.id)).filter((j) => j.kind === 'wake_run' && j.status !== 'done');
      expect(open.map((j) => j.not_before)).toEqual([new Date(now + 20_000).toISOString()]);

      const cancelled = await store.acquireRun({
        runId: run.id, ownerId: 'sup-b', leaseMs: 60_000, fromStatuses: ['running'], status: 'cancelled', onlyUnowned: true, events: [],
      });
      expect(cancelled?.status).toBe('cancelled');
      expect((await store.listRunJobs(run.id)).filter((j) => j.kind === 'wake_run' && j.status !== 'done')).toEqual([]);
      now += 30_000;
      expect(await store.claimJob('sup-b', 10_000)).toBeUndefined();
    });

    it('refuses to let a run sleep for a supervisor that does not own it, or once its cancel is on it', async () => {
      const store = h().open();
      const run = await drivenRun(store);
      const wakeAt = new Date(Date.now() + 60_000).toISOString();
      expect(await store.sleepRun({ runId: run.id, ownerId: 'sup-b', wakeAt })).toBe(false);
      await store.enqueueJob('cancel_run', run.id);
      expect(await store.claimJob('sup-a', 10_000)).toMatchObject({ kind: 'cancel_run' });
      expect(await store.sleepRun({ runId: run.id, ownerId: 'sup-a', wakeAt })).toBe(false);
      expect((await store.getRun(run.id))?.owner_id).toBe('sup-a');
    });

    it('acquires a run with onlyUnowned only when nobody owns it, not when its owner merely let the lease lapse', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await drivenRun(store);
      now += 120_000;
      const acquire = (onlyUnowned: boolean) =>
        store.acquireRun({ runId: run.id, ownerId: 'sup-b', leaseMs: 60_000, fromStatuses: ['running'], status: 'running', onlyUnowned, events: [] });
      expect(await acquire(true)).toBeUndefined();
      expect(await acquire(false)).toMatchObject({ owner_id: 'sup-b' });
    });
  });
}

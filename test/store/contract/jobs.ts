import { describe, expect, it } from 'vitest';
import { newRun } from '../fixtures.js';
import { useHarness, type StoreBackend } from './backend.js';

/** JobStore: the queue between the API process and the supervisors. */
export function describeJobContract(backend: StoreBackend): void {
  describe('jobs', () => {
    const h = useHarness(backend);

    it('queues a start job with every new run, and hands it to exactly one claimant', async () => {
      const api = h().open();
      const a = h().open();
      const b = h().open();
      const run = await api.createRun(newRun());
      expect(run.status).toBe('pending');

      const [first, second] = await Promise.all([a.claimJob('sup-a', 10_000), b.claimJob('sup-b', 10_000)]);
      const claimed = [first, second].filter(Boolean);
      expect(claimed).toHaveLength(1);
      expect(claimed[0]).toMatchObject({ kind: 'start_run', run_id: run.id, status: 'claimed' });
    });

    it('gives a job back when its claimant lets the lease expire', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await store.createRun(newRun());
      const job = await store.claimJob('sup-a', 5_000);
      expect(job?.run_id).toBe(run.id);
      expect(await store.claimJob('sup-b', 5_000)).toBeUndefined();
      now += 6_000;
      const reclaimed = await store.claimJob('sup-b', 5_000);
      expect(reclaimed).toMatchObject({ id: job?.id, lease_owner: 'sup-b' });
    });

    it('does not hand a finished job out again', async () => {
      const store = h().open();
      await store.createRun(newRun());
      const job = await store.claimJob('sup-a', 10_000);
      await store.finishJob(job!.id, 'sup-a', 'started');
      expect(await store.claimJob('sup-a', 10_000)).toBeUndefined();
    });

    it('leaves jobs of a run owned by another live supervisor to that supervisor', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const start = await store.claimJob('sup-a', 10_000);
      await store.acquireRun({
        runId: run.id, ownerId: 'sup-a', leaseMs: 10_000, fromStatuses: ['pending'], status: 'running', events: [],
      });
      await store.finishJob(start!.id, 'sup-a', 'started');
      await store.enqueueJob('cancel_run', run.id);
      expect(await store.claimJob('sup-b', 10_000)).toBeUndefined();
      expect(await store.claimJob('sup-a', 10_000)).toMatchObject({ kind: 'cancel_run' });
    });

    it('reports a cancel request from the moment its job is queued, and records it on the run when the job is claimed', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await store.createRun(newRun());
      const start = await store.claimJob('sup-a', 60_000);
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await store.finishJob(start!.id, 'sup-a', 'started');
      expect(await store.getCancelRequestedAt(run.id)).toBeNull();
      await store.enqueueJob('cancel_run', run.id);
      // Queued and not claimed (its supervisor died, say): a take-over reading it must not run the run on.
      const requestedAt = new Date(now).toISOString();
      expect(await store.getCancelRequestedAt(run.id)).toBe(requestedAt);

      now += 1_000;
      expect(await store.claimJob('sup-a', 60_000)).toMatchObject({ kind: 'cancel_run' });
      expect(await store.getCancelRequestedAt(run.id)).toBe(requestedAt);
      // A second cancel keeps the time of the first.
      await store.enqueueJob('cancel_run', run.id);
      now += 1_000;
      await store.claimJob('sup-a', 60_000);
      expect(await store.getCancelRequestedAt(run.id)).toBe(requestedAt);
    });

    it('leaves a finished run without a cancel request when a late cancel job is claimed', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      await store.claimJob('sup-a', 60_000);
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'running', events: [] });
      await store.transitionRun({ runId: run.id, ownerId: 'sup-a', status: 'completed', release: true, events: [] });
      await store.enqueueJob('cancel_run', run.id);
      expect(await store.claimJob('sup-b', 60_000)).toMatchObject({ kind: 'cancel_run' });
      expect(await store.getCancelRequestedAt(run.id)).toBeNull();
    });

    it('counts every claim of a job, and lists the jobs of a run oldest first', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      const store = h().open({ clock: () => now });
      const run = await store.createRun(newRun());
      const cancel = await store.enqueueJob('cancel_run', run.id);
      expect(cancel).toMatchObject({ attempts: 0, last_error: null });
      expect((await store.claimJob('sup-a', 5_000))?.attempts).toBe(1);
      now += 6_000;
      expect((await store.claimJob('sup-b', 5_000))?.attempts).toBe(2);
      const jobs = await store.listRunJobs(run.id);
      expect(jobs.map((j) => [j.kind, j.attempts])).toEqual([['start_run', 2], ['cancel_run', 0]]);
    });

    it('reads one job by id as it stands, and answers undefined once its run is deleted with it', async () => {
      const store = h().open();
      const run = await store.createRun(newRun());
      const [start] = await store.listRunJobs(run.id);
      expect(await store.getJob(start!.id)).toEqual(start);
      const claimed = await store.claimJob('sup-a', 60_000);
      await store.finishJob(claimed!.id, 'sup-a', 'started');
      expect(await store.getJob(start!.id)).toMatchObject({ id: start!.id, status: 'done', result: 'started', attempts: 1 });
      expect(await store.getJob(start!.id + 1000)).toBeUndefined();
      await store.acquireRun({ runId: run.id, ownerId: 'sup-a', leaseMs: 60_000, fromStatuses: ['pending'], status: 'cancelled', events: [] });
      expect(await store.deleteRun(run.id, ['cancelled'])).toBe(true);
      expect(await store.getJob(start!.id)).toBeUndefined();
    });
  });
}
